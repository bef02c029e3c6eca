// Package documents is the spec's "Files, evidence and links" area: documents
// and their versions, review, analysis, evidence proposals, traceability
// links and generated documents.
// It is not built yet: its operations answer 501 after authentication.
package documents

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "documents"

var item = kit.QueryParam("item", kit.UUID())

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.Post("uploadDocument", kit.Org+"/documents", tag, a.DocumentsUpload, a.DocumentsUploadPerm),
	kit.List("listDocuments", kit.Org+"/documents", tag, a.DocumentsRead, a.DocumentsView),
	kit.Get("getDocument", kit.Org+"/documents/{recordId}", tag, a.DocumentsRead, a.DocumentsView),
	kit.List("listDocumentVersions", kit.Org+"/documents/{documentId}/versions", tag, a.DocumentsRead, a.DocumentsView),
	kit.Post("uploadDocumentVersion", kit.Org+"/documents/{recordId}/versions", tag, a.DocumentsUpload, a.DocumentsUploadPerm),
	kit.Get("getDocumentVersion", kit.Org+"/document-versions/{recordId}", tag, a.DocumentsRead, a.DocumentsView),
	kit.Get("downloadDocumentVersion", kit.Org+"/document-versions/{recordId}/download", tag, a.DocumentsRead, a.DocumentsView),
	kit.Post("analyzeDocumentVersion", kit.Org+"/document-versions/{recordId}/analyze", tag, a.EvidenceReview, a.EvidenceReviewPerm),
	// The decision also needs documents.approve or documents.revoke,
	// depending on the decision in the body; the handler checks that.
	kit.Post("decideDocumentVersion", kit.Org+"/document-versions/{recordId}/decision", tag, a.DocumentsReview, a.DocumentsView),
	kit.Post("createEvidenceProposal", kit.Org+"/document-versions/{recordId}/evidence-proposals", tag, a.EvidenceReview, a.EvidenceReviewPerm),
	kit.List("listEvidenceProposals", kit.Org+"/evidence-proposals", tag, a.EvidenceReview, a.EvidenceReviewPerm).WithQuery(item),
	kit.Get("getEvidenceProposal", kit.Org+"/evidence-proposals/{recordId}", tag, a.EvidenceReview, a.EvidenceReviewPerm),
	kit.Post("decideEvidenceProposal", kit.Org+"/evidence-proposals/{proposalId}/decision", tag, a.EvidenceReview, a.EvidenceReviewPerm).NotIdempotent(),
	kit.List("listTraceabilityLinks", kit.Org+"/catalog-items/{catalogItemId}/traceability", tag, a.DocumentsRead, a.DocumentsView),
	kit.Post("createTraceabilityLink", kit.Org+"/catalog-items/{catalogItemId}/traceability", tag, a.EvidenceReview, a.EvidenceReviewPerm),
	kit.Post("generateDocument", kit.Org+"/catalog-items/{catalogItemId}/generated-documents", tag, a.DocumentsUpload, a.DocumentsUploadPerm),
)
