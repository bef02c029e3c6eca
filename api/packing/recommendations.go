package packing

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

func (h *handlers) recommendations() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("recommendPacking", kit.Org+"/packing-recommendations", tag, a.FlowsRead, a.CatalogView).NotIdempotent().WithRate(kit.RateRecommendations),
	}}
}
