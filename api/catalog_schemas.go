package api

import (
	"net/http"

	"ppwr/models"
)

// decimalString is a positive decimal sent as a JSON string.
func decimalString() Schema {
	return Schema{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?$`, "examples": []string{"12.5"}}
}

// catalogSchemas are the catalogue item, component, data version and
// market schemas.
func catalogSchemas() map[string]any {
	itemWritable := map[string]any{
		"internalCode":      Schema{"type": "string", "minLength": 1, "maxLength": 100},
		"name":              Schema{"type": "string", "minLength": 1, "maxLength": 300},
		"sourcingType":      enum(models.SourcingTypes...),
		"massG":             decimalString(),
		"mainMaterialCode":  Schema{"type": "string", "description": "material code from GET /dictionaries"},
		"stockUnit":         enum(models.StockUnits...),
		"stockTracked":      boolean(),
		"foodContactStatus": enum(models.FoodContactStatuses...),
		"reuseType":         enum(models.ReuseTypes...),
		"folder":            nullable(uuidSchema()),
		"family":            nullable(uuidSchema()),
	}
	revisionBody := func(required bool) Schema {
		s := Schema{"type": "object", "properties": map[string]any{"revision": integer()}}
		if required {
			s["required"] = []string{"revision"}
		}
		return s
	}
	scenario := object(map[string]Schema{
		"id": uuidSchema(), "catalog_item": uuidSchema(), "country": str(),
		"origin_country": nullable(str()), "economic_role": nullable(str()), "assessment_date": nullable(dateSchema()),
		"active": boolean(), "created_at": dateTimeSchema(), "deactivated_at": nullable(dateTimeSchema()),
	})
	component := object(map[string]Schema{
		"id": uuidSchema(), "catalogItem": uuidSchema(), "name": str(), "role": enum(models.ComponentRoles...),
		"materialCode": str(), "massG": decimalString(), "createdAt": dateTimeSchema(),
	})
	return map[string]any{
		"CatalogItem": object(map[string]Schema{
			"id": uuidSchema(), "internalCode": str(), "name": str(), "sourcingType": enum(models.SourcingTypes...),
			"massG": decimalString(), "mainMaterialCode": str(), "stockUnit": enum(models.StockUnits...),
			"stockTracked": boolean(), "foodContactStatus": enum(models.FoodContactStatuses...),
			"reuseType": enum(models.ReuseTypes...), "folder": nullable(uuidSchema()), "family": nullable(uuidSchema()),
			"status": enum(models.ItemActive, models.ItemArchived), "revision": integer(), "assessmentsStale": boolean(),
			"createdAt": dateTimeSchema(), "updatedAt": dateTimeSchema(), "archivedAt": nullable(dateTimeSchema()),
		}),
		"CatalogItemList": listOf("CatalogItem"),
		"CatalogItemCreate": Schema{"type": "object", "properties": itemWritable,
			"required": []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit", "foodContactStatus", "reuseType"}},
		"CatalogItemPatch": Schema{"type": "object", "properties": itemWritable, "minProperties": 1},
		"RevisionOptional": revisionBody(false),
		"RevisionRequired": revisionBody(true),
		"Component":        component,
		"ComponentList":    listOf("Component"),
		"ComponentCreate": Schema{"type": "object", "required": []string{"name", "role", "materialCode", "massG"}, "properties": map[string]any{
			"name": str(), "role": enum(models.ComponentRoles...), "materialCode": str(), "massG": decimalString(),
			"revision": Schema{"type": "integer", "description": "the item's revision; when sent, a stale value is a 409"},
		}},
		"DataVersion": object(map[string]Schema{
			"id": uuidSchema(), "catalogItem": uuidSchema(), "revision": integer(),
			"specifications": Schema{"type": "object"}, "components": arrayOf(Schema{"type": "object"}),
			"markets": arrayOf(Schema{"type": "object"}), "hash": Schema{"type": "string", "pattern": "^[0-9a-f]{64}$"},
			"createdAt": dateTimeSchema(),
		}),
		"DataVersionList":    listOf("DataVersion"),
		"MarketScenario":     scenario,
		"MarketScenarioList": listOf("MarketScenario"),
		"MarketsReplace": Schema{"type": "object", "required": []string{"market_revision", "markets"}, "properties": map[string]any{
			"market_revision": integer(),
			"markets":         arrayOf(str()),
			"market_details": Schema{"type": "object", "additionalProperties": Schema{"type": "object", "properties": map[string]any{
				"origin_country": str(), "economic_role": str(), "assessment_date": dateSchema(),
			}}},
		}},
		"MarketsResult": object(map[string]Schema{"market_revision": integer(), "markets": arrayOf(ref("MarketScenario"))}),
	}
}

// itemResponse is a success answering the item with its ETag.
func itemResponse(status int) Response {
	return Response{Status: status, Schema: ref("CatalogItem"), Headers: []Param{{Name: "ETag", Schema: str(), DescKey: "header.etag"}}}
}

func created(schema Schema) Response { return Response{Status: http.StatusCreated, Schema: schema} }
