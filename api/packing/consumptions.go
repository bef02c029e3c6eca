package packing

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

func (h *handlers) consumptions() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("consumePackagingSystem", kit.Org+"/packaging-systems/{recordId}/consumptions", tag, a.FlowsWrite, a.CatalogUpdate),
		kit.List("listPackagingSystemUsages", kit.Org+"/packaging-systems/{systemId}/usages", tag, a.FlowsRead, a.CatalogView),
		kit.Post("createPackingConsumption", kit.Org+"/packing-consumptions", tag, a.FlowsWrite, a.CatalogUpdate),
	}}
}
