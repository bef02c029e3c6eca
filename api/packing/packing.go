// Package packing is the spec's "Order packing and inventory" area: packing
// sets (recipes), reservations, set and packing consumptions,
// recommendations and the stock balance. Each part declares its
// operations in its own file.
package packing

import (
	"maps"

	"ppwr/api/kit"
)

const tag = "packing"

type handlers struct{ kit.Deps }

// Area declares the area's operations, schemas and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	area := kit.Area{Schemas: map[string]kit.Schema{}}
	for _, part := range []kit.Area{h.inventory(), h.systems(), h.consumptions(), h.reservations(), h.recommendations()} {
		area.Operations = append(area.Operations, part.Operations...)
		maps.Copy(area.Schemas, part.Schemas)
		area.Codes = append(area.Codes, part.Codes...)
	}
	return area
}
