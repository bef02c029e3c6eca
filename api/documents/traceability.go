package documents

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	a "ppwr/internal/access"
)

// traceability declares the links from packaging items to approved
// document versions.
func (h *handlers) traceability() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listTraceabilityLinks", kit.Org+"/catalog-items/{catalogItemId}/traceability", tag, a.DocumentsRead, a.DocumentsView).
				Handle(kit.Do(h.listLinks), kit.ListOK("TraceabilityLink")),
			kit.Post("createTraceabilityLink", kit.Org+"/catalog-items/{catalogItemId}/traceability", tag, a.EvidenceReview, a.EvidenceReviewPerm).
				Answers(domain.ErrItemArchived, documents.ErrDocumentNotApproved, documents.ErrLinkExists, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.createLink), kit.CreatedResponse(kit.Ref("TraceabilityLink"), "getTraceabilityLink")),
			kit.Get("getTraceabilityLink", kit.Org+"/catalog-items/{catalogItemId}/traceability/{recordId}", tag, a.DocumentsRead, a.DocumentsView).
				Handle(kit.Do(h.getLink), kit.OK(kit.Ref("TraceabilityLink"))),
		},
		Models: []kit.Model{kit.ModelOf[linkJSON]("TraceabilityLink")},
	}
}

type linkJSON struct {
	ID              uuid.UUID  `json:"id"`
	CatalogItem     uuid.UUID  `json:"catalog_item"`
	Version         uuid.UUID  `json:"version"`
	Document        uuid.UUID  `json:"document"`
	LinkType        string     `json:"link_type"`
	CatalogRevision int        `json:"catalog_revision"`
	DocumentTitle   string     `json:"document_title"`
	ValidFrom       *string    `json:"valid_from" schema:"date"`
	ValidUntil      *string    `json:"valid_until" schema:"date"`
	CreatedBy       *uuid.UUID `json:"created_by"`
	CreatedAt       time.Time  `json:"created_at"`
}

func (linkJSON) Declare(s *kit.Shape) { s.Enum("link_type", documents.TraceabilityLinkTypes...) }

func linkToJSON(l *documents.TraceabilityLinkView) linkJSON {
	return linkJSON{ID: l.ID, CatalogItem: l.CatalogItemID, Version: l.DocumentVersionID, Document: l.DocumentID,
		LinkType: l.LinkType, CatalogRevision: l.CatalogRevision, DocumentTitle: l.DocumentTitle,
		ValidFrom: kit.Day(l.ValidFrom), ValidUntil: kit.Day(l.ValidUntil), CreatedBy: l.CreatedBy, CreatedAt: l.CreatedAt.UTC()}
}

func (h *handlers) createLink(c *gin.Context, in *documents.TraceabilityCreate) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	l, err := documents.CreateTraceabilityLink(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	return kit.Created(c, l.ID, linkToJSON(l))
}

// listLinks pages through the item's links valid today.
func (h *handlers) listLinks(c *gin.Context) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	if _, err := domain.Find[catalog.CatalogItem](ctx, h.DB, org, id); err != nil {
		return err
	}
	return kit.Paginate(c, documents.ValidTraceabilityLinks(domain.Tenant(ctx, h.DB, org), id), kit.OldestFirst, linkToJSON)
}

// getLink answers one link of the path's item, valid today or not: the
// list shows what counts today, the read what was linked (a document
// whose validity starts later is still linked).
func (h *handlers) getLink(c *gin.Context) error {
	return kit.ShowOf(c, h.DB, "catalogItemId", "recordId", documents.FindTraceabilityLink, linkToJSON)
}
