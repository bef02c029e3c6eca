package assessments

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/registers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
	"ppwr/internal/register"
	"ppwr/internal/rules"
	"ppwr/internal/work"
)

// PPWR assessments: which obligations of Regulation (EU) 2025/40 apply to
// an item on a date, and whether its register entries and evidence show
// them met. An assessment is a frozen snapshot; its status is never a
// certification (the spec's boundary 4).

// Overall statuses and review statuses of an assessment.
const (
	AssessmentPass       = "pass"
	AssessmentFail       = "fail"
	AssessmentIncomplete = "incomplete"

	AssessmentUnreviewed = "unreviewed"
	AssessmentPublished  = "published"
	AssessmentRejected   = "rejected"
)

// Vocabularies of assessments.
var (
	AssessmentStatuses       = []string{AssessmentPass, AssessmentFail, AssessmentIncomplete}
	AssessmentReviewStatuses = []string{AssessmentUnreviewed, AssessmentPublished, AssessmentRejected}
	AssessmentDecisions      = []string{AssessmentPublished, AssessmentRejected}
)

// Rules of assessments.
var (
	ErrAssessmentStale    = &domain.RuleError{Code: "assessment_stale", Key: "error.assessment_stale"}
	ErrAssessmentReviewed = &domain.RuleError{Code: "assessment_already_reviewed", Key: "error.assessment_already_reviewed"}
)

// Assessment is one evaluation of an item's rules.
type Assessment struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	CatalogItemID   uuid.UUID `gorm:"type:uuid"`
	CatalogRevision int
	DataVersionID   uuid.UUID                           `gorm:"type:uuid"`
	AssessedOn      time.Time                           `gorm:"type:date"`
	RuleSets        datatypes.JSONSlice[RuleSetVersion] `gorm:"type:jsonb"`
	Markets         datatypes.JSONSlice[uuid.UUID]      `gorm:"type:jsonb"`
	Status          string
	Results         datatypes.JSONSlice[RuleOutcome] `gorm:"type:jsonb"`
	Entries         datatypes.JSONSlice[uuid.UUID]   `gorm:"type:jsonb"`
	Evidence        datatypes.JSONSlice[uuid.UUID]   `gorm:"type:jsonb"`
	StaleSince      *time.Time
	RunID           *uuid.UUID `gorm:"type:uuid"`
	CreatedAt       time.Time
	registers.ReviewState
}

// RuleSetVersion names the version of a rule set an assessment used.
type RuleSetVersion struct {
	Code    string `json:"code"`
	Version string `json:"version"`
}

// RuleOutcome is one rule's frozen outcome.
type RuleOutcome struct {
	Rule        string      `json:"rule"`
	Article     string      `json:"article"`
	RuleSet     string      `json:"rule_set"`
	Check       string      `json:"check"`
	Outcome     string      `json:"outcome"`
	Grade       *string     `json:"grade"`
	AppliesFrom string      `json:"applies_from" schema:"date"`
	Pending     bool        `json:"applies_from_pending_act"`
	Reason      *string     `json:"reason"`
	ReasonArgs  []string    `json:"reason_args"`
	Missing     []string    `json:"missing"`
	Entries     []uuid.UUID `json:"entries"`
	Evidence    []uuid.UUID `json:"evidence"`
	// Level and Markets: a market or operator rule's outcome in each of
	// the assessment's markets.
	Level   string          `json:"level"`
	Markets []MarketOutcome `json:"markets"`
}

// MarketOutcome is a rule's frozen outcome in one market.
type MarketOutcome struct {
	Market     uuid.UUID   `json:"market"`
	Country    string      `json:"country"`
	Outcome    string      `json:"outcome"`
	Reason     *string     `json:"reason"`
	ReasonArgs []string    `json:"reason_args"`
	Missing    []string    `json:"missing"`
	Entries    []uuid.UUID `json:"entries"`
}

// AssessmentCreate is the body of a new assessment.
type AssessmentCreate struct {
	input.Errors
	Item     input.Opt[uuid.UUID]
	RuleSets input.Opt[[]string]
	Date     input.Opt[time.Time]
	Markets  input.Opt[[]string]
	// run is the bulk run the assessment belongs to, set by the run,
	// with the organization-wide statistics its batch shares.
	run        *uuid.UUID
	statistics *ReuseStatisticsCache
}

// Declare names the assessment's fields.
func (in *AssessmentCreate) Declare(f *input.Fields) {
	f.Ref("item", &in.Item, input.Ref{Required: true})
	f.List("rule_sets", &in.RuleSets, input.List{Known: registers.PublishedRuleSet, UnknownKey: "field.unknown_rule_set", Desc: "assessment.rule_sets"})
	f.Date("date", &in.Date, input.Date{Desc: "assessment.date"})
	f.List("markets", &in.Markets, input.List{Known: registers.IsUUID, UnknownKey: "field.uuid_in_list", Desc: "assessment.markets"})
}

// CreateAssessment evaluates the item's rules on the date and keeps the
// snapshot. Every rule that fails or cannot be shown met opens an issue on
// the item (one per rule); a rule that passes, grades or does not apply
// resolves it.
func CreateAssessment(w *work.Unit, in *AssessmentCreate) (*Assessment, error) {
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	item, err := catalog.LockItemShared(w, in.Item.Value)
	if err == domain.ErrNotFound {
		in.Fail("item", "field.not_found")
		return nil, in.Err()
	}
	if err != nil {
		return nil, err
	}
	input, err := assessmentInput(ctx, tx, org, item)
	if err != nil {
		return nil, err
	}
	markets, scenarios, err := in.markets(ctx, tx, org, item.ID)
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	input.On = domain.Today()
	if in.Date.Set() {
		input.On = in.Date.Value
	}
	input.Markets = marketsOf(scenarios, markets)
	if err := reuseInput(ctx, tx, org, item.ID, input, in.statistics); err != nil {
		return nil, err
	}
	results, sets := evaluate(in.RuleSets.Value, input)
	dataVersion, err := catalog.CurrentDataVersion(w, item)
	if err != nil {
		return nil, err
	}
	at := domain.Now()
	a := &Assessment{ID: domain.NewID(), OrganizationID: org, CatalogItemID: item.ID, CatalogRevision: item.Revision, DataVersionID: dataVersion,
		AssessedOn: input.On, RuleSets: sets, Markets: markets, RunID: in.run, CreatedAt: at,
		ReviewState: registers.NewReviewState(w, AssessmentUnreviewed, at),
		Entries:     datatypes.JSONSlice[uuid.UUID]{}, Evidence: datatypes.JSONSlice[uuid.UUID]{}}
	a.Results, a.Status = outcomes(results, a)
	if err := tx.Create(a).Error; err != nil {
		return nil, err
	}
	if err := findingIssues(w, a); err != nil {
		return nil, err
	}
	w.Touch("assessment", a.ID)
	return a, domain.Emit(w, AssessmentCreated{ID: a.ID})
}

// markets are the scenarios in scope: the listed ones, each an active
// scenario of the item, or all its active scenarios; with the item's
// active scenarios.
func (in *AssessmentCreate) markets(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (datatypes.JSONSlice[uuid.UUID], []catalog.MarketScenario, error) {
	var active []catalog.MarketScenario
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND active", itemID).Order("id").Find(&active).Error; err != nil {
		return nil, nil, err
	}
	out := datatypes.JSONSlice[uuid.UUID]{}
	if !in.Markets.Set() {
		for _, m := range active {
			out = append(out, m.ID)
		}
		return out, active, nil
	}
	for i, s := range in.Markets.Value {
		id := uuid.MustParse(s)
		if !slices.ContainsFunc(active, func(m catalog.MarketScenario) bool { return m.ID == id }) {
			in.Fail("markets."+strconv.Itoa(i), "field.not_scenario_of_item")
		}
		out = append(out, id)
	}
	return out, active, nil
}

// marketsOf are the rules' markets: the scenarios in scope, with their
// countries.
func marketsOf(scenarios []catalog.MarketScenario, inScope []uuid.UUID) []rules.Market {
	var out []rules.Market
	for _, s := range scenarios {
		if slices.Contains(inScope, s.ID) {
			out = append(out, rules.Market{ID: s.ID, Country: s.CountryCode})
		}
	}
	return out
}

// evaluate runs every rule of the catalogue on the input: those of the
// listed rule sets (all published ones when none is listed), each other
// rule being listed as not assessed, so no rule is ever silently absent.
// It answers the rule-set versions evaluated.
func evaluate(codes []string, in *rules.Input) ([]rules.Result, datatypes.JSONSlice[RuleSetVersion]) {
	skipped := map[string]string{}
	sets := datatypes.JSONSlice[RuleSetVersion]{}
	for _, r := range rules.All {
		set, ok := dictionaries.Default().RuleSet(r.RuleSet)
		switch {
		case !ok:
			skipped[r.Code] = "rules.rule_set_unpublished"
		case len(codes) > 0 && !slices.Contains(codes, r.RuleSet):
			skipped[r.Code] = "rules.rule_set_not_selected"
		case !slices.ContainsFunc(sets, func(s RuleSetVersion) bool { return s.Code == set.Code }):
			sets = append(sets, RuleSetVersion{Code: set.Code, Version: set.Version})
		}
	}
	return rules.Evaluate(rules.All, in, skipped), sets
}

// outcomes freezes the results (in the catalogue's order) and fills the
// assessment's list of entries and evidence read; the overall status is
// fail if any rule fails, incomplete if any cannot be shown met, else
// pass. Only rules that can fail count: not information, not an unknown
// national choice, not a rule not assessed, not the aggregate R01.
func outcomes(results []rules.Result, a *Assessment) (datatypes.JSONSlice[RuleOutcome], string) {
	out := datatypes.JSONSlice[RuleOutcome]{}
	status := AssessmentPass
	for i, r := range results {
		rule := rules.All[i]
		o := RuleOutcome{Rule: r.Rule, Article: r.Article, RuleSet: rule.RuleSet, Check: r.Check, Level: rule.Level, Outcome: r.Outcome,
			AppliesFrom: r.AppliesFrom.Format(time.DateOnly), Pending: r.Pending, ReasonArgs: nonNilStrings(r.ReasonArgs), Missing: nonNilStrings(r.Missing),
			Entries: domain.NonNilIDs(r.Entries), Evidence: domain.NonNilIDs(r.Evidence)}
		if r.Grade != "" {
			o.Grade = &r.Grade
		}
		if r.Reason != "" {
			o.Reason = &r.Reason
		}
		o.Markets = marketOutcomes(r.Markets)
		out = append(out, o)
		for _, id := range r.Entries {
			if !slices.Contains(a.Entries, id) {
				a.Entries = append(a.Entries, id)
			}
		}
		for _, id := range r.Evidence {
			if !slices.Contains(a.Evidence, id) {
				a.Evidence = append(a.Evidence, id)
			}
		}
		switch {
		case rule.Check == rules.Aggregate:
		case r.Outcome == rules.Fail:
			status = AssessmentFail
		case rules.CanFail(r.Outcome) && status == AssessmentPass:
			status = AssessmentIncomplete
		}
	}
	return out, status
}

func marketOutcomes(results []rules.MarketResult) []MarketOutcome {
	out := make([]MarketOutcome, len(results))
	for i, m := range results {
		out[i] = MarketOutcome{Market: m.Market, Country: m.Country, Outcome: m.Outcome, ReasonArgs: nonNilStrings(m.ReasonArgs),
			Missing: nonNilStrings(m.Missing), Entries: domain.NonNilIDs(m.Entries)}
		if m.Reason != "" {
			out[i].Reason = &m.Reason
		}
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ruleSubject is the subject of an item's issue about a rule: one id per
// item and rule, so the issue is opened once and resolved by the rule.
func ruleSubject(itemID uuid.UUID, rule string) uuid.UUID {
	return uuid.NewSHA1(itemID, []byte("ppwr-rule/"+rule))
}

// findingIssues opens, or restates, one issue per rule that fails or
// cannot be shown met, saying what to record to close it, and resolves
// those of rules that pass, grade or do not apply. R01 opens none: its
// rules each have their own.
func findingIssues(w *work.Unit, a *Assessment) error {
	var met []uuid.UUID
	var found []domain.ComplianceIssue
	for _, r := range a.Results {
		subject := ruleSubject(a.CatalogItemID, r.Rule)
		switch {
		case r.Check == rules.Aggregate:
		case rules.CanFail(r.Outcome):
			key, args := findingMessage(r)
			found = append(found, domain.ComplianceIssue{Kind: domain.IssueRuleFinding, Severity: findingSeverity(r.Outcome), SubjectType: "ppwr_rule",
				SubjectID: subject, CatalogItemID: &a.CatalogItemID, MessageKey: key, MessageArgs: args})
		case r.Outcome == rules.Pass || r.Outcome == rules.Graded || r.Outcome == rules.NotApplicable:
			met = append(met, subject)
		}
	}
	if err := domain.RestateIssues(w, found); err != nil {
		return err
	}
	return domain.ResolveIssuesOf(w, domain.IssueRuleFinding, met, "issue.resolved_by_assessment")
}

// findingMessage says what closes a finding: the values to record, each
// named register.field (or the register alone) and, for a component,
// @component; for a failure, the reason to correct.
func findingMessage(r RuleOutcome) (key string, args []any) {
	args = []any{r.Rule, r.Article, r.Outcome}
	missing := slices.Clone(r.Missing)
	for _, m := range r.Markets {
		for _, what := range m.Missing {
			if !slices.Contains(missing, what) {
				missing = append(missing, what)
			}
		}
	}
	switch {
	case r.Outcome == rules.Fail && r.Reason != nil:
		return "issue.ppwr_rule_failed", append(args, i18n.Message{Key: *r.Reason})
	case len(missing) > 0:
		return "issue.ppwr_rule_record", append(args, strings.Join(missing, ", "))
	}
	return "issue.ppwr_rule_finding", args
}

func findingSeverity(outcome string) string {
	if outcome == rules.Fail {
		return domain.SeverityHigh
	}
	return domain.SeverityMedium
}

// assessmentInput loads what the rules read about the item: its
// components, its active register entries (decoded by their
// declarations) and its accepted evidence. An entry whose stored values
// do not decode fails the assessment: rules reading them as absent would
// answer wrongly.
func assessmentInput(ctx context.Context, db *gorm.DB, org uuid.UUID, item *catalog.CatalogItem) (*rules.Input, error) {
	in := &rules.Input{Acts: rules.KnownActs(), Item: rules.Item{FoodContact: item.FoodContactStatus == "food_contact", MassG: item.MassG}}
	designInput(in)
	var comps []catalog.Component
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ?", item.ID).Order("id").Find(&comps).Error; err != nil {
		return nil, err
	}
	for _, c := range comps {
		in.Item.Components = append(in.Item.Components, rules.Component{ID: c.ID, Material: c.MaterialCode, MassG: c.MassG})
	}
	var entries []registers.RegisterEntry
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND status = ?", item.ID, registers.EntryActive).Order("id DESC").
		Find(&entries).Error; err != nil {
		return nil, err
	}
	for _, e := range entries {
		reg, ok := register.ByName(e.Register)
		if !ok {
			continue
		}
		values, err := reg.Decode(e.Values)
		if err != nil {
			return nil, fmt.Errorf("register entry %s: %w", e.ID, err)
		}
		in.Entries = append(in.Entries, rules.Entry{ID: e.ID, Register: e.Register, Values: values,
			Accepted: e.ReviewStatus == registers.EntryAccepted, Current: e.CatalogRevision == item.Revision})
	}
	facts, err := documents.EvidencedFacts(ctx, db, org, item.ID)
	if err != nil {
		return nil, err
	}
	for _, f := range facts {
		in.Facts = append(in.Facts, rules.Fact{Code: f.Code, Component: f.ComponentID, Value: f.Value, Proposal: f.ProposalID})
	}
	if err := supplyInput(ctx, db, org, item, in); err != nil {
		return nil, err
	}
	if err := labellingInput(ctx, db, org, item.ID, in); err != nil {
		return nil, err
	}
	return in, profileInput(ctx, db, org, in)
}

// NewAssessmentReview is the body of a decision on an assessment:
// publishing it or rejecting it, with a reason. It is not a certification.
func NewAssessmentReview() *registers.ReviewBody {
	return &registers.ReviewBody{Decisions: AssessmentDecisions, Desc: "assessment.decision"}
}

// ReviewAssessment records the one decision on an assessment. Whoever ran
// it cannot decide on it, and a stale assessment cannot be published.
func ReviewAssessment(w *work.Unit, id uuid.UUID, in *registers.ReviewBody) (*Assessment, error) {
	q := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("id = ?", id)
	a, err := registers.ReviewOnce(w, q, in, func(a *Assessment) error {
		if a.ReviewStatus != AssessmentUnreviewed {
			return ErrAssessmentReviewed.On("decision", "field.entry_decided", a.ReviewStatus)
		}
		if in.Decision.Value != AssessmentPublished {
			return nil
		}
		stale, err := AssessmentStale(w.Context(), w.Tx(), w.Organization(), []uuid.UUID{a.ID})
		if err == nil && stale[a.ID] {
			return ErrAssessmentStale.On("decision", "field.assessment_stale")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	w.Touch("assessment", a.ID)
	return a, domain.Emit(w, AssessmentReviewed{ID: a.ID, Status: a.ReviewStatus})
}

// LatestPublishedAssessment is the item's newest published assessment,
// nil without one, and whether what it read has changed since.
func LatestPublishedAssessment(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (*Assessment, bool, error) {
	var found []Assessment
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND review_status = ?", itemID, AssessmentPublished).
		Order("id DESC").Limit(1).Find(&found).Error; err != nil || len(found) == 0 {
		return nil, false, err
	}
	stale, err := AssessmentStale(ctx, db, org, []uuid.UUID{found[0].ID})
	return &found[0], stale[found[0].ID], err
}
