package documents

import (
	"github.com/google/uuid"

	"ppwr/domain"
)

type EvidenceProposalCreated domain.RecordCreated

type TraceabilityLinkCreated domain.RecordCreated

type GeneratedDocumentCreated domain.RecordCreated

func (EvidenceProposalCreated) EventType() string { return "evidence_proposal.created" }

func (TraceabilityLinkCreated) EventType() string { return "traceability_link.created" }

func (GeneratedDocumentCreated) EventType() string { return "generated_document.created" }

type DocumentVersionCreated domain.RecordStatus

type DocumentVersionProcessed domain.RecordStatus

type DocumentVersionQuarantined domain.RecordStatus

type DocumentVersionDecided domain.RecordStatus

type EvidenceProposalDecided domain.RecordStatus

func (DocumentVersionCreated) EventType() string { return "document_version.created" }

func (DocumentVersionProcessed) EventType() string { return "document_version.processed" }

func (DocumentVersionQuarantined) EventType() string { return "document_version.quarantined" }

func (DocumentVersionDecided) EventType() string { return "document_version.decided" }

func (EvidenceProposalDecided) EventType() string { return "evidence_proposal.decided" }

// AnalysisCompletedEvent announces that a version's latest analysis run
// ended, with how many proposals it holds (none is an answer too).
type AnalysisCompletedEvent struct {
	ID            uuid.UUID `json:"id"`
	Run           int       `json:"run"`
	ProposalCount int       `json:"proposal_count"`
}

func (AnalysisCompletedEvent) EventType() string { return "analysis.completed" }
