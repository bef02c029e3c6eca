// Package rules evaluates the PPWR obligations of Regulation (EU) 2025/40
// that can be read from an item's data: each rule has its code and article
// (ppwr-facts §1.1), its check type, the date it applies from, and an
// evaluation over the item, its register entries and its accepted
// evidence. A rule that cannot be evaluated says so and names what is
// missing; absence of data never passes. The package is pure: the domain
// loads the input and stores the results.
package rules

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/register"
)

// Outcomes of a rule.
const (
	Pass                 = "pass"
	Fail                 = "fail"
	Graded               = "grade"
	NotApplicable        = "not_applicable"
	NotYetApplicable     = "not_yet_applicable"
	InsufficientData     = "insufficient_data"
	DocumentationMissing = "documentation_missing"
)

// Outcomes are every outcome, for the API's enumeration.
var Outcomes = []string{Pass, Fail, Graded, NotApplicable, NotYetApplicable, InsufficientData, DocumentationMissing}

// Check types (ppwr-facts §1.1).
const (
	PassFail       = "pass_fail"
	GradedCheck    = "graded"
	Documentation  = "documentation"
	Classification = "classification"
)

// Rule is one executable obligation.
type Rule struct {
	Code    string
	Article string
	RuleSet string
	Check   string
	Start   Start
	// Reads names the registers and evidence codes the rule reads.
	Reads []string
	eval  func(in *Input) Result
}

// Result is one rule's outcome on one input.
type Result struct {
	Rule        string
	Article     string
	Check       string
	Outcome     string
	Grade       string // for Graded
	AppliesFrom time.Time
	// Pending: AppliesFrom is only the earliest date, because the
	// Commission act the date depends on is not in force.
	Pending bool
	// Reason is the i18n key saying why (not applicable, failed) or what
	// follows (a retention date), with its arguments.
	Reason     string
	ReasonArgs []string
	Missing    []string
	// Entries and Evidence are the register entries and evidence
	// proposals the outcome rests on.
	Entries  []uuid.UUID
	Evidence []uuid.UUID
}

// Item is what the rules read of the catalogue item itself.
type Item struct {
	FoodContact bool
	MassG       decimal.Decimal
	Components  []Component
}

// Component is a part of the item.
type Component struct {
	ID       uuid.UUID
	Material string
	MassG    decimal.Decimal
}

// Entry is an active register entry of the item.
type Entry struct {
	ID       uuid.UUID
	Register string
	Values   register.Values
	// Accepted: its internal review accepted it. Current: it rests on the
	// item's current revision. Only accepted, current entries are read.
	Accepted bool
	Current  bool
}

// Fact is the item's latest accepted value of an evidence code.
type Fact struct {
	Code      string
	Component *uuid.UUID
	Value     decimal.Decimal
	Proposal  uuid.UUID
}

// Input is everything the rules read about one item on one date.
type Input struct {
	On      time.Time
	Item    Item
	Entries []Entry // newest first
	Facts   []Fact
	Acts    Acts
}

// Evaluate runs each rule on the input: a rule not applicable yet on the
// date (or whose date waits for a pending act) is not evaluated.
func Evaluate(rules []Rule, in *Input) []Result {
	out := make([]Result, 0, len(rules))
	for _, r := range rules {
		from, pending := r.Start.From(in.Acts)
		res := Result{Outcome: NotYetApplicable}
		if !pending && !in.On.Before(from) {
			res = r.eval(in)
		}
		res.Rule, res.Article, res.Check, res.AppliesFrom, res.Pending = r.Code, r.Article, r.Check, from, pending
		out = append(out, res)
	}
	return out
}

// usable are the accepted entries of a register resting on the item's
// current revision, newest first.
func (in *Input) usable(reg string) []Entry {
	var out []Entry
	for _, e := range in.Entries {
		if e.Register == reg && e.Accepted && e.Current {
			out = append(out, e)
		}
	}
	return out
}

// latest is the newest usable entry of a register.
func (in *Input) latest(reg string) (Entry, bool) {
	all := in.usable(reg)
	if len(all) == 0 {
		return Entry{}, false
	}
	return all[0], true
}

// forComponent is the newest usable entry of a register about a component.
func (in *Input) forComponent(reg string, component uuid.UUID) (Entry, bool) {
	i := slices.IndexFunc(in.usable(reg), func(e Entry) bool { id, ok := e.Values.ID("component"); return ok && id == component })
	if i < 0 {
		return Entry{}, false
	}
	return in.usable(reg)[i], true
}

// fact is the item's accepted value of an evidence code for a component.
func (in *Input) fact(code string, component uuid.UUID) (Fact, bool) {
	i := slices.IndexFunc(in.Facts, func(f Fact) bool { return f.Code == code && f.Component != nil && *f.Component == component })
	if i < 0 {
		return Fact{}, false
	}
	return in.Facts[i], true
}

// verdict accumulates the outcome of a rule over several parts: a failure
// wins over missing data, which wins over a pass.
type verdict struct {
	Result
	failed bool
}

func (v *verdict) uses(e Entry) { v.Entries = append(v.Entries, e.ID) }

func (v *verdict) missing(what string) { v.Missing = append(v.Missing, what) }

func (v *verdict) fail(reason string) { v.failed, v.Reason = true, reason }

func (v *verdict) result() Result {
	switch {
	case v.failed:
		v.Outcome = Fail
	case len(v.Missing) > 0 && v.Outcome == "":
		v.Outcome = InsufficientData
	case v.Outcome == "":
		v.Outcome = Pass
	}
	return v.Result
}

func notApplicable(reason string, used ...Entry) Result {
	r := Result{Outcome: NotApplicable, Reason: reason}
	for _, e := range used {
		r.Entries = append(r.Entries, e.ID)
	}
	return r
}
