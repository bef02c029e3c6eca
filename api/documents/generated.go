package documents

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

// generated declares documents the service renders from an item's data.
func (h *handlers) generated() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("generateDocument", kit.Org+"/catalog-items/{catalogItemId}/generated-documents", tag, a.DocumentsUpload, a.DocumentsUploadPerm),
	}}
}
