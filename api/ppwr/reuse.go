package ppwr

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

// reuse is re-use systems and their statistics (PPWR Art. 26-31,
// Annex VI).
func (h *handlers) reuse() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("createReuseSystem", kit.Org+"/ppwr/reuse-systems", tag, a.PPWRWrite, a.CatalogUpdate),
		kit.Get("getReuseStatistics", kit.Org+"/ppwr/reuse-statistics", tag, a.PPWRRead, a.ReportsView),
	}}
}
