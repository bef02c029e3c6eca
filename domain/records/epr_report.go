package records

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/domain/movements"
	"ppwr/domain/registers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/rules"
	"ppwr/internal/work"
)

// Annual EPR reports: what a producer made available in one Member State
// in a period, by weight per Annex II packaging category (PPWR Art.
// 44(7)), in the simplified form below 10 tonnes (Art. 44(8), Annex IX
// Part B point 2). The lines are a snapshot of the period's flows into that
// market, taken when the report is created, grouped by the category of the
// item's accepted packaging classification and the item's main material;
// lines added by hand need a reason. An internal review approves the
// report; nothing is filed into a national register (the spec's
// boundary 3).

// Forms, line sources and review states of a report.
const (
	EPRSimplified = rules.EPRSimplified
	EPRFull       = rules.EPRFull

	EPRFromFlows = "flows"
	EPRManual    = "manual"

	EPRUnreviewed = "unreviewed"
	EPRApproved   = rules.EPRApproved
	EPRRejected   = "rejected"
)

// Vocabularies of EPR reports.
var (
	EPRForms          = []string{EPRSimplified, EPRFull}
	EPRSources        = []string{EPRFromFlows, EPRManual}
	EPRReviewStatuses = []string{EPRUnreviewed, EPRApproved, EPRRejected}
	EPRDecisions      = []string{EPRApproved, EPRRejected}
	// EPRWarnings are what a report shows its reviewer.
	EPRWarnings = []string{WarningNoCategory}
)

// EPRSimplifiedBelowT is the threshold of Art. 44(8) in tonnes, which
// rule R59 checks the reports' form against.
const EPRSimplifiedBelowT = rules.EPRSimplifiedBelowT

// EPRFormBasis is the rule of the form, recorded on every report.
const EPRFormBasis = "PPWR Art. 44(8), Annex IX Part B point 2: simplified when the exact total is below 10 tonnes, full at 10 tonnes or more"

// EPRRounding is how the masses are shown, recorded on every report.
const EPRRounding = "grams summed exactly; kg = g ÷ 1,000 rounded half away from zero to 3 decimals; " +
	"t = g ÷ 1,000,000 rounded half away from zero to 6 decimals; the form is decided on the exact grams"

// Decimals of the masses shown in kg and in tonnes (Mg).
const (
	eprKgDecimals = 3
	eprTDecimals  = bdo.BDOMgDecimals
)

// WarningNoCategory: flows of items whose accepted packaging
// classification names no Annex II category.
const WarningNoCategory = "flows_without_category"

// eprSampleFlows bounds the keys a line lists.
const eprSampleFlows = 20

// EPRReasonMax bounds a manual line's reason.
const EPRReasonMax = 2000

// EPRYears are the years a report may cover.
var EPRYears = input.Int{Required: true, Min: 2024, Max: 2100, Desc: "epr.year"}

// EPRReport is one report.
type EPRReport struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Country        string
	Year           int
	PeriodFrom     time.Time                   `gorm:"type:date"`
	PeriodTo       time.Time                   `gorm:"type:date"`
	FlowKinds      datatypes.JSONSlice[string] `gorm:"type:jsonb"`
	Form           string
	TotalG         decimal.Decimal `gorm:"type:numeric"`
	FlowCount      int
	LineCount      int
	Warnings       datatypes.JSONSlice[EPRWarning] `gorm:"type:jsonb"`
	CreatedAt      time.Time
	registers.ReviewState
}

// EPRReportLine is one line of a report.
type EPRReportLine struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	ReportID       uuid.UUID `gorm:"type:uuid"`
	Source         string
	Category       *int
	MaterialCode   *string
	MassG          decimal.Decimal `gorm:"type:numeric"`
	FlowCount      int
	FlowSample     datatypes.JSONSlice[string] `gorm:"type:jsonb"`
	Reason         *string
	CreatedBy      *uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
}

// GramsToKg is grams in kg as a report shows them.
func GramsToKg(g decimal.Decimal) decimal.Decimal { return g.Shift(-3).Round(eprKgDecimals) }

// GramsToT is grams in tonnes as a report shows them.
func GramsToT(g decimal.Decimal) decimal.Decimal { return bdo.GramsToMg(g).Round(eprTDecimals) }

// EPRWarning says what the reviewer should look at, how many flows it
// concerns, and the keys of some of them.
type EPRWarning struct {
	Code  string   `json:"code"`
	Count int      `json:"count"`
	Flows []string `json:"flows"`
}

// eprWarnings are derived from the flow lines: the flows whose category
// is not known.
func eprWarnings(lines []EPRReportLine) []EPRWarning {
	out := []EPRWarning{}
	for _, l := range lines {
		if l.Source != EPRFromFlows || l.Category != nil {
			continue
		}
		if len(out) == 0 {
			out = append(out, EPRWarning{Code: WarningNoCategory, Flows: []string{}})
		}
		out[0].Count += l.FlowCount
		out[0].Flows = append(out[0].Flows, l.FlowSample...)
	}
	if len(out) > 0 && len(out[0].Flows) > eprSampleFlows {
		out[0].Flows = out[0].Flows[:eprSampleFlows]
	}
	return out
}

// EPRReportCreate is the body of a report.
type EPRReportCreate struct {
	input.Errors
	Country    input.Opt[string]
	Year       input.Opt[int]
	PeriodFrom input.Opt[time.Time]
	PeriodTo   input.Opt[time.Time]
	FlowKinds  input.Opt[[]string]
}

// Declare names the report's fields: a Member State, a year not in the
// future and, optionally, a part of that year and the kinds of flow.
func (in *EPRReportCreate) Declare(f *input.Fields) {
	dict := dictionaries.Default()
	f.Code("country", &in.Country, input.Code{Required: true, Known: dict.HasCountry, Desc: "epr.country"})
	f.Int("year", &in.Year, EPRYears)
	f.Date("period_from", &in.PeriodFrom, input.Date{Desc: "epr.period_from"})
	f.Date("period_to", &in.PeriodTo, input.Date{Desc: "epr.period_to"})
	f.List("flow_kinds", &in.FlowKinds, input.List{Values: movements.FlowKinds, MinItems: 1, Desc: "epr.flow_kinds"})
	if !f.Binding() {
		return
	}
	if in.Country.Set() && !dict.IsMemberState(in.Country.Value) {
		f.Fail("country", "field.not_eu_member_state")
	}
	if in.Year.Set() && in.Year.Value > domain.Today().Year() {
		f.Fail("year", "field.future_year")
	}
	if !in.Year.Set() {
		return
	}
	for name, d := range map[string]input.Opt[time.Time]{"period_from": in.PeriodFrom, "period_to": in.PeriodTo} {
		if d.Set() && d.Value.Year() != in.Year.Value {
			f.Fail(name, "field.outside_year", in.Year.Value)
		}
	}
	if in.PeriodFrom.Set() && in.PeriodTo.Set() && in.PeriodTo.Value.Before(in.PeriodFrom.Value) {
		f.Fail("period_to", "field.before_period_from")
	}
}

// eprFlowLines are the sums of a period's flows into a market per Annex II
// category and material, with the count and the first keys of each.
var eprFlowLines = `
WITH src AS (
	SELECT CAST(` + bdo.AcceptedClassification("annex_ii_category", "f.catalog_item_id") + ` AS integer) AS category,
		i.main_material_code AS material_code, f.id, f.event_on, f.mass_g
	FROM flows f JOIN catalog_items i ON i.id = f.catalog_item_id
	WHERE f.organization_id = @org AND f.country = @country AND f.event_on >= @from AND f.event_on < @to
		AND f.kind IN @kinds
), ranked AS (
	SELECT src.*, row_number() OVER (PARTITION BY category, material_code ORDER BY event_on, id) AS n FROM src
)
SELECT category, material_code, sum(mass_g) AS mass_g, count(*) AS flow_count,
	CAST(jsonb_agg('flow:' || id ORDER BY n) FILTER (WHERE n <= @sample) AS text) AS flow_sample
FROM ranked GROUP BY 1, 2 ORDER BY 1 NULLS LAST, 2`

// CreateEPRReport takes the snapshot of the period's flows into the
// market (by default the calendar year, both kinds of flow) as the
// report's lines, and decides its form from their total. It returns the
// report and its lines.
func CreateEPRReport(w *work.Unit, in *EPRReportCreate) (*EPRReport, []EPRReportLine, error) {
	if in.Failed() {
		return nil, nil, in.Err()
	}
	at := domain.Now()
	r := &EPRReport{ID: domain.NewID(), OrganizationID: w.Organization(), Country: in.Country.Value, Year: in.Year.Value,
		PeriodFrom: time.Date(in.Year.Value, 1, 1, 0, 0, 0, 0, time.UTC), PeriodTo: time.Date(in.Year.Value, 12, 31, 0, 0, 0, 0, time.UTC),
		FlowKinds: movements.FlowKinds, TotalG: decimal.Zero, CreatedAt: at, ReviewState: registers.NewReviewState(w, EPRUnreviewed, at)}
	if in.PeriodFrom.Set() {
		r.PeriodFrom = in.PeriodFrom.Value
	}
	if in.PeriodTo.Set() {
		r.PeriodTo = in.PeriodTo.Value
	}
	if in.FlowKinds.Set() {
		r.FlowKinds = in.FlowKinds.Value
	}
	args := bdo.PeriodArgs(w.Organization(), r.PeriodFrom, r.PeriodTo)
	args["country"], args["kinds"], args["sample"] = r.Country, []string(r.FlowKinds), eprSampleFlows
	var sums []struct {
		Category     *int
		MaterialCode string
		MassG        decimal.Decimal
		FlowCount    int
		FlowSample   string
	}
	if err := w.Tx().Raw(eprFlowLines, args).Scan(&sums).Error; err != nil {
		return nil, nil, err
	}
	lines := make([]EPRReportLine, len(sums))
	for i, s := range sums {
		var sample []string
		if err := json.Unmarshal([]byte(s.FlowSample), &sample); err != nil {
			return nil, nil, err
		}
		lines[i] = EPRReportLine{ID: domain.NewID(), OrganizationID: r.OrganizationID, ReportID: r.ID, Source: EPRFromFlows,
			Category: s.Category, MaterialCode: &sums[i].MaterialCode, MassG: s.MassG, FlowCount: s.FlowCount,
			FlowSample: sample, CreatedBy: r.CreatedBy, CreatedAt: at}
		r.TotalG = r.TotalG.Add(s.MassG)
		r.FlowCount += s.FlowCount
	}
	r.Form, r.LineCount, r.Warnings = rules.EPRForm(r.TotalG), len(lines), eprWarnings(lines)
	if err := w.Tx().Create(r).Error; err != nil {
		return nil, nil, domain.FromDatabase(err)
	}
	if len(lines) > 0 {
		if err := w.Tx().Create(&lines).Error; err != nil {
			return nil, nil, err
		}
	}
	w.Touch("epr_report", r.ID)
	return r, lines, domain.Emit(w, EPRReportCreated{ID: r.ID, Country: r.Country, Year: r.Year, Form: r.Form})
}

// EPRLineCreate is the body of a line added by hand: its category, its
// mass, why it is added, and the report's revision.
type EPRLineCreate struct {
	input.Errors
	Category input.Opt[int]
	Material input.Opt[string]
	MassG    input.Opt[decimal.Decimal]
	Reason   input.Opt[string]
	Revision input.Opt[int]
}

// Declare names the line's fields.
func (in *EPRLineCreate) Declare(f *input.Fields) {
	f.Int("category", &in.Category, input.Int{Required: true, Min: 1, Max: 22, Desc: "epr.category"})
	f.Code("material", &in.Material, input.Code{Nullable: true, Known: dictionaries.Default().HasMaterial, Desc: "epr.material"})
	f.Decimal("mass_g", &in.MassG, input.Decimal{Required: true, Positive: true})
	f.Text("reason", &in.Reason, input.Text{Required: true, Max: EPRReasonMax})
	f.Int("revision", &in.Revision, input.Revision(true))
}

// Rules of EPR reports.
var (
	ErrEPRReportApproved = &domain.RuleError{Code: "epr_report_approved", Key: "error.epr_report_approved"}
	ErrEPRReportReviewed = &domain.RuleError{Code: "epr_report_reviewed", Key: "error.epr_report_reviewed"}
)

// AddEPRReportLine adds a line by hand to a report that is not approved,
// at the revision the client read. The total and the form follow it, and
// a rejected report returns to review.
func AddEPRReportLine(w *work.Unit, reportID uuid.UUID, in *EPRLineCreate) (*EPRReport, *EPRReportLine, error) {
	r, err := domain.LockFor[EPRReport](w.Context(), w.Tx(), w.Organization(), reportID, "NO KEY UPDATE")
	if err != nil {
		return nil, nil, err
	}
	if in.Failed() {
		return nil, nil, in.Err()
	}
	if r.Revision != in.Revision.Value {
		return nil, nil, domain.ErrRevisionConflict
	}
	if r.ReviewStatus == EPRApproved {
		return nil, nil, ErrEPRReportApproved
	}
	at := domain.Now()
	l := &EPRReportLine{ID: domain.NewID(), OrganizationID: r.OrganizationID, ReportID: r.ID, Source: EPRManual, Category: &in.Category.Value,
		MaterialCode: domain.Optional(in.Material), MassG: in.MassG.Value, FlowSample: datatypes.JSONSlice[string]{}, Reason: &in.Reason.Value,
		CreatedBy: w.Actor().UserID, CreatedAt: at}
	if err := w.Tx().Create(l).Error; err != nil {
		return nil, nil, domain.FromDatabase(err)
	}
	r.TotalG = r.TotalG.Add(l.MassG)
	r.Form, r.LineCount = rules.EPRForm(r.TotalG), r.LineCount+1
	r.ReviewStatus, r.ReviewReason, r.ReviewedBy, r.ReviewedAt = EPRUnreviewed, nil, nil, nil
	r.Revision++
	r.UpdatedAt = at
	if err := w.Tx().Model(r).Select(append([]string{"total_g", "form", "line_count"}, registers.ReviewColumns...)).Updates(r).Error; err != nil {
		return nil, nil, err
	}
	w.Touch("epr_report", r.ID)
	return r, l, domain.Emit(w, EPRReportLineAdded{ID: r.ID, Line: l.ID, Revision: r.Revision})
}

// NewEPRReview is the body of a decision on a report: approving or
// rejecting it, with a reason. It files nothing.
func NewEPRReview() *registers.ReviewBody {
	return &registers.ReviewBody{Decisions: EPRDecisions, Desc: "epr.decision"}
}

// ReviewEPRReport records the decision on an unreviewed report. Whoever
// created it cannot decide on it. An approved report is final; a rejected
// one is corrected by adding lines, which returns it to review.
func ReviewEPRReport(w *work.Unit, id uuid.UUID, in *registers.ReviewBody) (*EPRReport, error) {
	r, err := registers.ReviewOnce(w, domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("id = ?", id), in, func(r *EPRReport) error {
		if r.ReviewStatus != EPRUnreviewed {
			return ErrEPRReportReviewed.On("decision", "field.epr_report_decided", r.ReviewStatus)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.Touch("epr_report", r.ID)
	return r, domain.Emit(w, EPRReportReviewed{ID: r.ID, Decision: r.ReviewStatus, Revision: r.Revision})
}

// EPRReportCreated announces a report with its market, year and form.
type EPRReportCreated struct {
	ID      uuid.UUID `json:"id"`
	Country string    `json:"country"`
	Year    int       `json:"year"`
	Form    string    `json:"form"`
}

func (EPRReportCreated) EventType() string { return "epr_report.created" }

// EPRReportLineAdded announces a line added by hand and the report's new
// revision.
type EPRReportLineAdded struct {
	ID       uuid.UUID `json:"id"`
	Line     uuid.UUID `json:"line"`
	Revision int       `json:"revision"`
}

func (EPRReportLineAdded) EventType() string { return "epr_report.line_added" }

// EPRReportReviewed announces a report's internal decision.
type EPRReportReviewed struct {
	ID       uuid.UUID `json:"id"`
	Decision string    `json:"decision"`
	Revision int       `json:"revision"`
}

func (EPRReportReviewed) EventType() string { return "epr_report.reviewed" }

// EPRExportNotice is written into every export (the spec's boundary 3).
const EPRExportNotice = "internal export: nothing has been filed into a national EPR register"

// EPRExportHeader is the report's part of an export: field and value rows.
func EPRExportHeader(r *EPRReport) [][]any {
	warnings := make([]string, len(r.Warnings))
	for i, x := range r.Warnings {
		warnings[i] = x.Code + ": " + strconv.Itoa(x.Count)
	}
	reviewedAt, reason := "", ""
	if r.ReviewedAt != nil {
		reviewedAt = r.ReviewedAt.UTC().Format(time.RFC3339)
	}
	if r.ReviewReason != nil {
		reason = *r.ReviewReason
	}
	return [][]any{
		{"field", "value"},
		{"report", r.ID.String()}, {"country", r.Country}, {"year", r.Year},
		{"period_from", r.PeriodFrom.Format(time.DateOnly)}, {"period_to", r.PeriodTo.Format(time.DateOnly)},
		{"flow_kinds", strings.Join(r.FlowKinds, " ")}, {"form", r.Form}, {"form_threshold_t", EPRSimplifiedBelowT},
		{"form_basis", EPRFormBasis}, {"rounding", EPRRounding},
		{"total_g", r.TotalG}, {"total_kg", GramsToKg(r.TotalG)}, {"total_t", GramsToT(r.TotalG)},
		{"flow_count", r.FlowCount}, {"line_count", r.LineCount}, {"warnings", strings.Join(warnings, "; ")},
		{"review_status", r.ReviewStatus}, {"review_reason", reason}, {"reviewed_at", reviewedAt}, {"revision", r.Revision},
		{"notice", EPRExportNotice},
	}
}

// EPRExportLines is the lines' part of an export: a header row, then a
// row per line. Masses are decimals, which files write with every digit.
func EPRExportLines(lines []EPRReportLine) [][]any {
	out := [][]any{{"line", "source", "category", "material_code", "mass_g", "mass_kg", "mass_t", "flow_count", "flow_sample", "reason"}}
	for _, l := range lines {
		category, material, reason := "", "", ""
		if l.Category != nil {
			category = strconv.Itoa(*l.Category)
		}
		if l.MaterialCode != nil {
			material = *l.MaterialCode
		}
		if l.Reason != nil {
			reason = *l.Reason
		}
		out = append(out, []any{l.ID.String(), l.Source, category, material, l.MassG, GramsToKg(l.MassG), GramsToT(l.MassG),
			l.FlowCount, strings.Join(l.FlowSample, " "), reason})
	}
	return out
}

// EPRMaterialGroups are the material groups of the simplified form
// (Annex IX Part B Table 1, ppwr-facts §1.7), in the table's order. A
// material's group follows from its BDO group in the dictionaries, and
// composites and the rest are "other". A line without a material cannot
// be placed in the table: it is totalled apart as EPRUnspecified.
var EPRMaterialGroups = []string{"glass", "plastic", "paper_cardboard", "ferrous_metal", "aluminium", "wood", "other"}

// EPRUnspecified is the group of lines without a material.
const EPRUnspecified = "unspecified"

var eprGroupOfBDO = map[string]string{"glass": "glass", "plastics": "plastic", "paper": "paper_cardboard", "steel": "ferrous_metal",
	"aluminium": "aluminium", "wood": "wood"}

// EPRMaterialTotal is a material group's mass in a report.
type EPRMaterialTotal struct {
	Group  string          `json:"group"`
	MassG  decimal.Decimal `json:"mass_g"`
	MassKg decimal.Decimal `json:"mass_kg"`
	MassT  decimal.Decimal `json:"mass_t"`
}

// EPRMaterialTotals are the lines' masses per group of the simplified
// form: every group of the table, then EPRUnspecified when a line has no
// material.
func EPRMaterialTotals(lines []EPRReportLine) []EPRMaterialTotal {
	bdo := dictionaries.Default().BDOGroupsByMaterial()
	sums := map[string]decimal.Decimal{}
	for _, l := range lines {
		group := EPRUnspecified
		if l.MaterialCode != nil {
			if group = eprGroupOfBDO[bdo[*l.MaterialCode]]; group == "" {
				group = "other"
			}
		}
		sums[group] = sums[group].Add(l.MassG)
	}
	groups := EPRMaterialGroups
	if _, ok := sums[EPRUnspecified]; ok {
		groups = append(slices.Clone(groups), EPRUnspecified)
	}
	out := make([]EPRMaterialTotal, len(groups))
	for i, g := range groups {
		out[i] = EPRMaterialTotal{Group: g, MassG: sums[g], MassKg: GramsToKg(sums[g]), MassT: GramsToT(sums[g])}
	}
	return out
}

// EPRExportMaterialGroups is the simplified form's table of an export:
// a row per group, then the total.
func EPRExportMaterialGroups(totals []EPRMaterialTotal) [][]any {
	out := [][]any{{"material_group", "mass_g", "mass_kg", "mass_t"}}
	total := decimal.Zero
	for _, t := range totals {
		out = append(out, []any{t.Group, t.MassG, t.MassKg, t.MassT})
		total = total.Add(t.MassG)
	}
	return append(out, []any{"total", total, GramsToKg(total), GramsToT(total)})
}

// EPRReportLines are all of a report's lines, in the order they were
// added.
func EPRReportLines(ctx context.Context, db *gorm.DB, org, report uuid.UUID) ([]EPRReportLine, error) {
	var lines []EPRReportLine
	return lines, domain.Tenant(ctx, db, org).Where("report_id = ?", report).Order("id").Find(&lines).Error
}
