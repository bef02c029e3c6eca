// Package catalog is the spec's "Packaging catalogue and structure" area:
// catalogue items with their components, data versions and markets, and
// the folders, families and parties that structure them.
package catalog

import (
	"net/http"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	a "ppwr/internal/access"
)

const tag = "catalog"

type handlers struct{ kit.Deps }

// Area declares the catalogue's operations, models and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	item := "/catalog-items/{catalogItemId}"
	itemAnswer := kit.OK(kit.Ref("CatalogItem")).WithETag()
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listCatalogItems", kit.Org+"/catalog-items", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Query(h.listCatalogItems), kit.ListOK("CatalogItem")),
			kit.Post("createCatalogItem", kit.Org+"/catalog-items", tag, a.CatalogWrite, a.CatalogCreate).
				Handle(kit.JSON(h.createCatalogItem), kit.CreatedResponse(kit.Ref("CatalogItem"), "getCatalogItem").WithETag()),
			kit.Get("getCatalogItem", kit.Org+item, tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getCatalogItem), itemAnswer),
			kit.Write(http.MethodPatch, "updateCatalogItem", kit.Org+item, tag, a.CatalogWrite, a.CatalogUpdate).NotIdempotent().
				WithHeaders(kit.IfMatchHeader).
				Answers(domain.ErrItemArchived).
				Handle(kit.JSON(h.updateCatalogItem), itemAnswer),
			kit.Post("archiveCatalogItem", kit.Org+item+"/archive", tag, a.CatalogWrite, a.CatalogArchive).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(h.archiveCatalogItem), itemAnswer),
			kit.Post("restoreCatalogItem", kit.Org+item+"/restore", tag, a.CatalogWrite, a.CatalogArchive).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(h.restoreCatalogItem), itemAnswer),
			kit.List("listComponents", kit.Org+item+"/components", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.listComponents), kit.ListOK("Component")),
			kit.Post("createComponent", kit.Org+item+"/components", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(domain.ErrItemArchived, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.createComponent), kit.CreatedResponse(kit.Ref("Component"), "getComponent")),
			kit.Get("getComponent", kit.Org+item+"/components/{recordId}", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getComponent), kit.OK(kit.Ref("Component"))),
			kit.List("listDataVersions", kit.Org+item+"/data-versions", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.listDataVersions), kit.ListOK("DataVersion")),
			kit.Get("getDataVersion", kit.Org+item+"/data-versions/{recordId}", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getDataVersion), kit.OK(kit.Ref("DataVersion"))),
			kit.List("listMarkets", kit.Org+item+"/markets", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.listMarkets), kit.ListOK("MarketScenario")),
			kit.Get("getMarket", kit.Org+item+"/markets/{recordId}", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getMarket), kit.OK(kit.Ref("MarketScenario"))),
			kit.Write(http.MethodPut, "replaceMarkets", kit.Org+item+"/markets", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(domain.ErrItemArchived, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.replaceMarkets), kit.OK(kit.Ref("MarketsResult"))),
			kit.List("listFamilies", kit.Org+"/families", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.listFamilies), kit.ListOK("Family")),
			kit.Post("createFamily", kit.Org+"/families", tag, a.CatalogWrite, a.CatalogCreate).
				Handle(kit.JSON(h.createFamily), kit.CreatedResponse(kit.Ref("Family"), "getFamily")),
			kit.Get("getFamily", kit.Org+"/families/{recordId}", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getFamily), kit.OK(kit.Ref("Family"))),
			kit.Write(http.MethodPut, "updateFamily", kit.Org+"/families/{recordId}", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(kit.Change("recordId", catalog.UpdateFamily, familyToJSON)), kit.OK(kit.Ref("Family"))),
			kit.List("listFolders", kit.Org+"/folders", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Query(h.listFolders), kit.ListOK("Folder")),
			kit.Post("createFolder", kit.Org+"/folders", tag, a.CatalogWrite, a.CatalogCreate).
				Handle(kit.JSON(h.createFolder), kit.CreatedResponse(kit.Ref("Folder"), "getFolder")),
			kit.Get("getFolder", kit.Org+"/folders/{recordId}", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getFolder), kit.OK(kit.Ref("Folder"))),
			kit.Write(http.MethodPut, "updateFolder", kit.Org+"/folders/{recordId}", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(kit.Change("recordId", catalog.UpdateFolder, folderToJSON)), kit.OK(kit.Ref("Folder"))),
			kit.Write(http.MethodDelete, "deleteFolder", kit.Org+"/folders/{recordId}", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(domain.ErrFolderNotEmpty, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.deleteFolder), kit.OK(kit.Ref("FolderDeleted"))),
			kit.List("listParties", kit.Org+"/parties", tag, a.CatalogRead, a.SuppliersManage).
				Handle(kit.Do(h.listParties), kit.ListOK("Party")),
			kit.Post("createParty", kit.Org+"/parties", tag, a.CatalogWrite, a.SuppliersManage).
				Handle(kit.JSON(h.createParty), kit.CreatedResponse(kit.Ref("Party"), "getParty")),
			kit.Get("getParty", kit.Org+"/parties/{recordId}", tag, a.CatalogRead, a.SuppliersManage).
				Handle(kit.Do(h.getParty), kit.OK(kit.Ref("Party"))),
		},
		Models: []kit.Model{kit.ModelOf[catalogItemJSON]("CatalogItem"), kit.ModelOf[componentJSON]("Component"),
			kit.ModelOf[dataVersionJSON]("DataVersion"), kit.ModelOf[marketJSON]("MarketScenario"),
			kit.ModelOf[marketsResultJSON]("MarketsResult"), kit.ModelOf[folderJSON]("Folder"),
			kit.ModelOf[folderDeletedJSON]("FolderDeleted"), kit.ModelOf[familyJSON]("Family"), kit.ModelOf[partyJSON]("Party")},
	}
}
