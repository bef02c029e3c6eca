package documents

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

// traceability declares the links from packaging items to approved
// document versions.
func (h *handlers) traceability() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.List("listTraceabilityLinks", kit.Org+"/catalog-items/{catalogItemId}/traceability", tag, a.DocumentsRead, a.DocumentsView),
		kit.Post("createTraceabilityLink", kit.Org+"/catalog-items/{catalogItemId}/traceability", tag, a.EvidenceReview, a.EvidenceReviewPerm),
	}}
}
