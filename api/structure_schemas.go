package api

import "ppwr/models"

// Limits of the structure resources' text fields, shared by the handlers
// and the documented schemas.
const (
	structureNameMax = 200
	descriptionMax   = 2000
	partyTaxIDMax    = 50
	partyEmailMax    = 254
	partyAddressMax  = 500
)

// inputObject describes a request body: only the listed fields are
// required, others may be omitted (and unknown fields are ignored).
func inputObject(props map[string]Schema, required ...string) Schema {
	p := map[string]any{}
	for k, v := range props {
		p[k] = v
	}
	if required == nil {
		required = []string{}
	}
	return Schema{"type": "object", "required": required, "properties": p}
}

func boundedText(maxLen int) Schema {
	return Schema{"type": "string", "minLength": 1, "maxLength": maxLen}
}

func revisionInput() Schema { return Schema{"type": "integer", "minimum": 1} }

// structureSchemas are the request and response schemas of folders,
// families and parties. These resources use snake_case fields.
func structureSchemas() map[string]any {
	optionalText := func(maxLen int) Schema { return nullable(Schema{"type": "string", "maxLength": maxLen}) }
	return map[string]any{
		"Folder": object(map[string]Schema{
			"id":         uuidSchema(),
			"name":       str(),
			"parent":     nullable(uuidSchema()),
			"revision":   integer(),
			"created_at": dateTimeSchema(),
			"updated_at": dateTimeSchema(),
		}),
		"FolderList": listOf("Folder"),
		"FolderCreate": inputObject(map[string]Schema{
			"name":   boundedText(structureNameMax),
			"parent": nullable(uuidSchema()),
		}, "name"),
		"FolderUpdate": inputObject(map[string]Schema{
			"revision": revisionInput(),
			"name":     boundedText(structureNameMax),
			"parent":   nullable(uuidSchema()),
		}, "revision"),
		"FolderDelete": inputObject(map[string]Schema{"revision": revisionInput()}, "revision"),
		"FolderDeleted": object(map[string]Schema{
			"id":      uuidSchema(),
			"deleted": Schema{"type": "boolean", "const": true},
		}),

		"Family": object(map[string]Schema{
			"id":          uuidSchema(),
			"name":        str(),
			"description": nullable(str()),
			"revision":    integer(),
			"created_at":  dateTimeSchema(),
			"updated_at":  dateTimeSchema(),
		}),
		"FamilyList": listOf("Family"),
		"FamilyCreate": inputObject(map[string]Schema{
			"name":        boundedText(structureNameMax),
			"description": optionalText(descriptionMax),
		}, "name"),
		"FamilyUpdate": inputObject(map[string]Schema{
			"revision":    revisionInput(),
			"name":        boundedText(structureNameMax),
			"description": optionalText(descriptionMax),
		}, "revision"),

		"Party": object(map[string]Schema{
			"id":         uuidSchema(),
			"name":       str(),
			"roles":      arrayOf(enum(models.PartyRoles...)),
			"country":    str(),
			"tax_id":     nullable(str()),
			"email":      nullable(str()),
			"address":    nullable(str()),
			"created_at": dateTimeSchema(),
		}),
		"PartyList": listOf("Party"),
		"PartyCreate": inputObject(map[string]Schema{
			"name":    boundedText(structureNameMax),
			"roles":   Schema{"type": "array", "minItems": 1, "items": enum(models.PartyRoles...)},
			"country": str(),
			"tax_id":  optionalText(partyTaxIDMax),
			"email":   nullable(Schema{"type": "string", "format": "email", "maxLength": partyEmailMax}),
			"address": optionalText(partyAddressMax),
		}, "name", "roles", "country"),
	}
}
