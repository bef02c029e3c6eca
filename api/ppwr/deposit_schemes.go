package ppwr

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

// depositSchemes is the record of the deposit-return schemes an item takes
// part in (PPWR Art. 50).
func (h *handlers) depositSchemes() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("createDepositScheme", kit.Org+"/ppwr/deposit-schemes", tag, a.PPWRWrite, a.CatalogUpdate),
		kit.Get("getDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}", tag, a.PPWRRead, a.CatalogView),
		kit.Post("reviewDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
	}}
}
