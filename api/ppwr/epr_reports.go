package ppwr

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

// eprReports is the annual EPR reports per Member State (PPWR Art. 44(7)
// and (8)).
func (h *handlers) eprReports() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("createEPRReport", kit.Org+"/ppwr/epr-reports", tag, a.ReportsRun, a.ReportsExport),
		kit.Post("createEPRReportLine", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRun, a.ReportsExport),
		kit.List("listEPRReportLines", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRead, a.ReportsView),
		kit.Post("reviewEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
		kit.Get("exportEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/export", tag, a.ReportsRead, a.ReportsExport),
	}}
}
