// Package suppliers is the spec's "Supplier collaboration" area: supplier
// requests with their lines, and the compliance issues the service opens.
// Each part declares its operations in its own file.
package suppliers

import (
	"maps"

	"ppwr/api/kit"
)

const tag = "suppliers"

type handlers struct{ kit.Deps }

// Area declares the area's operations, schemas and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	area := kit.Area{Schemas: map[string]kit.Schema{}}
	for _, part := range []kit.Area{h.issues(), h.requests()} {
		area.Operations = append(area.Operations, part.Operations...)
		maps.Copy(area.Schemas, part.Schemas)
	}
	return area
}
