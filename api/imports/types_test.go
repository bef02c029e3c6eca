package imports_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
)

// An organization maps its own material names once (code_mappings), then
// imports its catalogue as its ERP exports it: its own column names
// (mapping) and its own material names.
func TestCodeMappingsServeLaterCatalogImports(t *testing.T) {
	f := newFixture(t)
	codes := f.preview(t, map[string]string{"type": "code_mappings"}, "codes.csv",
		"dictionary,sourceCode,code\nmaterials,Karton 3W,PAPER_CARDBOARD\nmaterials,PET butelka,PLASTIC_PET\nmaterials,Drewno,NOT_A_CODE\n")
	require.Equal(t, "ready", codes["status"], "%v", codes["error"])
	assert.Equal(t, map[string]any{"create": 2.0, "update": 0.0, "unchanged": 0.0, "invalid": 1.0}, codes["counts"])
	assert.Equal(t, "completed_with_errors", f.apply(t, codes["id"].(string))["status"])

	template := f.download(t, "/import-templates/codes.csv?populated=1", nil)
	assert.Equal(t, [][]string{imports.CodeMappingImportColumns, {"materials", "Karton 3W", "PAPER_CARDBOARD"}, {"materials", "PET butelka", "PLASTIC_PET"}}, template)
	assert.Equal(t, [][]string{imports.CodeMappingImportColumns}, f.download(t, "/import-templates/codes.csv", nil))

	again := f.preview(t, map[string]string{"type": "code_mappings"}, "codes.csv",
		"dictionary;sourceCode;code\nmaterials;karton 3w;PAPER_CARDBOARD\nmaterials;PET butelka;GLASS\n")
	assert.Equal(t, map[string]any{"create": 0.0, "update": 1.0, "unchanged": 1.0, "invalid": 0.0}, again["counts"], "a source code matches whatever its case")

	mapping := `{"Indeks": "internalCode", "Nazwa": "name", "Materiał": "mainMaterialCode"}`
	preview := f.preview(t, map[string]string{"type": "catalog", "mapping": mapping}, "erp.csv",
		"Indeks;Nazwa;Materiał;sourcingType;massG;stockUnit;foodContactStatus;reuseType\n"+
			"ERP-1;Pudło;karton 3w;purchased;120.5;piece;not_food_contact;single_use\n")
	require.Equal(t, "ready", preview["status"], "%v", preview["error"])
	id := preview["id"].(string)
	row := f.rows(t, id, "")[0].(map[string]any)
	require.Equal(t, "create", row["outcome"], "%v", row["errors"])
	assert.Equal(t, "karton 3w", row["input"].(map[string]any)["mainMaterialCode"], "the input as the file said")
	assert.Equal(t, "PAPER_CARDBOARD", row["planned"].(map[string]any)["fields"].(map[string]any)["mainMaterialCode"], "the plan with the code it maps to")
	assert.Equal(t, "completed", f.apply(t, id)["status"])
	var item catalog.CatalogItem
	require.NoError(t, f.DB.Where("organization_id = ? AND internal_code = ?", f.tn.Org, "ERP-1").First(&item).Error)
	assert.Equal(t, "PAPER_CARDBOARD", item.MainMaterialCode)
	assert.Equal(t, "120.5", item.MassG.String())
}

// Partners create parties; a party the organization has, by tax id or by
// name and country, is unchanged, so a file imported twice creates nobody
// twice.
func TestPartnersImportCreatesPartiesOnce(t *testing.T) {
	f := newFixture(t)
	file := "name;roles;country;tax_id;email\n" +
		"Papiernia Łódź sp. z o.o.;supplier,manufacturer;PL;PL7251234567;biuro@papiernia.example\n" +
		"Recykling Gdańsk;recycler;PL;;\n" +
		"Papiernia Łódź (again);supplier;PL;pl7251234567;\n" +
		";supplier;XX;;not-an-email\n"
	first := f.preview(t, map[string]string{"type": "partners"}, "partnerzy.csv", file)
	require.Equal(t, "ready", first["status"], "%v", first["error"])
	assert.Equal(t, map[string]any{"create": 2.0, "update": 0.0, "unchanged": 0.0, "invalid": 2.0}, first["counts"])
	invalid := f.rows(t, first["id"].(string), "?outcome=invalid")
	assert.Contains(t, invalid[0].(map[string]any)["errors"].(map[string]any)["name"], "is also in row 1 of the file")
	assert.Len(t, invalid[1].(map[string]any)["errors"], 3, "name, country and email")
	assert.Equal(t, "completed_with_errors", f.apply(t, first["id"].(string))["status"])

	parties := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/parties"), Token: f.tn.Token})
	require.Equal(t, http.StatusOK, parties.Code, parties.Body.String())
	assert.Len(t, parties.JSON["data"], 2)

	second := f.preview(t, map[string]string{"type": "partners"}, "partnerzy.csv", file)
	assert.Equal(t, map[string]any{"create": 0.0, "update": 0.0, "unchanged": 2.0, "invalid": 2.0}, second["counts"])
}

// Document metadata is validated and planned, and its rows say so; until
// documents are built the import cannot be applied.
func TestDocumentMetadataImportIsPlannedOnly(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, [][]string{imports.DocumentMetadataImportColumns}, f.download(t, "/import-templates/documents.csv?populated=1", nil))
	docs := f.preview(t, map[string]string{"type": "document_metadata"}, "documents.csv",
		"document,title,documentType,issuedOn,validUntil\n"+
			"0190b5a0-0000-7000-8000-000000000001,Declaration of conformity,eu_declaration_of_conformity,2026-01-10,2027-01-10\n"+
			"not-a-uuid,Test,NOT_A_TYPE,2026-02-01,2025-01-01\n")
	require.Equal(t, "ready", docs["status"], "%v", docs["error"])
	assert.Equal(t, map[string]any{"create": 0.0, "update": 1.0, "unchanged": 0.0, "invalid": 1.0}, docs["counts"])
	rows := f.rows(t, docs["id"].(string), "")
	assert.Equal(t, true, rows[0].(map[string]any)["planned"].(map[string]any)["plannedOnly"])
	assert.Len(t, rows[1].(map[string]any)["errors"], 3, "document, documentType and validUntil")

	res := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports/" + docs["id"].(string) + "/apply"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "import_planned_only", res.ErrorCode())
	result := f.download(t, "/imports/"+docs["id"].(string)+"/result.csv", nil)
	assert.Equal(t, "Validated and planned only, not applied: documents cannot be changed through the API yet.", result[1][4])
}
