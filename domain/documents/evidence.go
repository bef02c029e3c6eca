package documents

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/measure"
	"ppwr/internal/work"
)

// Evidence proposals are values read from a document version, each citing
// the page it is on and an exact quotation of it. Analysis proposes
// measurements; reviewers propose any value by hand. A person decides
// each proposal; accepted values become the item's evidenced facts, which
// assessments and supplier requests read. They are not part of the
// item's public data version.

// Kinds of evidence values: each kind has its own rules.
const (
	EvidenceMeasurement        = "measurement"
	EvidenceDesignForRecycling = "design_for_recycling"
	EvidenceChemical           = "chemical"
)

// EvidenceCode is a value that can be evidenced, with the only unit it is
// given in.
type EvidenceCode struct {
	Code, Unit, Kind string
}

// EvidenceCodes are the values evidence can be given for. Chemical values
// are the inputs of PPWR Art. 5(4) (heavy metals) and 5(5) (PFAS in
// food-contact packaging).
var EvidenceCodes = []EvidenceCode{
	{measure.MassG, "g", EvidenceMeasurement},
	{measure.WidthMM, "mm", EvidenceMeasurement},
	{measure.LengthMM, "mm", EvidenceMeasurement},
	{measure.HeightMM, "mm", EvidenceMeasurement},
	{"RECYCLABILITY_PCT", "%", EvidenceDesignForRecycling},
	{"RECYCLED_CONTENT_PCT", "%", EvidenceDesignForRecycling},
	{"LEAD_MG_KG", "mg/kg", EvidenceChemical},
	{"CADMIUM_MG_KG", "mg/kg", EvidenceChemical},
	{"MERCURY_MG_KG", "mg/kg", EvidenceChemical},
	{"CHROMIUM_VI_MG_KG", "mg/kg", EvidenceChemical},
	{"HEAVY_METALS_SUM_MG_KG", "mg/kg", EvidenceChemical},
	{"PFAS_INDIVIDUAL_MAX_PPB", "ppb", EvidenceChemical},
	{"PFAS_TARGETED_SUM_PPB", "ppb", EvidenceChemical},
	{"PFAS_TOTAL_PPM", "ppm", EvidenceChemical},
	{"TOTAL_FLUORINE_MG_KG", "mg/kg", EvidenceChemical},
}

// EvidenceCodeNames are the codes, in their order.
func EvidenceCodeNames() []string {
	out := make([]string, len(EvidenceCodes))
	for i, c := range EvidenceCodes {
		out[i] = c.Code
	}
	return out
}

// EvidenceCodeLabel is the message key of a code's name in words, with
// its unit ("mass in grams"), for people such as the supplier a request
// e-mails: the codes are the API's.
func EvidenceCodeLabel(code string) string { return "evidence.code." + code }

func evidenceCode(code string) (EvidenceCode, bool) {
	for _, c := range EvidenceCodes {
		if c.Code == code {
			return c, true
		}
	}
	return EvidenceCode{}, false
}

// checkValue applies the kind's range to a value: measurements are
// positive, percentages from 0 to 100, chemical results not negative (a
// result below the detection limit is given as 0).
func (c EvidenceCode) checkValue(f *input.Errors, field string, v decimal.Decimal) {
	switch {
	case c.Kind == EvidenceMeasurement && !v.IsPositive():
		f.Fail(field, "field.positive")
	case c.Kind == EvidenceDesignForRecycling && (v.IsNegative() || v.GreaterThan(decimal.NewFromInt(100))):
		f.Fail(field, "field.percent_range")
	case c.Kind == EvidenceChemical && v.IsNegative():
		f.Fail(field, "field.not_negative")
	}
}

// Proposal statuses: open, or the decision taken.
const (
	ProposalOpen             = "open"
	ProposalAccepted         = "accepted"
	ProposalAcceptedModified = "acceptedModified"
	ProposalRejected         = "rejected"
)

// ProposalStatuses are every status of a proposal.
var ProposalStatuses = []string{ProposalOpen, ProposalAccepted, ProposalAcceptedModified, ProposalRejected}

// ProposalDecisions are the decisions a reviewer can take.
var ProposalDecisions = []string{ProposalAccepted, ProposalAcceptedModified, ProposalRejected}

// Origins of a proposal.
const (
	OriginAnalysis = "analysis"
	OriginManual   = "manual"
)

// EvidenceProposal is a value proposed from a document version, citing
// its page and quotation.
type EvidenceProposal struct {
	ID                        uuid.UUID  `gorm:"type:uuid;primaryKey"`
	OrganizationID            uuid.UUID  `gorm:"type:uuid"`
	DocumentVersionID         uuid.UUID  `gorm:"type:uuid"`
	CatalogItemID             uuid.UUID  `gorm:"type:uuid"`
	ComponentID               *uuid.UUID `gorm:"type:uuid"`
	Code                      string
	Value                     decimal.Decimal
	Unit                      string
	Method                    *string
	Result                    *string
	LaboratoryReportVersionID *uuid.UUID `gorm:"type:uuid"`
	SourcePage                int
	SourceText                string
	Origin                    string
	AnalysisRun               *int
	Status                    string
	AcceptedValue             decimal.NullDecimal
	DecisionNote              *string
	DecidedBy                 *uuid.UUID `gorm:"type:uuid"`
	DecidedAt                 *time.Time
	CreatedBy                 *uuid.UUID `gorm:"type:uuid"`
	Revision                  int
	CreatedAt                 time.Time
	UpdatedAt                 time.Time
}

// Limits of a proposal's texts.
const (
	SourceTextMax   = 1000
	MethodMax       = 500
	ResultMax       = 2000
	DecisionNoteMax = 2000
)

// Rules of evidence.
var (
	ErrProposalDecided = &domain.RuleError{Code: "proposal_decided", Key: "error.proposal_decided"}
)

// ProposalCreate is a value a reviewer proposes from a version.
type ProposalCreate struct {
	input.Errors
	Code             input.Opt[string]
	Value            input.Opt[decimal.Decimal]
	Unit             input.Opt[string]
	SourcePage       input.Opt[int]
	SourceText       input.Opt[string]
	Method           input.Opt[string]
	Result           input.Opt[string]
	Component        input.Opt[uuid.UUID]
	LaboratoryReport input.Opt[uuid.UUID]
}

// Declare names the proposal's fields and applies the rules of its
// code's kind.
func (in *ProposalCreate) Declare(f *input.Fields) {
	f.Enum("code", &in.Code, input.Enum{Required: true, Values: EvidenceCodeNames()})
	f.Decimal("value", &in.Value, input.Decimal{Required: true})
	f.Text("unit", &in.Unit, input.Text{Required: true, Max: 10})
	f.Int("source_page", &in.SourcePage, input.Int{Required: true, Min: 1, Max: 100000})
	f.Text("source_text", &in.SourceText, input.Text{Required: true, Max: SourceTextMax})
	f.Text("method", &in.Method, input.Text{Max: MethodMax})
	f.Text("result", &in.Result, input.Text{Max: ResultMax})
	f.Ref("component", &in.Component, input.Ref{})
	f.Ref("laboratory_report", &in.LaboratoryReport, input.Ref{})
	code, known := evidenceCode(in.Code.Value)
	if !f.Binding() || !known {
		return
	}
	if in.Unit.Set() && in.Unit.Value != code.Unit {
		f.Fail("unit", "field.unit_of_code", code.Unit, code.Code)
	}
	if in.Value.Set() {
		code.checkValue(&in.Errors, "value", in.Value.Value)
	}
	required := map[string]bool{}
	switch code.Kind {
	case EvidenceDesignForRecycling:
		required["method"], required["result"] = !in.Method.Set(), !in.Result.Set()
	case EvidenceChemical:
		required["component"], required["laboratory_report"] = !in.Component.Set(), !in.LaboratoryReport.Set()
	}
	for field, missing := range required {
		if missing && !in.Has(field) {
			f.Fail(field, "field.required_for", code.Code)
		}
	}
}

// eligibleVersion locks a version that can be cited as evidence and
// answers it with its document: processed clean, of a document about a
// packaging item.
func eligibleVersion(w *work.Unit, id uuid.UUID) (*DocumentVersion, *Document, error) {
	v, err := domain.LockFor[DocumentVersion](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, nil, err
	}
	doc, err := domain.Find[Document](w.Context(), w.Tx(), w.Organization(), v.DocumentID)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case v.ProcessingStatus != ProcessingReviewRequired:
		return nil, nil, ErrDocumentNotAnalyzable.On("version", "field.document_not_processed", v.ProcessingStatus)
	case doc.CatalogItemID == nil:
		return nil, nil, ErrDocumentNotAnalyzable.On("version", "field.document_not_linked")
	}
	return v, doc, nil
}

// CreateProposal records a reviewer's proposal from the version: the
// quotation must be on the cited page exactly, a chemical value's
// component must be the item's and its laboratory report a clean
// laboratory report of the organization.
func CreateProposal(w *work.Unit, versionID uuid.UUID, in *ProposalCreate) (*EvidenceProposal, error) {
	v, doc, err := eligibleVersion(w, versionID)
	if err != nil {
		return nil, err
	}
	ctx, tx := w.Context(), w.Tx()
	if in.SourcePage.Set() && in.SourceText.Set() {
		var pages []DocumentPage
		if err := tx.Where("document_version_id = ? AND page = ?", v.ID, in.SourcePage.Value).Limit(1).Find(&pages).Error; err != nil {
			return nil, err
		}
		switch {
		case len(pages) == 0:
			in.Fail("source_page", "field.page_not_found", pageCount(v))
		case !strings.Contains(pages[0].Text, in.SourceText.Value):
			in.Fail("source_text", "field.quotation_not_on_page", in.SourcePage.Value)
		}
	}
	if in.Component.Set() && !in.Has("component") {
		var n int64
		if err := domain.Tenant(ctx, tx, w.Organization()).Model(&catalog.Component{}).
			Where("id = ? AND catalog_item_id = ?", in.Component.Value, *doc.CatalogItemID).Count(&n).Error; err != nil {
			return nil, err
		}
		if n == 0 {
			in.Fail("component", "field.component_of_item")
		}
	}
	if in.LaboratoryReport.Set() && !in.Has("laboratory_report") {
		ok, err := isLaboratoryReport(w, in.LaboratoryReport.Value)
		if err != nil {
			return nil, err
		}
		if !ok {
			in.Fail("laboratory_report", "field.laboratory_report")
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	p := &EvidenceProposal{
		ID: domain.NewID(), OrganizationID: w.Organization(), DocumentVersionID: v.ID, CatalogItemID: *doc.CatalogItemID,
		ComponentID: OptionalID(in.Component), Code: in.Code.Value, Value: in.Value.Value, Unit: in.Unit.Value,
		Method: domain.Optional(in.Method), Result: domain.Optional(in.Result), LaboratoryReportVersionID: OptionalID(in.LaboratoryReport),
		SourcePage: in.SourcePage.Value, SourceText: in.SourceText.Value, Origin: OriginManual, Status: ProposalOpen,
		CreatedBy: w.Actor().UserID, Revision: 1, CreatedAt: domain.Now(),
	}
	p.UpdatedAt = p.CreatedAt
	if err := tx.Create(p).Error; err != nil {
		return nil, err
	}
	if err := startReview(w, v); err != nil {
		return nil, err
	}
	if err := catalog.RefreshAssessments(w, p.CatalogItemID); err != nil {
		return nil, err
	}
	w.Touch("evidence_proposal", p.ID)
	return p, domain.Emit(w, EvidenceProposalCreated{ID: p.ID})
}

func pageCount(v *DocumentVersion) int {
	if v.PageCount == nil {
		return 0
	}
	return *v.PageCount
}

// isLaboratoryReport reports whether id is a version of one of the
// organization's laboratory reports that is clean and neither rejected
// nor revoked.
func isLaboratoryReport(w *work.Unit, id uuid.UUID) (bool, error) {
	var n int64
	err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Model(&DocumentVersion{}).
		Where("id = ? AND processing_status = ? AND review_status NOT IN ?", id, ProcessingReviewRequired, []string{ReviewRejected, ReviewRevoked}).
		Where("document_id IN (?)", w.Tx().Model(&Document{}).Select("id").Where("document_type = ?", "laboratory_report")).
		Count(&n).Error
	return n > 0, err
}

// startReview marks an unreviewed version as in review: someone is
// working on what it evidences.
func startReview(w *work.Unit, v *DocumentVersion) error {
	if v.ReviewStatus != ReviewUnreviewed {
		return nil
	}
	return w.Tx().Model(v).Updates(map[string]any{"review_status": ReviewInReview, "revision": gorm.Expr("revision + 1"), "updated_at": domain.Now()}).Error
}

// ProposalDecision is a reviewer's decision on a proposal.
type ProposalDecision struct {
	input.Errors
	Decision      input.Opt[string]
	Revision      input.Opt[int]
	Note          input.Opt[string]
	AcceptedValue input.Opt[decimal.Decimal]
}

// Declare names the decision's fields: a modified value comes with
// acceptedModified only.
func (in *ProposalDecision) Declare(f *input.Fields) {
	f.Enum("decision", &in.Decision, input.Enum{Required: true, Values: ProposalDecisions})
	f.Int("revision", &in.Revision, input.Revision(true))
	f.Text("note", &in.Note, input.Text{Required: true, Max: DecisionNoteMax})
	f.Decimal("acceptedValue", &in.AcceptedValue, input.Decimal{})
	f.RequiredWhen("acceptedValue", input.Is("decision", ProposalAcceptedModified))
	if f.Binding() && in.Decision.Set() && in.Decision.Value != ProposalAcceptedModified && in.AcceptedValue.Set() {
		f.Fail("acceptedValue", "field.only_for", ProposalAcceptedModified)
	}
}

// DecideProposal records the decision on an open proposal once: a stale
// revision is a conflict, a decided proposal is refused.
func DecideProposal(w *work.Unit, id uuid.UUID, in *ProposalDecision) (*EvidenceProposal, error) {
	p, err := domain.LockFor[EvidenceProposal](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if code, ok := evidenceCode(p.Code); ok && in.AcceptedValue.Set() {
		code.checkValue(&in.Errors, "acceptedValue", in.AcceptedValue.Value)
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if p.Revision != in.Revision.Value {
		return nil, domain.ErrRevisionConflict
	}
	if p.Status != ProposalOpen {
		return nil, ErrProposalDecided.On("decision", "field.proposal_decided", p.Status)
	}
	at := domain.Now()
	p.Status, p.DecisionNote, p.DecidedBy, p.DecidedAt = in.Decision.Value, domain.Optional(in.Note), w.Actor().UserID, &at
	if in.AcceptedValue.Set() {
		p.AcceptedValue = decimal.NewNullDecimal(in.AcceptedValue.Value)
	}
	p.Revision++
	p.UpdatedAt = at
	if err := w.Tx().Model(p).Select("status", "decision_note", "decided_by", "decided_at", "accepted_value", "revision", "updated_at").
		Updates(p).Error; err != nil {
		return nil, err
	}
	v, err := domain.LockFor[DocumentVersion](w.Context(), w.Tx(), w.Organization(), p.DocumentVersionID, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if err := startReview(w, v); err != nil {
		return nil, err
	}
	if err := catalog.RefreshAssessments(w, p.CatalogItemID); err != nil {
		return nil, err
	}
	w.Touch("evidence_proposal", p.ID)
	return p, domain.Emit(w, EvidenceProposalDecided{ID: p.ID, Status: p.Status})
}

// EvidencedFact is an item's accepted value of a code (per component,
// for chemical values), with where it comes from.
type EvidencedFact struct {
	Code              string
	ComponentID       *uuid.UUID
	Value             decimal.Decimal
	Unit              string
	ProposalID        uuid.UUID
	DocumentVersionID uuid.UUID
	DecidedAt         time.Time
}

// EvidencedFacts are the item's latest accepted value of each code and
// component: the value accepted, or the one a reviewer set instead.
func EvidencedFacts(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) ([]EvidencedFact, error) {
	var facts []EvidencedFact
	err := domain.Tenant(ctx, db, org).Model(&EvidenceProposal{}).
		Select(`DISTINCT ON (code, component_id) code, component_id, COALESCE(accepted_value, value) AS value, unit,
			id AS proposal_id, document_version_id, decided_at`).
		Where("catalog_item_id = ? AND status IN ?", itemID, []string{ProposalAccepted, ProposalAcceptedModified}).
		Order("code, component_id, decided_at DESC").Scan(&facts).Error
	return facts, err
}

// ProposeFindings records what an analysis run found in a version's text
// as open proposals about its document's item, and the run's end
// (completeAnalysis). A finding the run already proposed (a retried
// activity) is skipped; a document about no item gets none. It returns
// how many proposals the run holds.
func ProposeFindings(w *work.Unit, v *DocumentVersion, run int, found []measure.Finding) (int, error) {
	doc, err := domain.Find[Document](w.Context(), w.Tx(), w.Organization(), v.DocumentID)
	if err != nil {
		return 0, err
	}
	if doc.CatalogItemID == nil {
		found = nil
	}
	for _, f := range found {
		p := EvidenceProposal{ID: domain.NewID(), OrganizationID: v.OrganizationID, DocumentVersionID: v.ID, CatalogItemID: *doc.CatalogItemID,
			Code: f.Code, Value: f.Value, Unit: f.Unit, SourcePage: f.Page, SourceText: f.SourceText,
			Origin: OriginAnalysis, AnalysisRun: &run, Status: ProposalOpen, Revision: 1, CreatedAt: domain.Now()}
		p.UpdatedAt = p.CreatedAt
		res := w.Tx().Clauses(clause.OnConflict{DoNothing: true}).Create(&p)
		if res.Error != nil {
			return 0, res.Error
		}
		if res.RowsAffected == 1 {
			if err := domain.Emit(w, EvidenceProposalCreated{ID: p.ID}); err != nil {
				return 0, err
			}
		}
	}
	w.Touch("document_version", v.ID)
	var total int64
	if err := w.Tx().Model(&EvidenceProposal{}).Where("document_version_id = ? AND analysis_run = ?", v.ID, run).Count(&total).Error; err != nil {
		return 0, err
	}
	return int(total), completeAnalysis(w, v, run, int(total))
}

// completeAnalysis records that run ended with proposals and announces it
// (analysis.completed), when run is still the version's latest and not
// yet recorded: a run superseded by a newer one leaves the newer one's
// status alone, and a retried activity announces nothing twice.
func completeAnalysis(w *work.Unit, v *DocumentVersion, run, proposals int) error {
	res := w.Tx().Model(&DocumentVersion{}).Where("id = ? AND analysis_count = ? AND analysis_status = ?", v.ID, run, AnalysisQueued).
		Updates(map[string]any{"analysis_status": AnalysisCompleted, "analysis_proposal_count": proposals, "analysis_completed_at": domain.Now()})
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	return domain.Emit(w, AnalysisCompletedEvent{ID: v.ID, Run: run, ProposalCount: proposals})
}
