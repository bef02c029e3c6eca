package packing

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

func (h *handlers) inventory() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Get("getInventory", kit.Org+"/catalog-items/{catalogItemId}/inventory", tag, a.FlowsRead, a.CatalogView).WithQuery(kit.QueryParam("data_version", kit.UUID())),
	}}
}
