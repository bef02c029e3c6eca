package assessments

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"ppwr/api/kit"
	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
	"ppwr/internal/rules"
)

// catalogueRuleJSON is one rule of the catalogue, as a compliance officer
// reads it before any assessment: where it comes from, what kind of check
// it is, whom and what it binds, from when, and what it reads.
type catalogueRuleJSON struct {
	Rule           string   `json:"rule"`
	Article        string   `json:"article"`
	RuleSet        string   `json:"rule_set"`
	RuleSetVersion string   `json:"rule_set_version"`
	Check          string   `json:"check"`
	Level          string   `json:"level" schema:"desc=assessment.level"`
	Scope          string   `json:"scope" schema:"desc=catalogue.scope"`
	AppliesFrom    string   `json:"applies_from" schema:"date"`
	Pending        bool     `json:"applies_from_pending_act" schema:"desc=assessment.pending_act"`
	Reads          []string `json:"reads" schema:"desc=catalogue.reads"`
}

func (catalogueRuleJSON) Declare(s *kit.Shape) {
	s.Enum("check", rules.Checks...)
	s.Enum("level", rules.Levels...)
}

type catalogueJSON struct {
	Regulation string              `json:"regulation"`
	Rules      []catalogueRuleJSON `json:"rules"`
}

// catalogue answers every rule of the catalogue in the request's
// language, with the dates the acts known to be in force give.
func (h *handlers) catalogue(c *gin.Context) error {
	locale, acts := kit.State(c).Locale, rules.KnownActs()
	out := catalogueJSON{Regulation: "Regulation (EU) 2025/40", Rules: make([]catalogueRuleJSON, len(rules.All))}
	for i, r := range rules.All {
		from, pending := r.Start.From(acts)
		set, _ := dictionaries.Default().RuleSet(r.RuleSet)
		out.Rules[i] = catalogueRuleJSON{Rule: r.Code, Article: r.Article, RuleSet: r.RuleSet, RuleSetVersion: set.Version, Check: r.Check,
			Level: r.Level, Scope: i18n.T(locale, r.ScopeKey()), AppliesFrom: from.Format(time.DateOnly), Pending: pending, Reads: r.Reads}
	}
	c.JSON(http.StatusOK, out)
	return nil
}
