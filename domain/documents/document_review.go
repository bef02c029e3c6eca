package documents

import (
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Review decisions on a document version.
const (
	DecisionApproved = "approved"
	DecisionRejected = "rejected"
	DecisionRevoked  = "revoked"
)

// DocumentDecisions are the decisions a reviewer can make.
var DocumentDecisions = []string{DecisionApproved, DecisionRejected, DecisionRevoked}

// DocumentReasonMax bounds a decision's reason.
const DocumentReasonMax = 2000

// Rules of document review.
var (
	ErrDocumentNotReviewable = &domain.RuleError{Code: "document_not_reviewable", Key: "error.document_not_reviewable"}
	ErrDocumentNotApproved   = &domain.RuleError{Code: "document_not_approved", Key: "error.document_not_approved"}
	ErrDocumentNotServable   = &domain.RuleError{Code: "document_not_servable", Key: "error.document_not_servable"}
	ErrDocumentNotAnalyzable = &domain.RuleError{Code: "document_not_analyzable", Key: "error.document_not_analyzable"}
)

// DocumentDecision is the body of a review decision. A rejection or a
// revocation says why; an approval may.
type DocumentDecision struct {
	input.Errors
	Decision input.Opt[string]
	Revision input.Opt[int]
	Reason   input.Opt[string]
}

// Declare names the decision's fields.
func (in *DocumentDecision) Declare(f *input.Fields) {
	f.Enum("decision", &in.Decision, input.Enum{Required: true, Values: DocumentDecisions})
	f.Int("revision", &in.Revision, input.Revision(true))
	f.Text("reason", &in.Reason, input.Text{Max: DocumentReasonMax, Nullable: true})
	f.RequiredWhen("reason", input.Is("decision", DecisionRejected, DecisionRevoked))
}

// Reviewer is who decides: the permissions the decision needs were
// checked by the caller; SelfApproval says whether approving one's own
// upload is allowed (dual control off, or an owner or admin deciding).
type Reviewer struct {
	UserID       *uuid.UUID
	SelfApproval bool
}

// ErrOwnUpload refuses the approval of one's own upload under dual
// control: another reviewer must decide.
var ErrOwnUpload = &domain.ForbiddenError{Code: "dual_control", Key: "error.dual_control"}

// DecideDocumentVersion applies the review state table: approve or
// reject a clean version that is unreviewed or in review, revoke an
// approved one. A stale revision is a conflict; any other state is
// refused. Approving or revoking a supplier's document about an item
// refreshes the item's assessments, which read such documents.
func DecideDocumentVersion(w *work.Unit, id uuid.UUID, in *DocumentDecision, by Reviewer) (*DocumentVersion, error) {
	v, err := domain.LockFor[DocumentVersion](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if v.Revision != in.Revision.Value {
		return nil, domain.ErrRevisionConflict
	}
	decision := in.Decision.Value
	switch decision {
	case DecisionApproved, DecisionRejected:
		if v.ProcessingStatus != ProcessingReviewRequired || (v.ReviewStatus != ReviewUnreviewed && v.ReviewStatus != ReviewInReview) {
			return nil, ErrDocumentNotReviewable.On("decision", "field.document_state", v.ProcessingStatus, v.ReviewStatus)
		}
		if decision == DecisionApproved && !by.SelfApproval && by.UserID != nil && v.UploadedBy != nil && *by.UserID == *v.UploadedBy {
			return nil, ErrOwnUpload
		}
	case DecisionRevoked:
		if v.ReviewStatus != ReviewApproved {
			return nil, ErrDocumentNotApproved.On("decision", "field.document_state", v.ProcessingStatus, v.ReviewStatus)
		}
	}
	at := domain.Now()
	v.ReviewStatus, v.ReviewReason, v.ReviewedBy, v.ReviewedAt = decision, domain.Optional(in.Reason), by.UserID, &at
	v.Revision++
	v.UpdatedAt = at
	if err := w.Tx().Model(v).Select("review_status", "review_reason", "reviewed_by", "reviewed_at", "revision", "updated_at").
		Updates(v).Error; err != nil {
		return nil, err
	}
	if decision == DecisionRevoked {
		if err := evidenceWithdrawn(w, v); err != nil {
			return nil, err
		}
	}
	if decision != DecisionRejected {
		if err := supplierDocumentDecided(w, v); err != nil {
			return nil, err
		}
	}
	w.Touch("document_version", v.ID)
	return v, domain.Emit(w, DocumentVersionDecided{ID: v.ID, Status: decision})
}

// supplierDocumentDecided refreshes the assessments of the item a
// supplier's document is about.
func supplierDocumentDecided(w *work.Unit, v *DocumentVersion) error {
	var items []uuid.UUID
	if err := w.Tx().Model(&Document{}).Where("id = ? AND party_id IS NOT NULL AND catalog_item_id IS NOT NULL", v.DocumentID).
		Pluck("catalog_item_id", &items).Error; err != nil {
		return err
	}
	return catalog.RefreshAssessments(w, items...)
}

// evidenceWithdrawn opens an issue for each item whose traceability
// relied on a version that is no longer approved.
func evidenceWithdrawn(w *work.Unit, v *DocumentVersion) error {
	var links []TraceabilityLink
	if err := w.Tx().Where("document_version_id = ?", v.ID).Find(&links).Error; err != nil {
		return err
	}
	for _, l := range links {
		if _, err := domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueEvidenceDocumentWithdrawn, Severity: domain.SeverityHigh,
			SubjectType: "traceability_link", SubjectID: l.ID, CatalogItemID: &l.CatalogItemID,
			MessageKey: "issue.evidence_document_withdrawn", MessageArgs: []any{v.ReviewStatus}}); err != nil {
			return err
		}
	}
	return nil
}

// Analysis is one queued analysis run of a version and its workflow.
type Analysis struct {
	Version    *DocumentVersion
	Run        int
	WorkflowID string
}

// RequestAnalysis numbers a new analysis run of a version that can be
// analysed: processed clean, with page text, of a document about a
// packaging item, and records the start of the run's workflow.
func RequestAnalysis(w *work.Unit, id uuid.UUID) (*Analysis, error) {
	v, _, err := eligibleVersion(w, id)
	if err != nil {
		return nil, err
	}
	if v.PageCount == nil {
		return nil, ErrDocumentNotAnalyzable.On("version", "field.document_without_text")
	}
	queued := AnalysisQueued
	if err := w.Tx().Model(v).Updates(map[string]any{"analysis_count": gorm.Expr("analysis_count + 1"),
		"analysis_status": queued, "analysis_proposal_count": nil, "analysis_completed_at": nil}).Error; err != nil {
		return nil, err
	}
	v.AnalysisCount++
	v.AnalysisStatus, v.AnalysisProposalCount, v.AnalysisCompletedAt = &queued, nil, nil
	w.Touch("document_version", v.ID)
	in := VersionInput{Org: domain.OrgOf(v.OrganizationID), VersionID: v.ID, Run: v.AnalysisCount}
	summary := fmt.Sprintf("Analyse document version %d `%s`, run %d: %d pages", v.Version, v.FileName, in.Run, *v.PageCount)
	return &Analysis{Version: v, Run: in.Run, WorkflowID: AnalysisWorkflow.ID(in)}, domain.Start(w, AnalysisWorkflow, in, summary)
}
