// Package ppwr is the spec's other PPWR documentary operations: refill
// stations, reuse systems and statistics, deposit schemes, authority
// requests and EPR reports, each in a file of its own.
//
// The spec names these operations only in workflow lists, without their
// abilities, permissions and bodies; they follow the nearest documented
// area (see the README, "Choices where the spec is silent").
package ppwr

import (
	"ppwr/api/kit"
)

const tag = "ppwr"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Join(h.refillStations(), h.reuse(), h.depositSchemes(), h.authorityRequests(), h.eprReports())
}
