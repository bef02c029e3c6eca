package registers

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// ReviewBody is the body of an internal review decision: one of the
// record's decisions, a reason (always required) and the record's
// revision. Such a decision is never an authority decision nor a
// certification (the spec's boundary 4).
type ReviewBody struct {
	input.Errors
	Decisions []string
	Desc      input.Msg
	Decision  input.Opt[string]
	Reason    input.Opt[string]
	Revision  input.Opt[int]
}

// NewRegisterReview is the body of a decision on a register entry.
func NewRegisterReview() *ReviewBody {
	return &ReviewBody{Decisions: EntryDecisions, Desc: "register.decision"}
}

// Declare names the decision's fields.
func (in *ReviewBody) Declare(f *input.Fields) {
	f.Enum("decision", &in.Decision, input.Enum{Required: true, Values: in.Decisions, Desc: in.Desc})
	f.Text("reason", &in.Reason, input.Text{Required: true, Max: EntryReasonMax})
	f.Int("revision", &in.Revision, input.Revision(true))
}

// ReviewState is what a record that takes one internal review decision
// keeps: who created it (who may not decide on it), its revision (which
// the reviewer sends back) and the decision.
type ReviewState struct {
	ReviewStatus string
	ReviewReason *string
	ReviewedBy   *uuid.UUID `gorm:"type:uuid"`
	ReviewedAt   *time.Time
	Revision     int
	CreatedBy    *uuid.UUID `gorm:"type:uuid"`
	UpdatedAt    time.Time
}

func (r *ReviewState) state() *ReviewState { return r }

// NewReviewState is the state of a record the unit's actor creates, in
// the given review status.
func NewReviewState(w *work.Unit, status string, at time.Time) ReviewState {
	return ReviewState{ReviewStatus: status, Revision: 1, CreatedBy: w.Actor().UserID, UpdatedAt: at}
}

// ReviewOnce takes the one review decision on the record q finds, locked:
// 404 when there is none, then the body's errors, then four eyes and the
// revision (checkReviewer), then open, the record's own rules for being
// decided (still undecided, not superseded, not stale). It writes the
// decision and raises the revision.
func ReviewOnce[T any, P interface {
	*T
	state() *ReviewState
}](w *work.Unit, q *gorm.DB, in *ReviewBody, open func(P) error) (P, error) {
	row, err := domain.Take[T](q.Clauses(clause.Locking{Strength: "NO KEY UPDATE"}))
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	p := P(row)
	r := p.state()
	if err := checkReviewer(w, r.CreatedBy, r.Revision, in); err != nil {
		return nil, err
	}
	if err := open(p); err != nil {
		return nil, err
	}
	at := domain.Now()
	r.ReviewStatus, r.ReviewReason, r.ReviewedBy, r.ReviewedAt = in.Decision.Value, &in.Reason.Value, w.Actor().UserID, &at
	r.Revision++
	r.UpdatedAt = at
	return p, w.Tx().Model(row).Select(ReviewColumns).Updates(row).Error
}

// checkReviewer applies what every review decision requires: four eyes
// (whoever created the record cannot decide on it) and the revision the
// reviewer read.
func checkReviewer(w *work.Unit, createdBy *uuid.UUID, revision int, in *ReviewBody) error {
	if by := w.Actor().UserID; by != nil && createdBy != nil && *by == *createdBy {
		return ErrSelfReview
	}
	if revision != in.Revision.Value {
		return domain.ErrRevisionConflict
	}
	return nil
}

// ReviewColumns are the columns a review decision writes.
var ReviewColumns = []string{"review_status", "review_reason", "reviewed_by", "reviewed_at", "revision", "updated_at"}

// FindRegisterEntry reads an entry of one register about one item.
func FindRegisterEntry(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID, reg string, id uuid.UUID) (*RegisterEntry, error) {
	return domain.Take[RegisterEntry](domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND register = ? AND id = ?", itemID, reg, id))
}

// ReviewRegisterEntry records the one review decision of an unreviewed,
// active entry. Four eyes: whoever created the entry cannot decide on it.
// A rejection opens a compliance issue on the item; accepting the entry
// that corrects a rejected one resolves that issue.
func ReviewRegisterEntry(w *work.Unit, itemID uuid.UUID, reg string, id uuid.UUID, in *ReviewBody) (*RegisterEntry, error) {
	q := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("catalog_item_id = ? AND register = ? AND id = ?", itemID, reg, id)
	e, err := ReviewOnce(w, q, in, func(e *RegisterEntry) error {
		switch {
		case e.Status == EntrySuperseded:
			return ErrEntrySuperseded.On("decision", "field.entry_superseded")
		case e.ReviewStatus != EntryUnreviewed:
			return ErrEntryDecided.On("decision", "field.entry_decided", e.ReviewStatus)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	decision := e.ReviewStatus
	switch {
	case decision == EntryRejected:
		if _, err := domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueRegisterEntryRejected, Severity: domain.SeverityMedium,
			SubjectType: "ppwr_register_entry", SubjectID: e.ID, CatalogItemID: &e.CatalogItemID,
			MessageKey: "issue.register_entry_rejected", MessageArgs: []any{e.Register, in.Reason.Value}}); err != nil {
			return nil, err
		}
	case decision == EntryAccepted && e.Supersedes != nil:
		if err := domain.ResolveIssues(w, domain.IssueRegisterEntryRejected, *e.Supersedes, "issue.resolved_by_correction"); err != nil {
			return nil, err
		}
	}
	if err := catalog.RefreshAssessments(w, e.CatalogItemID); err != nil {
		return nil, err
	}
	w.Touch("ppwr_register_entry", e.ID)
	return e, domain.Emit(w, RegisterEntryReviewed{ID: e.ID, Register: e.Register, Decision: decision})
}

// ResolvedEvidence is a piece of an entry's evidence with what a reader
// needs to find it: the document, its title and version, its pages, and
// for a proposal the page and text it quotes.
type ResolvedEvidence struct {
	Kind         string
	ID           uuid.UUID
	Field        *string
	DocumentID   uuid.UUID
	Title        string
	Version      int
	FileName     string
	PageCount    *int
	Page         *int
	Quotation    *string
	Code         *string
	ReviewStatus string
}

// ResolveEvidence looks up an entry's evidence, in its order.
func ResolveEvidence(ctx context.Context, db *gorm.DB, org uuid.UUID, refs []EvidenceRef) ([]ResolvedEvidence, error) {
	var versions, proposals []uuid.UUID
	for _, r := range refs {
		if r.Kind == EvidenceDocumentVersion {
			versions = append(versions, r.ID)
		} else {
			proposals = append(proposals, r.ID)
		}
	}
	type row struct {
		ID, DocumentID          uuid.UUID
		Title, FileName, Status string
		Version                 int
		PageCount, Page         *int
		Quotation, Code         *string
	}
	var rows []row
	err := db.WithContext(ctx).Raw(`
		SELECT v.id, d.id AS document_id, d.title, v.file_name, v.review_status AS status, v.version, v.page_count,
		       NULL::int AS page, NULL::text AS quotation, NULL::text AS code
		FROM document_versions v JOIN documents d ON d.id = v.document_id
		WHERE v.organization_id = ? AND v.id IN ?
		UNION ALL
		SELECT p.id, d.id, d.title, v.file_name, v.review_status, v.version, v.page_count, p.source_page, p.source_text, p.code
		FROM evidence_proposals p JOIN document_versions v ON v.id = p.document_version_id JOIN documents d ON d.id = v.document_id
		WHERE p.organization_id = ? AND p.id IN ?`,
		org, append(versions, uuid.Nil), org, append(proposals, uuid.Nil)).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]row{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := make([]ResolvedEvidence, 0, len(refs))
	for _, ref := range refs {
		r := byID[ref.ID]
		out = append(out, ResolvedEvidence{Kind: ref.Kind, ID: ref.ID, Field: ref.Field, DocumentID: r.DocumentID, Title: r.Title,
			Version: r.Version, FileName: r.FileName, PageCount: r.PageCount, Page: r.Page, Quotation: r.Quotation, Code: r.Code,
			ReviewStatus: r.Status})
	}
	return out, nil
}
