package documents

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

var item = kit.QueryParam("item", kit.UUID())

// evidence declares evidence proposals and their decisions.
func (h *handlers) evidence() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("createEvidenceProposal", kit.Org+"/document-versions/{recordId}/evidence-proposals", tag, a.EvidenceReview, a.EvidenceReviewPerm),
		kit.List("listEvidenceProposals", kit.Org+"/evidence-proposals", tag, a.EvidenceReview, a.EvidenceReviewPerm).WithQuery(item),
		kit.Get("getEvidenceProposal", kit.Org+"/evidence-proposals/{recordId}", tag, a.EvidenceReview, a.EvidenceReviewPerm),
		kit.Post("decideEvidenceProposal", kit.Org+"/evidence-proposals/{proposalId}/decision", tag, a.EvidenceReview, a.EvidenceReviewPerm).NotIdempotent(),
	}}
}
