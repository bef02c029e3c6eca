// Package packing is the spec's "Order packing and inventory" area: packing
// sets (recipes), reservations, set and packing consumptions,
// recommendations and the stock balance.
// It is not built yet: its operations answer 501 after authentication.
package packing

import (
	"net/http"

	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "packing"

var archived = kit.QueryParam("archived", kit.Bool())

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.Get("getInventory", kit.Org+"/catalog-items/{catalogItemId}/inventory", tag, a.FlowsRead, a.CatalogView).WithQuery(kit.QueryParam("data_version", kit.UUID())),
	kit.List("listPackagingSystems", kit.Org+"/packaging-systems", tag, a.CatalogRead, a.CatalogView).WithQuery(archived),
	kit.Post("createPackagingSystem", kit.Org+"/packaging-systems", tag, a.CatalogWrite, a.CatalogCreate),
	kit.Get("getPackagingSystem", kit.Org+"/packaging-systems/{recordId}", tag, a.CatalogRead, a.CatalogView),
	kit.Write(http.MethodPut, "updatePackagingSystem", kit.Org+"/packaging-systems/{recordId}", tag, a.CatalogWrite, a.CatalogUpdate),
	kit.Post("archivePackagingSystem", kit.Org+"/packaging-systems/{recordId}/archive", tag, a.CatalogWrite, a.CatalogArchive),
	kit.Post("restorePackagingSystem", kit.Org+"/packaging-systems/{recordId}/restore", tag, a.CatalogWrite, a.CatalogArchive),
	kit.Get("getPackagingSystemConfiguration", kit.Org+"/packaging-systems/{recordId}/configuration", tag, a.CatalogRead, a.CatalogView),
	kit.Post("consumePackagingSystem", kit.Org+"/packaging-systems/{recordId}/consumptions", tag, a.FlowsWrite, a.CatalogUpdate),
	kit.Post("upsertPackagingSystemLine", kit.Org+"/packaging-systems/{recordId}/items", tag, a.CatalogWrite, a.CatalogUpdate),
	kit.Write(http.MethodDelete, "deletePackagingSystemLine", kit.Org+"/packaging-systems/{recordId}/items/{lineId}", tag, a.CatalogWrite, a.CatalogUpdate),
	kit.Post("createReservation", kit.Org+"/packaging-systems/{recordId}/reservations", tag, a.FlowsWrite, a.CatalogUpdate),
	kit.List("listPackagingSystemLines", kit.Org+"/packaging-systems/{systemId}/items", tag, a.CatalogRead, a.CatalogView),
	kit.List("listPackagingSystemUsages", kit.Org+"/packaging-systems/{systemId}/usages", tag, a.FlowsRead, a.CatalogView),
	kit.Post("createPackingConsumption", kit.Org+"/packing-consumptions", tag, a.FlowsWrite, a.CatalogUpdate),
	kit.Post("recommendPacking", kit.Org+"/packing-recommendations", tag, a.FlowsRead, a.CatalogView).NotIdempotent().WithRate(kit.RateRecommendations),
	kit.List("listReservations", kit.Org+"/packing-reservations", tag, a.FlowsRead, a.CatalogView),
	kit.Get("getReservation", kit.Org+"/packing-reservations/{recordId}", tag, a.FlowsRead, a.CatalogView),
	kit.Post("consumeReservation", kit.Org+"/packing-reservations/{recordId}/consume", tag, a.FlowsWrite, a.CatalogUpdate),
	kit.Post("releaseReservation", kit.Org+"/packing-reservations/{recordId}/release", tag, a.FlowsWrite, a.CatalogUpdate),
)
