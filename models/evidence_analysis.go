package models

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm/clause"

	"ppwr/internal/measure"
	"ppwr/internal/work"
)

// EvidenceProposal is a value proposed from a document version, citing
// its page and quotation. (Scaffolding until the evidence branch lands.)
type EvidenceProposal struct {
	ID                uuid.UUID  `gorm:"type:uuid;primaryKey"`
	OrganizationID    uuid.UUID  `gorm:"type:uuid"`
	DocumentVersionID uuid.UUID  `gorm:"type:uuid"`
	CatalogItemID     uuid.UUID  `gorm:"type:uuid"`
	ComponentID       *uuid.UUID `gorm:"type:uuid"`
	Code              string
	Value             decimal.Decimal
	Unit              string
	SourcePage        int
	SourceText        string
	Origin            string
	AnalysisRun       *int
	Status            string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// ProposeFindings records what an analysis run found in a version's text
// as open proposals about its document's item. A finding the run already
// proposed (a retried activity) is skipped. It returns how many
// proposals the run holds.
func ProposeFindings(w *work.Unit, v *DocumentVersion, run int, found []measure.Finding) (int, error) {
	doc, err := Find[Document](w.Context(), w.Tx(), w.Organization(), v.DocumentID)
	if err != nil || doc.CatalogItemID == nil {
		return 0, err
	}
	var created []EvidenceProposal
	for _, f := range found {
		p := EvidenceProposal{ID: NewID(), OrganizationID: v.OrganizationID, DocumentVersionID: v.ID, CatalogItemID: *doc.CatalogItemID,
			Code: f.Code, Value: f.Value, Unit: f.Unit, SourcePage: f.Page, SourceText: f.SourceText,
			Origin: "analysis", AnalysisRun: &run, Status: "open", CreatedAt: now()}
		p.UpdatedAt = p.CreatedAt
		res := w.Tx().Clauses(clause.OnConflict{DoNothing: true}).Create(&p)
		if res.Error != nil {
			return 0, res.Error
		}
		if res.RowsAffected == 1 {
			created = append(created, p)
		}
	}
	for _, p := range created {
		if err := Emit(w, EvidenceProposalCreated{ID: p.ID}); err != nil {
			return 0, err
		}
	}
	w.Touch("document_version", v.ID)
	var total int64
	err = w.Tx().Model(&EvidenceProposal{}).Where("document_version_id = ? AND analysis_run = ?", v.ID, run).Count(&total).Error
	return int(total), err
}
