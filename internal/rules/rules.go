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
	// Informational: the law sets no obligation the data could meet or
	// miss (a review, an "endeavour" target); the outcome reports what
	// the data shows and is never a pass or a failure.
	Informational = "information"
	// NationalChoiceUnknown: the obligation is a Member State's option,
	// and no verified national choice is known for the market.
	NationalChoiceUnknown = "national_choice_unknown"
	// NotAssessed: the rule's rule set was not selected for the
	// assessment, or is not published.
	NotAssessed = "not_assessed"
)

// Outcomes are every outcome, for the API's enumeration.
var Outcomes = []string{Pass, Fail, Graded, NotApplicable, NotYetApplicable, InsufficientData, DocumentationMissing,
	Informational, NationalChoiceUnknown, NotAssessed}

// CanFail reports whether an outcome counts toward an assessment's
// status: a failure, or a rule that cannot be shown met. Information, an
// unknown national choice and a rule not assessed never do.
func CanFail(outcome string) bool {
	return outcome == Fail || outcome == InsufficientData || outcome == DocumentationMissing
}

// Check types (ppwr-facts §1.1).
const (
	PassFail       = "pass_fail"
	GradedCheck    = "graded"
	Documentation  = "documentation"
	Classification = "classification"
	Information    = "information"
	Aggregate      = "aggregate"
)

// Checks are every check type, for the API's enumeration.
var Checks = []string{PassFail, GradedCheck, Documentation, Classification, Information, Aggregate}

// Levels say whose obligation a rule is: the item's (its design, its
// documents), the item's in each of its markets, or the operator's (the
// organization's, read from its compliance profile) in each market.
const (
	ItemLevel     = "item"
	MarketLevel   = "market"
	OperatorLevel = "operator"
)

// Levels are every level, for the API's enumeration.
var Levels = []string{ItemLevel, MarketLevel, OperatorLevel}

// Rule is one obligation of the master table (ppwr-facts §1.1).
type Rule struct {
	Code    string
	Article string
	RuleSet string
	Check   string
	Level   string
	Start   Start
	// Reads names the registers, records and evidence codes the rule
	// reads.
	Reads []string
	eval  func(in *Input) Result
}

// ByCode is the catalogue's rule with the code.
func ByCode(code string) (Rule, bool) {
	i := slices.IndexFunc(All, func(r Rule) bool { return r.Code == code })
	if i < 0 {
		return Rule{}, false
	}
	return All[i], true
}

// ScopeKey is the i18n key of the rule's scope decision: which packaging
// or operators it binds, in words.
func (r Rule) ScopeKey() string { return "rules.scope." + r.Code }

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
	// Markets are the outcomes per market of a market or operator rule,
	// the overall outcome being the worst of them.
	Markets []MarketResult
}

// MarketResult is a market or operator rule's outcome in one market.
type MarketResult struct {
	Market  uuid.UUID // the item's market scenario
	Country string
	Outcome string
	Reason  string
	// ReasonArgs are the reason's arguments (the values it quotes).
	ReasonArgs []string
	Missing    []string
	Entries    []uuid.UUID
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

// Market is one of the item's active market scenarios in the
// assessment.
type Market struct {
	ID      uuid.UUID
	Country string
}

// Input is everything the rules read about one item on one date.
type Input struct {
	On      time.Time
	Item    Item
	Markets []Market
	Entries []Entry // newest first
	Facts   []Fact
	Acts    Acts
	// Profile is the organization's accepted compliance profile, one
	// entry per Member State.
	Profile []ProfileEntry

	// Design chapter: the verified Member State choices of Art. 9(2)
	// (KnownNationalChoices).
	NationalChoices []NationalChoice
	// Labelling (R25, R29, R31, R62): the organization's accepted
	// deposit-scheme records naming the item.
	DepositSchemes []DepositScheme
	// Supply chain (supply.go): how the item reaches the organization
	// (its catalogue sourcing and reuse types), the authority requests
	// naming it, its suppliers' answers and documents, its supply records
	// per day, and the organization's annual EPR reports.
	Sourcing          string
	ReuseType         string
	AuthorityRequests []AuthorityRequest // by due date
	SupplierAnswers   []SupplierAnswer
	SupplierDocuments []SupplierDocument
	SupplyDays        []SupplyDay
	EPRReports        []EPRReport // newest first
	// Reusable packaging and re-use targets (reuse.go,
	// reuse_targets.go): the organization's re-use systems that list the
	// item, and the re-use statistics of the year ReuseYear gives, per
	// Member State and Art. 29 format (loaded only when a rule reading
	// them applies on the date).
	ReuseSystems []ReuseSystem
	ReuseShares  []ReuseShare
}

// Evaluate runs each rule on the input: a rule not applicable yet on the
// date (or whose date waits for a pending act) is not evaluated, a rule
// skip names is listed as not assessed with the reason it gives, and an
// aggregate rule is evaluated over the results of the others, the rules
// not assessed included, so it never passes over rules left out.
func Evaluate(rules []Rule, in *Input, skip map[string]string) []Result {
	out := make([]Result, len(rules))
	var aggregates []int
	for i, r := range rules {
		from, pending := r.Start.From(in.Acts)
		res := Result{Outcome: NotYetApplicable}
		reason, skipped := skip[r.Code]
		switch {
		case skipped:
			res = Result{Outcome: NotAssessed, Reason: reason}
		case pending || in.On.Before(from):
		case r.Check == Aggregate:
			aggregates = append(aggregates, i)
		default:
			res = r.eval(in)
		}
		res.Rule, res.Article, res.Check, res.AppliesFrom, res.Pending = r.Code, r.Article, r.Check, from, pending
		out[i] = res
	}
	for _, i := range aggregates {
		res := aggregate(rules, out)
		res.Rule, res.Article, res.Check, res.AppliesFrom = out[i].Rule, out[i].Article, out[i].Check, out[i].AppliesFrom
		out[i] = res
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
