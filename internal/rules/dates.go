package rules

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"time"
)

// Start is when a rule applies: a fixed date, or, for the PPWR's "date X
// or N months after a Commission act enters into force, whichever is the
// latest", the later of the two (ppwr-facts §6.1).
type Start struct {
	Fixed        time.Time
	Act          string // code of the act the date waits for, "" for none
	OffsetMonths int
}

// From is when the rule applies given the acts in force: the date, and
// whether it is only the earliest possible one because the act is
// pending.
func (s Start) From(acts Acts) (time.Time, bool) {
	if s.Act == "" {
		return s.Fixed, false
	}
	inForce, ok := acts[s.Act]
	if !ok {
		return s.Fixed, true
	}
	if later := inForce.AddDate(0, s.OffsetMonths, 0); later.After(s.Fixed) {
		return later, false
	}
	return s.Fixed, false
}

// Acts are the entry-into-force dates of the Commission acts known to be
// in force, by code.
type Acts map[string]time.Time

//go:embed acts.json
var actsJSON []byte

// KnownActs are the acts of acts.json with an entry-into-force date.
func KnownActs() Acts {
	var doc struct {
		Acts []struct {
			Code    string  `json:"code"`
			InForce *string `json:"in_force"`
		} `json:"acts"`
	}
	if err := json.Unmarshal(actsJSON, &doc); err != nil {
		panic(fmt.Sprintf("rules: acts.json: %v", err))
	}
	out := Acts{}
	for _, a := range doc.Acts {
		if a.InForce != nil {
			out[a.Code] = day(*a.InForce)
		}
	}
	return out
}

// day parses a date the package declares; a bad one is a programming
// error.
func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}
