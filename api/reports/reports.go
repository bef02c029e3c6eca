// Package reports is the spec's reports.
// It is not built yet: its operations answer 501 after authentication.
//
// The spec names these operations only in workflow lists, without their
// abilities and permissions; they follow the nearest documented area (see
// the README, "Choices where the spec is silent").
package reports

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "reports"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.Post("createReport", kit.Org+"/reports", tag, a.ReportsRun, a.ReportsExport),
	kit.Get("getReport", kit.Org+"/reports/{recordId}", tag, a.ReportsRead, a.ReportsView),
	kit.Get("downloadReport", kit.Org+"/reports/{recordId}/download", tag, a.ReportsRead, a.ReportsExport),
)
