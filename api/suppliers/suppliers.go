// Package suppliers is the spec's "Supplier collaboration" area: issues,
// supplier requests and their lines.
// It is not built yet: its operations answer 501 after authentication.
package suppliers

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "suppliers"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.List("listIssues", kit.Org+"/issues", tag, a.SupplierRequestsRead, a.IssuesManage),
	kit.Get("getIssue", kit.Org+"/issues/{recordId}", tag, a.SupplierRequestsRead, a.IssuesManage),
	kit.List("listSupplierRequests", kit.Org+"/supplier-requests", tag, a.SupplierRequestsRead, a.SupplierRequestsView),
	kit.Get("getSupplierRequest", kit.Org+"/supplier-requests/{recordId}", tag, a.SupplierRequestsRead, a.SupplierRequestsView),
	kit.List("listSupplierRequestLines", kit.Org+"/supplier-requests/{requestId}/lines", tag, a.SupplierRequestsRead, a.SupplierRequestsView),
	kit.Post("createSupplierRequest", kit.Org+"/supplier-requests", tag, a.SupplierRequestsWrite, a.SupplierRequestsCreate),
	kit.Post("sendSupplierRequest", kit.Org+"/supplier-requests/{recordId}/send", tag, a.SupplierRequestsWrite, a.SupplierRequestsSend),
	kit.Post("cancelSupplierRequest", kit.Org+"/supplier-requests/{recordId}/cancel", tag, a.SupplierRequestsWrite, a.SupplierRequestsSend),
	kit.Post("reviewSupplierRequestLine", kit.Org+"/supplier-requests/{recordId}/lines/{lineId}/review", tag, a.SupplierRequestsWrite, a.EvidenceReviewPerm),
)
