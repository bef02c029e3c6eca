package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/internal/clientgen"
	"ppwr/internal/i18n"
	"ppwr/models"
)

// The served document is valid OpenAPI 3.1 in both locales, describes every
// operation of the table with its access rules, and is public.
func TestOpenAPIDocument(t *testing.T) {
	a := apitest.New(t)
	for _, locale := range []string{"en", "pl"} {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: "/openapi.json?locale=" + locale, Undocumented: true})
		require.Equal(t, http.StatusOK, res.Code, "public: no key")

		doc, err := libopenapi.NewDocument(res.Body.Bytes())
		require.NoError(t, err)
		assert.Equal(t, "3.1.0", doc.GetVersion())
		v, errs := validator.NewValidator(doc)
		require.Empty(t, errs)
		ok, verrs := v.ValidateDocument()
		for _, e := range verrs {
			t.Errorf("%s: %s: %s", locale, e.Message, e.Reason)
		}
		assert.True(t, ok)

		model, merrs := doc.BuildV3Model()
		require.Empty(t, merrs)
		assert.Equal(t, "1.0.0", model.Model.Info.Version)
		ids := map[string]bool{}
		for path, item := range model.Model.Paths.PathItems.FromOldest() {
			for method, op := range item.GetOperations().FromOldest() {
				ids[op.OperationId] = true
				assert.NotEmpty(t, op.Summary, "%s %s has a summary", method, path)
				assert.False(t, strings.HasPrefix(op.Summary, "op."), "%s is translated in %s", op.OperationId, locale)
				assert.NotNil(t, op.Responses.Codes.GetOrZero("422"), "%s documents 422", op.OperationId)
			}
		}
		for _, op := range a.Server.Operations() {
			assert.True(t, ids[op.ID], "%s is in the %s document", op.ID, locale)
		}
	}

	var en, pl map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &en))
	webhooks := en["webhooks"].(map[string]any)
	for _, eventType := range models.EventTypes() {
		post := webhooks[eventType].(map[string]any)["post"].(map[string]any)
		assert.Contains(t, post["description"], "X-PPWR-Signature", eventType)
	}
	assert.Len(t, webhooks, len(models.EventTypes()))
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.PL), &pl))
	assert.NotEqual(t, en["info"].(map[string]any)["description"], pl["info"].(map[string]any)["description"])
	assert.Contains(t, pl["info"].(map[string]any)["title"], "zgodności opakowań")
}

// Every operation row has a summary in both languages, so the document
// never shows a bare message key.
func TestEveryOperationHasSummaries(t *testing.T) {
	a := apitest.New(t)
	for _, op := range a.Server.Operations() {
		for _, l := range i18n.Locales {
			assert.True(t, i18n.Has(l, "op."+op.ID), "op.%s in %s", op.ID, l)
		}
		for _, p := range append(op.Query, op.Headers...) {
			assert.True(t, i18n.Has(i18n.EN, p.DescKey), "%s of %s", p.DescKey, op.ID)
		}
	}
	for _, op := range a.Server.Operations() {
		assert.True(t, i18n.Has(i18n.PL, "tag."+op.Tag), op.Tag)
	}
}

// The table's access rules follow the spec's tables for a sample of rows
// from each area.
func TestOperationTableMatchesSpec(t *testing.T) {
	a := apitest.New(t)
	byID := map[string]kit.Operation{}
	for _, op := range a.Server.Operations() {
		_, dup := byID[op.ID]
		require.False(t, dup, "operation ids are unique: %s", op.ID)
		byID[op.ID] = op
	}
	cases := []struct {
		id, method, path, ability, permission string
		idempotent                            bool
	}{
		{"getDictionaries", "GET", "/organizations/{organizationId}/dictionaries", "catalog:read", "catalog.view", false},
		{"updateCatalogItem", "PATCH", "/organizations/{organizationId}/catalog-items/{catalogItemId}", "catalog:write", "catalog.update", false},
		{"createCatalogItem", "POST", "/organizations/{organizationId}/catalog-items", "catalog:write", "catalog.create", true},
		{"deleteFolder", "DELETE", "/organizations/{organizationId}/folders/{recordId}", "catalog:write", "catalog.update", true},
		{"createParty", "POST", "/organizations/{organizationId}/parties", "catalog:write", "suppliers.manage", true},
		{"recommendPacking", "POST", "/organizations/{organizationId}/packing-recommendations", "flows:read", "catalog.view", false},
		{"createFlow", "POST", "/organizations/{organizationId}/flows", "flows:write", "reports.export", true},
		{"decideDocumentVersion", "POST", "/organizations/{organizationId}/document-versions/{recordId}/decision", "documents:review", "documents.view", true},
		{"decideEvidenceProposal", "POST", "/organizations/{organizationId}/evidence-proposals/{proposalId}/decision", "evidence:review", "evidence.review", false},
		{"listIssues", "GET", "/organizations/{organizationId}/issues", "supplier-requests:read", "issues.manage", false},
		{"reviewSupplierRequestLine", "POST", "/organizations/{organizationId}/supplier-requests/{recordId}/lines/{lineId}/review", "supplier-requests:write", "evidence.review", true},
		{"applyImport", "POST", "/organizations/{organizationId}/imports/{recordId}/apply", "imports:run", "imports.run", true},
		{"reviewAssessment", "POST", "/organizations/{organizationId}/assessments/{recordId}/review", "assessments:review", "assessments.publish", true},
		{"reviewRecyclabilityEntry", "POST", "/organizations/{organizationId}/catalog-items/{catalogItemId}/ppwr/recyclability/{recordId}/review", "ppwr:review", "evidence.review", true},
		{"getReuseUnit", "GET", "/organizations/{organizationId}/catalog-items/{catalogItemId}/ppwr/reuse-units/{recordId}", "ppwr:read", "catalog.view", false},
		{"listRefillStations", "GET", "/organizations/{organizationId}/ppwr/refill-stations", "ppwr:read", "reports.view", false},
		{"downloadBDOReport", "GET", "/organizations/{organizationId}/bdo-reports/{recordId}/download", "reports:read", "reports.export", false},
		{"archiveCarbonFactor", "POST", "/organizations/{organizationId}/carbon-factors/{recordId}/archive", "reports:run", "reports.export", true},
		{"listAuditLog", "GET", "/organizations/{organizationId}/audit-log", "audit:read", "audit.view", false},
	}
	for _, c := range cases {
		op, ok := byID[c.id]
		if !assert.True(t, ok, c.id) {
			continue
		}
		assert.Equal(t, c.method, op.Method, c.id)
		assert.Equal(t, c.path, op.Path, c.id)
		assert.Equal(t, c.ability, string(op.Ability), c.id)
		assert.Equal(t, c.permission, string(op.Permission), c.id)
		assert.Equal(t, c.idempotent, op.Idempotent, c.id)
	}
	assert.Equal(t, kit.RateRecommendations, byID["recommendPacking"].Rate)
	registers := 0
	for _, op := range a.Server.Operations() {
		if strings.Contains(op.Path, "/ppwr/") && strings.Contains(op.Path, "catalog-items") {
			registers++
		}
	}
	assert.Equal(t, 13*4+3, registers, "13 registers with four operations, reuse-units with three")
}

// An integrator generates a client from the served document: oapi-codegen
// must accept it and its Go client must compile.
func TestGeneratedGoClientCompiles(t *testing.T) {
	a := apitest.New(t)
	require.NoError(t, clientgen.CompileGoClient(t.Context(), a.Server.OpenAPIDocument(i18n.EN)))
}

// Every list answers a named envelope component, so generated clients
// get a type for it, and the registers' lists are spelled "Entries".
func TestListsAnswerNamedSchemas(t *testing.T) {
	a := apitest.New(t)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &doc))
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	ids := map[string]bool{}
	for _, op := range a.Server.Operations() {
		ids[op.ID] = true
		assert.NotContains(t, op.ID, "Entrys")
		if !op.Paginated {
			continue
		}
		ref, ok := op.Success.Schema["$ref"].(string)
		if !assert.True(t, ok, "%s answers a named schema", op.ID) {
			continue
		}
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		assert.Contains(t, schemas, name, op.ID)
		if op.Success.List != "" {
			assert.Equal(t, op.Success.List+"List", name, op.ID)
		}
	}
	assert.True(t, ids["listChemicalSafetyEntries"])
	assert.True(t, ids["listRecyclabilityEntries"])
	list := schemas["CatalogItemList"].(map[string]any)
	assert.Equal(t, "#/components/schemas/CatalogItem", list["properties"].(map[string]any)["data"].(map[string]any)["items"].(map[string]any)["$ref"])
}
