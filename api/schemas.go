package api

import "ppwr/models"

// schemas are the named component schemas. Each area adds its resources
// here; lists are generated with listOf.
func schemas() map[string]any {
	codes := make([]string, len(ErrorCodes))
	for i, c := range ErrorCodes {
		codes[i] = c.Code
	}
	out := map[string]any{
		"ErrorEnvelope": object(map[string]Schema{
			"error": object(map[string]Schema{
				"code":      enum(codes...),
				"message":   str(),
				"fields":    Schema{"type": "object", "additionalProperties": arrayOf(str())},
				"requestId": uuidSchema(),
			}),
		}),
		"ListLinks": object(map[string]Schema{"next": nullable(Schema{"type": "string", "format": "uri"})}),

		"Organization": object(map[string]Schema{
			"id":     uuidSchema(),
			"name":   str(),
			"slug":   str(),
			"status": enum("active", "suspended"),
		}),
		"OrganizationList": object(map[string]Schema{
			"data":      arrayOf(ref("Organization")),
			"requestId": uuidSchema(),
		}),

		"Event": object(map[string]Schema{
			"id":              uuidSchema(),
			"type":            enum(models.EventTypes...),
			"schema_version":  Schema{"type": "integer", "const": models.EventSchemaVersion},
			"organization_id": uuidSchema(),
			"created_at":      dateTimeSchema(),
			"data": Schema{"type": "object", "additionalProperties": Schema{
				"type": []string{"string", "number", "integer", "boolean", "null"},
			}},
		}),
		"Dictionaries":   dictionariesSchema(),
		"AuditEntry":     auditEntrySchema(),
		"AuditEntryList": listOf("AuditEntry"),
	}
	for _, more := range []map[string]any{catalogSchemas(), structureSchemas()} {
		for k, v := range more {
			out[k] = v
		}
	}
	return out
}

func coded(extra map[string]Schema) Schema {
	props := map[string]Schema{"code": str(), "name": str()}
	for k, v := range extra {
		props[k] = v
	}
	return arrayOf(object(props))
}

func dictionariesSchema() Schema {
	return object(map[string]Schema{
		"version":   str(),
		"countries": coded(map[string]Schema{"eu_member": boolean()}),
		"materials": coded(map[string]Schema{
			"parent":              nullable(str()),
			"bdo_group":           enum("plastics", "paper", "glass", "steel", "aluminium", "wood", "multimaterial", "other"),
			"identification_code": nullable(str()),
			"abbreviation":        nullable(str()),
		}),
		"packaging_categories": coded(map[string]Schema{"description": str()}),
		"packaging_formats":    coded(nil),
		"economic_roles":       coded(map[string]Schema{"description": str(), "article": str()}),
		"document_types":       coded(nil),
		"rule_sets": arrayOf(Schema{
			"type":     "object",
			"required": []string{"code", "name", "regulation", "article", "version", "effective_from", "effective_to"},
			"properties": map[string]any{
				"code": str(), "name": str(), "regulation": str(), "article": str(), "version": str(),
				"effective_from": dateSchema(), "effective_to": nullable(dateSchema()),
				"grades": arrayOf(str()),
			},
		}),
	})
}

func auditEntrySchema() Schema {
	return object(map[string]Schema{
		"id":          uuidSchema(),
		"occurred_at": dateTimeSchema(),
		"actor": object(map[string]Schema{
			"type":       enum("api_key", "operator", "system"),
			"user_id":    nullable(uuidSchema()),
			"api_key_id": nullable(uuidSchema()),
		}),
		"operation":   str(),
		"method":      str(),
		"path":        str(),
		"status":      nullable(integer()),
		"record_type": nullable(str()),
		"record_id":   nullable(uuidSchema()),
		"request_id":  str(),
		"summary":     Schema{"type": "object"},
	})
}
