// Package documents is the spec's "Files, evidence and links" area:
// documents and their versions, review, analysis, evidence proposals,
// traceability links and generated documents. Each part declares its
// operations in its own file.
package documents

import (
	"ppwr/api/kit"
)

const tag = "documents"

type handlers struct{ kit.Deps }

// Area declares the area's operations, models and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Join(h.files(), h.review(), h.evidence(), h.traceability(), h.generated())
}
