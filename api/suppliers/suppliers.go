// Package suppliers is the spec's "Supplier collaboration" area: supplier
// requests with their lines, and the compliance issues the service opens.
// Each part declares its operations in its own file.
package suppliers

import (
	"ppwr/api/kit"
)

const tag = "suppliers"

type handlers struct{ kit.Deps }

// Area declares the area's operations, models and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Join(h.issues(), h.requests())
}
