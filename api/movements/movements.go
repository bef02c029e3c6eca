// Package movements is the spec's "Physical movements and reporting flows"
// area: supply events and reporting flows.
// It is not built yet: its operations answer 501 after authentication.
package movements

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "movements"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.List("listSupplyEvents", kit.Org+"/catalog-items/{catalogItemId}/supply-events", tag, a.FlowsRead, a.CatalogView),
	kit.Get("getSupplyEvent", kit.Org+"/catalog-items/{catalogItemId}/supply-events/{recordId}", tag, a.FlowsRead, a.CatalogView),
	kit.Post("createSupplyEvent", kit.Org+"/catalog-items/{catalogItemId}/supply-events", tag, a.FlowsWrite, a.CatalogUpdate),
	kit.Get("getSupplySummary", kit.Org+"/catalog-items/{catalogItemId}/supply-summary", tag, a.FlowsRead, a.CatalogView),
	kit.List("listFlows", kit.Org+"/flows", tag, a.FlowsRead, a.ReportsView),
	kit.Get("getFlow", kit.Org+"/flows/{recordId}", tag, a.FlowsRead, a.ReportsView),
	kit.Post("createFlow", kit.Org+"/flows", tag, a.FlowsWrite, a.ReportsExport),
)
