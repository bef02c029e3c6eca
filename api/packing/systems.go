package packing

import (
	"net/http"

	"ppwr/api/kit"
	a "ppwr/internal/access"
)

func (h *handlers) systems() kit.Area {
	system := kit.Org + "/packaging-systems/{recordId}"
	return kit.Area{Operations: []kit.Operation{
		kit.List("listPackagingSystems", kit.Org+"/packaging-systems", tag, a.CatalogRead, a.CatalogView).WithQuery(kit.QueryParam("archived", kit.Bool())),
		kit.Post("createPackagingSystem", kit.Org+"/packaging-systems", tag, a.CatalogWrite, a.CatalogCreate),
		kit.Get("getPackagingSystem", system, tag, a.CatalogRead, a.CatalogView),
		kit.Write(http.MethodPut, "updatePackagingSystem", system, tag, a.CatalogWrite, a.CatalogUpdate),
		kit.Post("archivePackagingSystem", system+"/archive", tag, a.CatalogWrite, a.CatalogArchive),
		kit.Post("restorePackagingSystem", system+"/restore", tag, a.CatalogWrite, a.CatalogArchive),
		kit.Get("getPackagingSystemConfiguration", system+"/configuration", tag, a.CatalogRead, a.CatalogView),
		kit.Post("upsertPackagingSystemLine", system+"/items", tag, a.CatalogWrite, a.CatalogUpdate),
		kit.Write(http.MethodDelete, "deletePackagingSystemLine", system+"/items/{lineId}", tag, a.CatalogWrite, a.CatalogUpdate),
		kit.List("listPackagingSystemLines", kit.Org+"/packaging-systems/{systemId}/items", tag, a.CatalogRead, a.CatalogView),
	}}
}
