package documents

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	a "ppwr/internal/access"
	"ppwr/internal/input"
)

// evidence declares evidence proposals and their decisions.
func (h *handlers) evidence() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createEvidenceProposal", kit.Org+"/document-versions/{recordId}/evidence-proposals", tag, a.EvidenceReview, a.EvidenceReviewPerm).
				Answers(documents.ErrDocumentNotAnalyzable).
				Handle(kit.JSON(h.createProposal), kit.CreatedResponse(kit.Ref("EvidenceProposal"), "getEvidenceProposal")),
			kit.List("listEvidenceProposals", kit.Org+"/evidence-proposals", tag, a.EvidenceReview, a.EvidenceReviewPerm).
				Handle(kit.Query(h.listProposals), kit.ListOK("EvidenceProposal")),
			kit.Get("getEvidenceProposal", kit.Org+"/evidence-proposals/{recordId}", tag, a.EvidenceReview, a.EvidenceReviewPerm).
				Handle(kit.Do(h.getProposal), kit.OK(kit.Ref("EvidenceProposal"))),
			// A retry after a timeout reads the proposal first, as the spec
			// advises: a decided proposal shows its outcome.
			kit.Post("decideEvidenceProposal", kit.Org+"/evidence-proposals/{proposalId}/decision", tag, a.EvidenceReview, a.EvidenceReviewPerm).
				NotIdempotent().
				Answers(documents.ErrProposalDecided, domain.ErrRevisionConflict).
				Handle(kit.JSON(kit.Change("proposalId", documents.DecideProposal, proposalToJSON)), kit.OK(kit.Ref("EvidenceProposal"))),
		},
		Models: []kit.Model{kit.ModelOf[proposalJSON]("EvidenceProposal")},
	}
}

type proposalJSON struct {
	ID               uuid.UUID        `json:"id"`
	DocumentVersion  uuid.UUID        `json:"document_version"`
	CatalogItem      uuid.UUID        `json:"catalog_item"`
	Component        *uuid.UUID       `json:"component"`
	Code             string           `json:"code"`
	Value            decimal.Decimal  `json:"value"`
	Unit             string           `json:"unit"`
	Method           *string          `json:"method"`
	Result           *string          `json:"result"`
	LaboratoryReport *uuid.UUID       `json:"laboratory_report"`
	SourcePage       int              `json:"source_page"`
	SourceText       string           `json:"source_text"`
	Origin           string           `json:"origin"`
	AnalysisRun      *int             `json:"analysis_run"`
	Status           string           `json:"status"`
	Note             *string          `json:"note"`
	AcceptedValue    *decimal.Decimal `json:"accepted_value"`
	DecidedBy        *uuid.UUID       `json:"decided_by"`
	DecidedAt        *time.Time       `json:"decided_at"`
	Revision         int              `json:"revision"`
	CreatedAt        time.Time        `json:"created_at"`
	UpdatedAt        time.Time        `json:"updated_at"`
}

func (proposalJSON) Declare(s *kit.Shape) {
	s.Enum("code", documents.EvidenceCodeNames()...)
	s.Enum("origin", documents.OriginAnalysis, documents.OriginManual)
	s.Enum("status", documents.ProposalStatuses...)
}

func proposalToJSON(p *documents.EvidenceProposal) proposalJSON {
	out := proposalJSON{ID: p.ID, DocumentVersion: p.DocumentVersionID, CatalogItem: p.CatalogItemID, Component: p.ComponentID,
		Code: p.Code, Value: p.Value, Unit: p.Unit, Method: p.Method, Result: p.Result, LaboratoryReport: p.LaboratoryReportVersionID,
		SourcePage: p.SourcePage, SourceText: p.SourceText, Origin: p.Origin, AnalysisRun: p.AnalysisRun, Status: p.Status,
		Note: p.DecisionNote, DecidedBy: p.DecidedBy, DecidedAt: kit.UTC(p.DecidedAt), Revision: p.Revision,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
	if p.AcceptedValue.Valid {
		out.AcceptedValue = &p.AcceptedValue.Decimal
	}
	return out
}

func (h *handlers) createProposal(c *gin.Context, in *documents.ProposalCreate) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	p, err := documents.CreateProposal(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	return kit.Created(c, p.ID, proposalToJSON(p))
}

// proposalQuery filters proposals.
type proposalQuery struct {
	input.Errors
	Item            input.Opt[uuid.UUID]
	DocumentVersion input.Opt[uuid.UUID]
	Status          input.Opt[string]
}

func (q *proposalQuery) Declare(f *input.Fields) {
	f.Ref("item", &q.Item, input.Ref{})
	f.Ref("document_version", &q.DocumentVersion, input.Ref{})
	f.Enum("status", &q.Status, input.Enum{Values: documents.ProposalStatuses})
}

func (h *handlers) listProposals(c *gin.Context, q *proposalQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&documents.EvidenceProposal{})
	db = kit.Filter(kit.Filter(kit.Filter(db, "catalog_item_id", q.Item), "document_version_id", q.DocumentVersion), "status", q.Status)
	return kit.Paginate(c, db, kit.OldestFirst, proposalToJSON)
}

func (h *handlers) getProposal(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", proposalToJSON)
}
