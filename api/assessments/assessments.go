// Package assessments is the spec's PPWR assessments: running the rules of
// internal/rules for an item on a date, reading the frozen results, and
// the internal review that publishes them, and the item's PPWR summary on
// a date.
package assessments

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/registers"
	a "ppwr/internal/access"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
	"ppwr/internal/rules"
)

const tag = "assessments"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	assessment := kit.Ref("Assessment")
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listAssessments", kit.Org+"/assessments", tag, a.AssessmentsRead, a.AssessmentsView).
				Handle(kit.Query(h.list), kit.ListOK("Assessment")),
			kit.Post("createAssessment", kit.Org+"/assessments", tag, a.AssessmentsRun, a.AssessmentsRunPerm).
				Handle(kit.JSON(h.create), kit.CreatedResponse(assessment, "getAssessment")),
			kit.Get("getAssessment", kit.Org+"/assessments/{recordId}", tag, a.AssessmentsRead, a.AssessmentsView).
				Handle(kit.Do(h.get), kit.OK(assessment)),
			kit.Post("reviewAssessment", kit.Org+"/assessments/{recordId}/review", tag, a.AssessmentsReview, a.AssessmentsPublish).
				Answers(registers.ErrSelfReview, assessments.ErrAssessmentStale, assessments.ErrAssessmentReviewed, domain.ErrRevisionConflict).
				Handle(kit.JSONBody("AssessmentReview", assessments.NewAssessmentReview, h.review), kit.OK(assessment)),
			kit.Get("getPPWRRuleCatalogue", kit.Org+"/ppwr/rules", tag, a.PPWRRead, a.CatalogView).Extension().
				Handle(kit.Do(h.catalogue), kit.OK(kit.Ref("PPWRRuleCatalogue"))),
			kit.Get("getPPWRSummary", kit.Org+"/catalog-items/{catalogItemId}/ppwr-summary", tag, a.PPWRRead, a.CatalogView).
				Handle(kit.Query(h.summary), kit.OK(kit.Ref("PPWRSummary"))),
		},
		Models: []kit.Model{kit.ModelOf[assessmentJSON]("Assessment").Described("schema.assessment"), kit.ModelOf[outcomeJSON]("RuleOutcome"),
			kit.ModelOf[summaryJSON]("PPWRSummary").Described("schema.ppwr_summary"),
			kit.ModelOf[catalogueJSON]("PPWRRuleCatalogue").Described("schema.rule_catalogue"), kit.ModelOf[catalogueRuleJSON]("PPWRRule")},
	}
}

type outcomeJSON struct {
	assessments.RuleOutcome
	Reason     *string             `json:"reason"`
	ReasonText *string             `json:"reason_text"`
	Markets    []marketOutcomeJSON `json:"markets"`
}

// marketOutcomeJSON is a market or operator rule's outcome in one market.
type marketOutcomeJSON struct {
	assessments.MarketOutcome
	Reason     *string `json:"reason"`
	ReasonText *string `json:"reason_text"`
}

func (marketOutcomeJSON) Declare(s *kit.Shape) { s.Enum("outcome", rules.Outcomes...) }

// reason renders a stored reason key and its arguments: the stable code
// and its text in the locale.
func reason(locale i18n.Locale, key *string, args []string) (code, text *string) {
	if key == nil {
		return nil, nil
	}
	anyArgs := make([]any, len(args))
	for i, a := range args {
		anyArgs[i] = a
	}
	c, t := strings.TrimPrefix(*key, "rules."), i18n.T(locale, *key, anyArgs...)
	return &c, &t
}

func (outcomeJSON) Declare(s *kit.Shape) {
	s.Enum("check", rules.Checks...)
	s.Enum("level", rules.Levels...)
	s.Enum("outcome", rules.Outcomes...)
	s.DescribeField("level", "assessment.level")
	s.Enum("grade", "A", "B", "C", "non_recyclable")
	s.DescribeField("applies_from_pending_act", "assessment.pending_act")
}

type assessmentJSON struct {
	ID              uuid.UUID                    `json:"id"`
	Item            uuid.UUID                    `json:"item"`
	CatalogRevision int                          `json:"catalog_revision"`
	DataVersion     uuid.UUID                    `json:"data_version"`
	Date            string                       `json:"date" schema:"date"`
	RuleSets        []assessments.RuleSetVersion `json:"rule_sets"`
	Markets         []uuid.UUID                  `json:"markets"`
	Status          string                       `json:"status" schema:"desc=assessment.status"`
	Stale           bool                         `json:"stale" schema:"desc=assessment.stale"`
	Counts          map[string]int               `json:"counts"`
	Results         []outcomeJSON                `json:"results"`
	Entries         []uuid.UUID                  `json:"entries"`
	Evidence        []uuid.UUID                  `json:"evidence"`
	CreatedAt       time.Time                    `json:"created_at"`
	kit.ReviewJSON
}

func (assessmentJSON) Declare(s *kit.Shape) {
	s.Enum("status", assessments.AssessmentStatuses...)
	s.Keys("counts", rules.Outcomes...)
	s.Enum("review_status", assessments.AssessmentReviewStatuses...)
	s.DescribeField("review_status", "assessment.review_status")
}

// render answers an assessment in the request's language.
func render(locale i18n.Locale, x *assessments.Assessment, stale bool) assessmentJSON {
	out := assessmentJSON{ID: x.ID, Item: x.CatalogItemID, CatalogRevision: x.CatalogRevision, DataVersion: x.DataVersionID,
		Date: *kit.Day(&x.AssessedOn), RuleSets: x.RuleSets, Markets: x.Markets, Status: x.Status, Stale: stale,
		Counts: map[string]int{}, Results: make([]outcomeJSON, len(x.Results)), Entries: x.Entries, Evidence: x.Evidence,
		CreatedAt: x.CreatedAt.UTC(), ReviewJSON: kit.Review(&x.ReviewState)}
	for _, o := range rules.Outcomes {
		out.Counts[o] = 0
	}
	for i, r := range x.Results {
		out.Counts[r.Outcome]++
		o := outcomeJSON{RuleOutcome: r, Markets: make([]marketOutcomeJSON, len(r.Markets))}
		if rule, ok := rules.ByCode(r.Rule); ok && o.Level == "" {
			o.Level = rule.Level // kept before rules had levels
		}
		o.Reason, o.ReasonText = reason(locale, r.Reason, r.ReasonArgs)
		for j, m := range r.Markets {
			o.Markets[j] = marketOutcomeJSON{MarketOutcome: m}
			o.Markets[j].Reason, o.Markets[j].ReasonText = reason(locale, m.Reason, m.ReasonArgs)
		}
		out.Results[i] = o
	}
	return out
}

// assessmentQuery filters assessments.
type assessmentQuery struct {
	input.Errors
	Item input.Opt[uuid.UUID]
}

func (q *assessmentQuery) Declare(f *input.Fields) { f.Ref("item", &q.Item, input.Ref{}) }

func (h *handlers) list(c *gin.Context, q *assessmentQuery) error {
	ctx, org := c.Request.Context(), kit.OrgID(c)
	db := kit.Filter(domain.Tenant(ctx, h.DB, org).Model(&assessments.Assessment{}), "catalog_item_id", q.Item)
	return kit.PaginatePage(c, db, kit.NewestFirst, func(page []assessments.Assessment) ([]assessmentJSON, error) {
		ids := make([]uuid.UUID, len(page))
		for i := range page {
			ids[i] = page[i].ID
		}
		stale, err := assessments.AssessmentStale(ctx, h.DB, org, ids)
		out := make([]assessmentJSON, len(page))
		for i := range page {
			out[i] = render(kit.State(c).Locale, &page[i], stale[page[i].ID])
		}
		return out, err
	})
}

// answer renders x with its freshness read from db.
func answer(c *gin.Context, db *gorm.DB, status int, x *assessments.Assessment) error {
	stale, err := assessments.AssessmentStale(c.Request.Context(), db, kit.OrgID(c), []uuid.UUID{x.ID})
	if err != nil {
		return err
	}
	out := render(kit.State(c).Locale, x, stale[x.ID])
	if status == http.StatusCreated {
		return kit.Created(c, x.ID, out)
	}
	c.JSON(status, out)
	return nil
}

func (h *handlers) get(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	x, err := domain.Find[assessments.Assessment](c.Request.Context(), h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	return answer(c, h.DB, http.StatusOK, x)
}

func (h *handlers) create(c *gin.Context, in *assessments.AssessmentCreate) error {
	w := kit.Work(c)
	x, err := assessments.CreateAssessment(w, in)
	if err != nil {
		return err
	}
	return answer(c, w.Tx(), http.StatusCreated, x)
}

func (h *handlers) review(c *gin.Context, in *registers.ReviewBody) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	x, err := assessments.ReviewAssessment(w, id, in)
	if err != nil {
		return err
	}
	return answer(c, w.Tx(), http.StatusOK, x)
}

// summaryQuery is the date of a summary.
type summaryQuery struct {
	input.Errors
	Date input.Opt[time.Time]
}

func (q *summaryQuery) Declare(f *input.Fields) { f.Date("date", &q.Date, input.Date{}) }

type ruleDateJSON struct {
	Rule        string `json:"rule"`
	Article     string `json:"article"`
	AppliesFrom string `json:"applies_from" schema:"date"`
	Pending     bool   `json:"applies_from_pending_act"`
}

// summaryRuleJSON is one rule of the catalogue on the summary's date,
// with its outcome in the summary's assessment.
type summaryRuleJSON struct {
	ruleDateJSON
	Check   string  `json:"check"`
	Level   string  `json:"level"`
	State   string  `json:"state" schema:"desc=summary.rule_state"`
	Outcome *string `json:"outcome" schema:"desc=summary.rule_outcome"`
}

func (summaryRuleJSON) Declare(s *kit.Shape) {
	s.Enum("check", rules.Checks...)
	s.Enum("level", rules.Levels...)
	s.Enum("state", assessments.RuleStates...)
	s.Enum("outcome", rules.Outcomes...)
}

type summaryJSON struct {
	Item            uuid.UUID              `json:"item"`
	Date            string                 `json:"date" schema:"date"`
	CatalogRevision int                    `json:"catalog_revision"`
	Notice          string                 `json:"notice"`
	Markets         []summaryMarketJSON    `json:"markets"`
	Rules           []summaryRuleJSON      `json:"rules"`
	Applicable      []ruleDateJSON         `json:"applicable"`
	Upcoming        []ruleDateJSON         `json:"upcoming"`
	NextDeadline    *ruleDateJSON          `json:"next_deadline"`
	Assessment      *summaryAssessmentJSON `json:"assessment"`
	Registers       []coverageJSON         `json:"registers"`
	OpenIssues      []summaryIssueJSON     `json:"open_issues"`
}

type summaryMarketJSON struct {
	Scenario     uuid.UUID `json:"scenario"`
	Country      string    `json:"country"`
	EconomicRole *string   `json:"economic_role"`
}

type summaryAssessmentJSON struct {
	ID           uuid.UUID         `json:"id"`
	Date         string            `json:"date" schema:"date"`
	Status       string            `json:"status"`
	ReviewStatus string            `json:"review_status"`
	Outcomes     map[string]string `json:"outcomes"`
}

func (summaryAssessmentJSON) Declare(s *kit.Shape) {
	s.Enum("status", assessments.AssessmentStatuses...)
	s.Enum("review_status", assessments.AssessmentReviewStatuses...)
	s.Enum("outcomes", rules.Outcomes...)
}

type coverageJSON struct {
	Register     string     `json:"register"`
	Covered      bool       `json:"covered"`
	Entry        *uuid.UUID `json:"entry"`
	ReviewStatus *string    `json:"review_status"`
}

type summaryIssueJSON struct {
	ID       uuid.UUID `json:"id"`
	Kind     string    `json:"kind"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	OpenedAt time.Time `json:"opened_at"`
}

func ruleDate(r assessments.RuleDate) ruleDateJSON {
	return ruleDateJSON{Rule: r.Rule, Article: r.Article, AppliesFrom: r.From.Format(time.DateOnly), Pending: r.Pending}
}

// summary answers the item's PPWR position on a date (default today).
func (h *handlers) summary(c *gin.Context, q *summaryQuery) error {
	itemID, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	on := time.Now().UTC().Truncate(24 * time.Hour)
	if q.Date.Set() {
		on = q.Date.Value
	}
	s, err := assessments.SummarizeItem(c.Request.Context(), h.DB, kit.OrgID(c), itemID, on)
	if err != nil {
		return err
	}
	locale := kit.State(c).Locale
	out := summaryJSON{Item: s.Item.ID, Date: on.Format(time.DateOnly), CatalogRevision: s.Item.Revision,
		Notice: i18n.T(locale, "summary.notice"), Markets: []summaryMarketJSON{}, Applicable: []ruleDateJSON{},
		Upcoming: []ruleDateJSON{}, Registers: []coverageJSON{}, OpenIssues: []summaryIssueJSON{}, Rules: []summaryRuleJSON{}}
	for _, m := range s.Markets {
		out.Markets = append(out.Markets, summaryMarketJSON{Scenario: m.ID, Country: m.CountryCode, EconomicRole: m.EconomicRole})
	}
	for _, r := range s.Applicable {
		out.Applicable = append(out.Applicable, ruleDate(r))
	}
	for _, r := range s.Upcoming {
		out.Upcoming = append(out.Upcoming, ruleDate(r))
		if next := ruleDate(r); out.NextDeadline == nil || next.AppliesFrom < out.NextDeadline.AppliesFrom {
			out.NextDeadline = &next
		}
	}
	if a := s.Assessment; a != nil {
		sa := &summaryAssessmentJSON{ID: a.ID, Date: *kit.Day(&a.AssessedOn), Status: a.Status, ReviewStatus: a.ReviewStatus, Outcomes: map[string]string{}}
		for _, r := range a.Results {
			sa.Outcomes[r.Rule] = r.Outcome
		}
		out.Assessment = sa
	}
	for _, r := range s.Rules {
		rule := summaryRuleJSON{ruleDateJSON: ruleDate(r), Check: r.Check, Level: r.Level, State: r.State}
		if out.Assessment != nil {
			if o, ok := out.Assessment.Outcomes[r.Rule]; ok {
				rule.Outcome = &o
			}
		}
		out.Rules = append(out.Rules, rule)
	}
	for _, r := range s.Registers {
		cov := coverageJSON{Register: r.Register, Covered: r.Covered}
		if r.Entry != nil {
			cov.Entry, cov.ReviewStatus = &r.Entry.ID, &r.Entry.ReviewStatus
		}
		out.Registers = append(out.Registers, cov)
	}
	for _, i := range s.Issues {
		out.OpenIssues = append(out.OpenIssues, summaryIssueJSON{ID: i.ID, Kind: i.Kind, Severity: i.Severity,
			Message: i18n.T(locale, i.MessageKey, i.MessageArgs...), OpenedAt: i.OpenedAt.UTC()})
	}
	c.JSON(http.StatusOK, out)
	return nil
}
