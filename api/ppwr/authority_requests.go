package ppwr

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

// authorityRequests is reasoned requests of market surveillance
// authorities and the documentation bundles answering them (rule R38).
func (h *handlers) authorityRequests() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("createAuthorityRequest", kit.Org+"/ppwr/authority-requests", tag, a.PPWRWrite, a.CatalogUpdate),
		kit.Get("getAuthorityRequest", kit.Org+"/ppwr/authority-requests/{recordId}", tag, a.PPWRRead, a.CatalogView),
	}}
}
