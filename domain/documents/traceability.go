package documents

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Traceability links tie a packaging item to the approved document
// versions that evidence it. A link counts while its version stays
// approved and its document is valid.

// TraceabilityLinkTypes are what a linked document is to the item.
var TraceabilityLinkTypes = []string{
	"declaration_of_conformity", "technical_documentation", "supplier_declaration", "test_report",
	"laboratory_report", "specification", "certificate", "other",
}

// TraceabilityLink links an item to a document version.
type TraceabilityLink struct {
	ID                uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID    uuid.UUID `gorm:"type:uuid"`
	CatalogItemID     uuid.UUID `gorm:"type:uuid"`
	DocumentVersionID uuid.UUID `gorm:"type:uuid"`
	DocumentID        uuid.UUID `gorm:"type:uuid"`
	LinkType          string
	CatalogRevision   int
	CreatedBy         *uuid.UUID `gorm:"type:uuid"`
	CreatedAt         time.Time
}

// TraceabilityLinkView is a link with what a reader needs of its
// document.
type TraceabilityLinkView struct {
	TraceabilityLink
	DocumentTitle string     `gorm:"->"`
	ValidFrom     *time.Time `gorm:"->;type:date"`
	ValidUntil    *time.Time `gorm:"->;type:date"`
}

// TableName maps the view onto the links.
func (TraceabilityLinkView) TableName() string { return "traceability_links" }

// ErrLinkExists refuses a second identical link.
var ErrLinkExists = &domain.ConflictError{Code: "traceability_link_exists", Key: "error.traceability_link_exists"}

// TraceabilityCreate is the body of a new link.
type TraceabilityCreate struct {
	input.Errors
	LinkType input.Opt[string]
	Version  input.Opt[uuid.UUID]
	Revision input.Opt[int]
}

// Declare names the link's fields.
func (in *TraceabilityCreate) Declare(f *input.Fields) {
	f.Enum("link_type", &in.LinkType, input.Enum{Required: true, Values: TraceabilityLinkTypes})
	f.Ref("version", &in.Version, input.Ref{Required: true})
	f.Int("revision", &in.Revision, input.Revision(true))
}

// CreateTraceabilityLink links the item, at its current revision, to an
// approved version of the organization.
func CreateTraceabilityLink(w *work.Unit, itemID uuid.UUID, in *TraceabilityCreate) (*TraceabilityLinkView, error) {
	item, err := catalog.LockItemShared(w, itemID)
	if err != nil {
		return nil, err
	}
	var v *DocumentVersion
	if in.Version.Set() {
		if v, err = domain.LockFor[DocumentVersion](w.Context(), w.Tx(), w.Organization(), in.Version.Value, "SHARE"); errors.Is(err, domain.ErrNotFound) {
			in.Fail("version", "field.not_found")
		} else if err != nil {
			return nil, err
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	switch {
	case in.Revision.Value != item.Revision:
		return nil, domain.ErrRevisionConflict
	case item.Status == catalog.ItemArchived:
		return nil, domain.ErrItemArchived
	case v.ReviewStatus != ReviewApproved:
		return nil, ErrDocumentNotApproved.On("version", "field.document_state", v.ProcessingStatus, v.ReviewStatus)
	}
	link := &TraceabilityLink{ID: domain.NewID(), OrganizationID: w.Organization(), CatalogItemID: item.ID, DocumentVersionID: v.ID,
		DocumentID: v.DocumentID, LinkType: in.LinkType.Value, CatalogRevision: item.Revision, CreatedBy: w.Actor().UserID, CreatedAt: domain.Now()}
	res := w.Tx().Clauses(clause.OnConflict{DoNothing: true}).Create(link)
	switch {
	case res.Error != nil:
		return nil, res.Error
	case res.RowsAffected == 0:
		return nil, ErrLinkExists
	}
	w.Touch("traceability_link", link.ID)
	if err := domain.Emit(w, TraceabilityLinkCreated{ID: link.ID}); err != nil {
		return nil, err
	}
	var view TraceabilityLinkView
	return &view, withDocument(w.Tx()).Take(&view, "id = ?", link.ID).Error
}

// FindTraceabilityLink reads the link id of the organization's item
// itemID, whether or not it is valid today (ErrNotFound otherwise).
func FindTraceabilityLink(ctx context.Context, db *gorm.DB, orgID, itemID, id uuid.UUID) (*TraceabilityLinkView, error) {
	return domain.Take[TraceabilityLinkView](withDocument(domain.Tenant(ctx, db, orgID)).Where("catalog_item_id = ? AND id = ?", itemID, id))
}

// withDocument selects links with their document's title and validity.
func withDocument(q *gorm.DB) *gorm.DB {
	return q.Model(&TraceabilityLinkView{}).Select(`traceability_links.*,
		(SELECT title FROM documents d WHERE d.id = traceability_links.document_id) AS document_title,
		(SELECT valid_from FROM documents d WHERE d.id = traceability_links.document_id) AS valid_from,
		(SELECT valid_until FROM documents d WHERE d.id = traceability_links.document_id) AS valid_until`)
}

// ValidTraceabilityLinks narrows q, the organization's links, to the
// item's links valid today: the version still approved, today within its
// document's validity.
func ValidTraceabilityLinks(q *gorm.DB, itemID uuid.UUID) *gorm.DB {
	return withDocument(q).Where("catalog_item_id = ?", itemID).
		Where("document_version_id IN (?)", q.Session(&gorm.Session{NewDB: true}).Model(&DocumentVersion{}).Select("id").
			Where("review_status = ?", ReviewApproved)).
		Where(`document_id IN (?)`, q.Session(&gorm.Session{NewDB: true}).Model(&Document{}).Select("id").
			Where("(valid_from IS NULL OR valid_from <= current_date) AND (valid_until IS NULL OR valid_until >= current_date)"))
}

// ExpiredLink is a link whose document's validity has ended.
type ExpiredLink struct {
	ID             uuid.UUID `gorm:"type:uuid"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	DocumentTitle  string
	ValidUntil     time.Time
}

// expiredLinksBatch bounds one pass; the next pass takes the rest.
const expiredLinksBatch = 1000

// OpenExpiredDocumentIssues opens a document_expired issue for each
// approved link whose document's valid_until has passed, once per link,
// in every organization; it reports how many it opened.
func OpenExpiredDocumentIssues(ctx context.Context, db *gorm.DB) (int, error) {
	var links []ExpiredLink
	err := db.WithContext(ctx).Raw(`SELECT l.id, l.organization_id, l.catalog_item_id, d.title AS document_title, d.valid_until
		FROM traceability_links l
		JOIN documents d ON d.id = l.document_id
		JOIN document_versions v ON v.id = l.document_version_id
		WHERE v.review_status = ? AND d.valid_until < current_date
		  AND NOT EXISTS (SELECT 1 FROM compliance_issues i WHERE i.subject_id = l.id AND i.kind = ?)
		ORDER BY l.organization_id LIMIT ?`, ReviewApproved, domain.IssueDocumentExpired, expiredLinksBatch).Scan(&links).Error
	if err != nil {
		return 0, err
	}
	opened := 0
	for start := 0; start < len(links); {
		org := links[start].OrganizationID
		w := work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org, Reference: "housekeeping"})
		end := start
		for ; end < len(links) && links[end].OrganizationID == org; end++ {
			l := links[end]
			ok, err := domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueDocumentExpired, Severity: domain.SeverityHigh, SubjectType: "traceability_link",
				SubjectID: l.ID, CatalogItemID: &l.CatalogItemID, MessageKey: "issue.document_expired",
				MessageArgs: []any{l.DocumentTitle, l.ValidUntil.Format(time.DateOnly)}})
			if err != nil {
				w.Rollback()
				return opened, err
			}
			if ok {
				opened++
			}
		}
		if err := domain.Commit(w, domain.AuditEntry{Operation: "openExpiredDocumentIssues"}); err != nil {
			return opened, err
		}
		start = end
	}
	return opened, nil
}
