// Package ppwr is the spec's other PPWR documentary operations: reuse systems
// and statistics, deposit schemes, authority requests, EPR reports and
// refill stations.
// It is not built yet: its operations answer 501 after authentication.
//
// The spec names these operations only in workflow lists, without their
// abilities and permissions; they follow the nearest documented area (see
// the README, "Choices where the spec is silent").
package ppwr

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "ppwr"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.List("listRefillStations", kit.Org+"/ppwr/refill-stations", tag, a.PPWRRead, a.ReportsView),
	kit.Post("createReuseSystem", kit.Org+"/ppwr/reuse-systems", tag, a.PPWRWrite, a.CatalogUpdate),
	kit.Get("getReuseStatistics", kit.Org+"/ppwr/reuse-statistics", tag, a.PPWRRead, a.ReportsView),
	kit.Post("createDepositScheme", kit.Org+"/ppwr/deposit-schemes", tag, a.PPWRWrite, a.CatalogUpdate),
	kit.Get("getDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}", tag, a.PPWRRead, a.CatalogView),
	kit.Post("reviewDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
	kit.Post("createAuthorityRequest", kit.Org+"/ppwr/authority-requests", tag, a.PPWRWrite, a.CatalogUpdate),
	kit.Get("getAuthorityRequest", kit.Org+"/ppwr/authority-requests/{recordId}", tag, a.PPWRRead, a.CatalogView),
	kit.Post("createEPRReport", kit.Org+"/ppwr/epr-reports", tag, a.ReportsRun, a.ReportsExport),
	kit.Post("createEPRReportLine", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRun, a.ReportsExport),
	kit.List("listEPRReportLines", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRead, a.ReportsView),
	kit.Post("reviewEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
	kit.Get("exportEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/export", tag, a.ReportsRead, a.ReportsExport),
	kit.Post("createRefillStation", kit.Org+"/ppwr/refill-stations", tag, a.PPWRWrite, a.CatalogUpdate),
)
