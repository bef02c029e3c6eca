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

// Area declares the catalogue's operations, schemas and error codes.
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
		Schemas: schemas(),
	}
}

// schemas are the catalogue's resources. Request bodies are described by
// their declarations in the domain and named after their operations.
func schemas() map[string]kit.Schema {
	scenario := kit.Object(map[string]kit.Schema{
		"id": kit.UUID(), "catalog_item": kit.UUID(), "country": kit.Str(),
		"origin_country": kit.Nullable(kit.Str()), "economic_role": kit.Nullable(kit.Str()), "assessment_date": kit.Nullable(kit.Date()),
		"active": kit.Bool(), "created_at": kit.DateTime(), "deactivated_at": kit.Nullable(kit.DateTime()),
	})
	return map[string]kit.Schema{
		"CatalogItem": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "internalCode": kit.Str(), "name": kit.Str(), "sourcingType": kit.Enum(catalog.SourcingTypes...),
			"massG": kit.DecimalString(), "mainMaterialCode": kit.Str(), "stockUnit": kit.Enum(catalog.StockUnits...),
			"stockTracked": kit.Bool(), "foodContactStatus": kit.Enum(catalog.FoodContactStatuses...),
			"reuseType": kit.Enum(catalog.ReuseTypes...), "folder": kit.Nullable(kit.UUID()), "family": kit.Nullable(kit.UUID()),
			"innerLengthMm": kit.Nullable(kit.DecimalString()), "innerWidthMm": kit.Nullable(kit.DecimalString()),
			"innerHeightMm": kit.Nullable(kit.DecimalString()),
			"status":        kit.Enum(catalog.ItemActive, catalog.ItemArchived), "revision": kit.Int(), "assessmentsStale": kit.Bool(),
			"createdAt": kit.DateTime(), "updatedAt": kit.DateTime(), "archivedAt": kit.Nullable(kit.DateTime()),
		}),
		"Component": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "catalogItem": kit.UUID(), "name": kit.Str(), "role": kit.Enum(catalog.ComponentRoles...),
			"materialCode": kit.Str(), "massG": kit.DecimalString(), "createdAt": kit.DateTime(),
		}),
		"DataVersion": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "catalogItem": kit.UUID(), "revision": kit.Int(),
			"specifications": {"type": "object"}, "components": kit.ArrayOf(kit.Schema{"type": "object"}),
			"markets": kit.ArrayOf(kit.Schema{"type": "object"}), "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
			"createdAt": kit.DateTime(),
		}),
		"MarketScenario": scenario,
		"MarketsResult":  kit.Object(map[string]kit.Schema{"market_revision": kit.Int(), "markets": kit.ArrayOf(kit.Ref("MarketScenario"))}),
		"Folder": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "name": kit.Str(), "parent": kit.Nullable(kit.UUID()), "revision": kit.Int(),
			"created_at": kit.DateTime(), "updated_at": kit.DateTime(),
		}),
		"FolderDeleted": kit.Object(map[string]kit.Schema{"id": kit.UUID(), "deleted": {"type": "boolean", "const": true}}),
		"Family": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "name": kit.Str(), "description": kit.Nullable(kit.Str()), "revision": kit.Int(),
			"created_at": kit.DateTime(), "updated_at": kit.DateTime(),
		}),
		"Party": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "name": kit.Str(), "roles": kit.ArrayOf(kit.Enum(catalog.PartyRoles...)), "country": kit.Str(),
			"tax_id": kit.Nullable(kit.Str()), "email": kit.Nullable(kit.Str()), "address": kit.Nullable(kit.Str()),
			"created_at": kit.DateTime(),
		}),
	}
}
