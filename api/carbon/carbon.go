// Package carbon is the spec's carbon factors and calculations.
// It is not built yet: its operations answer 501 after authentication.
package carbon

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "carbon"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.List("listCarbonCalculations", kit.Org+"/carbon-calculations", tag, a.ReportsRead, a.ReportsView).WithQuery(kit.QueryParam("subject", kit.UUID()), kit.QueryParam("type", kit.Enum("item", "system"))),
	kit.Post("createCarbonCalculation", kit.Org+"/carbon-calculations", tag, a.ReportsRun, a.ReportsExport),
	kit.Get("getCarbonCalculation", kit.Org+"/carbon-calculations/{recordId}", tag, a.ReportsRead, a.ReportsView),
	kit.List("listCarbonFactors", kit.Org+"/carbon-factors", tag, a.ReportsRead, a.ReportsView).WithQuery(kit.QueryParam("active", kit.Bool())),
	kit.Post("createCarbonFactor", kit.Org+"/carbon-factors", tag, a.ReportsRun, a.ReportsExport),
	kit.Get("getCarbonFactorReference", kit.Org+"/carbon-factors/reference", tag, a.ReportsRead, a.ReportsView),
	kit.Get("getCarbonFactor", kit.Org+"/carbon-factors/{recordId}", tag, a.ReportsRead, a.ReportsView),
	kit.Post("archiveCarbonFactor", kit.Org+"/carbon-factors/{recordId}/archive", tag, a.ReportsRun, a.ReportsExport),
)
