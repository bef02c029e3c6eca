// Package bdo is the spec's BDO area: the Polish annual packaging report's
// source data, classifications, report runs and their downloads.
// It is not built yet: its operations answer 501 after authentication.
package bdo

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "bdo"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.Get("listBDOSources", kit.Org+"/bdo-reports/sources", tag, a.ReportsRead, a.ReportsView).WithQuery(kit.RequiredQueryParam("year", kit.Schema{"type": "integer", "minimum": 2024, "maximum": 2026}), kit.QueryParam("page", kit.Schema{"type": "integer", "minimum": 1, "default": 1}), kit.QueryParam("per_page", kit.Schema{"type": "integer", "minimum": 1, "maximum": kit.MaxPerPage, "default": kit.DefaultPerPage})),
	kit.Post("classifyBDOSources", kit.Org+"/bdo-reports/classifications", tag, a.ReportsRun, a.ReportsExport),
	kit.Post("createBDOReport", kit.Org+"/bdo-reports", tag, a.ReportsRun, a.ReportsExport),
	kit.Get("getBDOReport", kit.Org+"/bdo-reports/{recordId}", tag, a.ReportsRead, a.ReportsView),
	kit.Get("downloadBDOReport", kit.Org+"/bdo-reports/{recordId}/download", tag, a.ReportsRead, a.ReportsExport).WithQuery(kit.QueryParam("format", kit.Enum("xlsx", "json"))),
)
