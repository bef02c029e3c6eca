package packing

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

func (h *handlers) reservations() kit.Area {
	reservation := kit.Org + "/packing-reservations/{recordId}"
	return kit.Area{Operations: []kit.Operation{
		kit.Post("createReservation", kit.Org+"/packaging-systems/{recordId}/reservations", tag, a.FlowsWrite, a.CatalogUpdate),
		kit.List("listReservations", kit.Org+"/packing-reservations", tag, a.FlowsRead, a.CatalogView),
		kit.Get("getReservation", reservation, tag, a.FlowsRead, a.CatalogView),
		kit.Post("consumeReservation", reservation+"/consume", tag, a.FlowsWrite, a.CatalogUpdate),
		kit.Post("releaseReservation", reservation+"/release", tag, a.FlowsWrite, a.CatalogUpdate),
	}}
}
