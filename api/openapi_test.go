package api_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/stock"
	"ppwr/domain/webhooks"
	"ppwr/internal/clientgen"
	"ppwr/internal/i18n"
)

// The served document is valid OpenAPI 3.1 in both locales, describes every
// operation of the table with its access rules, and is public.
func TestOpenAPIDocument(t *testing.T) {
	a := apitest.New(t)
	for _, locale := range []string{"en", "pl"} {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: "/openapi.json?locale=" + locale, Undocumented: true})
		require.Equal(t, http.StatusOK, res.Code, "public: no key")
		assert.NotRegexp(t, `"description":"[a-z_]+\.[a-z_.]+"`, res.Body.String(), "every description is translated")

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
				for _, st := range []string{"405", "500"} {
					assert.NotNil(t, op.Responses.Codes.GetOrZero(st), "%s documents %s", op.OperationId, st)
				}
			}
		}
		for _, op := range a.Server.Operations() {
			assert.True(t, ids[op.ID], "%s is in the %s document", op.ID, locale)
		}
	}

	var en, pl map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &en))
	documented := en["webhooks"].(map[string]any)
	for _, eventType := range webhooks.EventTypes() {
		post := documented[eventType].(map[string]any)["post"].(map[string]any)
		assert.Contains(t, post["description"], "X-PPWR-Signature", eventType)
	}
	assert.Len(t, documented, len(webhooks.EventTypes()))
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
		// Extensions beyond the spec's tables, with access rules of their own.
		{"listEvents", "GET", "/organizations/{organizationId}/events", "events:read", "webhooks.manage", false},
		{"createWebhookEndpoint", "POST", "/organizations/{organizationId}/webhook-endpoints", "webhooks:manage", "webhooks.manage", true},
		{"resendWebhookDelivery", "POST", "/organizations/{organizationId}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/resend", "webhooks:manage", "webhooks.manage", true},
		// The compliance profile (issue 27), with the registers' access rules.
		{"createComplianceProfileEntry", "POST", "/organizations/{organizationId}/ppwr/compliance-profile", "ppwr:write", "catalog.update", true},
		{"reviewComplianceProfileEntry", "POST", "/organizations/{organizationId}/ppwr/compliance-profile/{recordId}/review", "ppwr:review", "evidence.review", true},
		{"listComplianceProfileEntries", "GET", "/organizations/{organizationId}/ppwr/compliance-profile", "ppwr:read", "catalog.view", false},
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
		extension := strings.Contains(c.ability, "events") || strings.Contains(c.ability, "webhooks") || strings.Contains(c.path, "compliance-profile")
		assert.Equal(t, extension, op.Beyond, "%s is marked as an extension exactly when it is one", c.id)
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

// documentedErrors are the error answers the English document declares
// for an operation: each status with its codes and response headers.
func documentedErrors(t *testing.T, doc map[string]any, id string) map[string]documentedError {
	t.Helper()
	components := doc["components"].(map[string]any)["responses"].(map[string]any)
	for _, item := range doc["paths"].(map[string]any) {
		for _, raw := range item.(map[string]any) {
			op := raw.(map[string]any)
			if op["operationId"] != id {
				continue
			}
			out := map[string]documentedError{}
			for status, raw := range op["responses"].(map[string]any) {
				if status < "400" {
					continue
				}
				ref := raw.(map[string]any)["$ref"].(string)
				res := components[strings.TrimPrefix(ref, "#/components/responses/")].(map[string]any)
				schema := res["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
				narrowed := schema["allOf"].([]any)[1].(map[string]any)
				code := narrowed["properties"].(map[string]any)["error"].(map[string]any)["properties"].(map[string]any)["code"].(map[string]any)
				e := documentedError{}
				for _, c := range code["enum"].([]any) {
					e.codes = append(e.codes, c.(string))
				}
				for h := range res["headers"].(map[string]any) {
					e.headers = append(e.headers, h)
				}
				out[status] = e
			}
			return out
		}
	}
	t.Fatalf("no operation %s", id)
	return nil
}

type documentedError struct{ codes, headers []string }

func statuses(errs map[string]documentedError) []string { return slices.Sorted(maps.Keys(errs)) }

// Each operation declares the error statuses and codes it can answer:
// those its row implies (access rules, path, parameters, body,
// Idempotency-Key, If-Match) and those its handler declares, not one
// shared set. The harness validates every answer of every test against
// these declarations, so an answer outside them fails its test.
// Operations that answer alike share a component response.
func TestOperationsDeclareTheErrorsTheyAnswer(t *testing.T) {
	a := apitest.New(t)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &doc))

	// A read of one record cannot conflict, and has nothing to validate.
	get := documentedErrors(t, doc, "getCatalogItem")
	assert.Equal(t, []string{"401", "403", "404", "405", "429", "500", "503"}, statuses(get))
	assert.Subset(t, get["403"].codes, []string{kit.CodeMissingAbility, kit.CodeMissingPermission, kit.CodeIPNotAllowed})
	assert.Equal(t, []string{kit.CodeNotFound}, get["404"].codes)
	assert.Contains(t, get["401"].headers, "WWW-Authenticate")
	assert.Contains(t, get["405"].headers, "Allow")
	assert.Contains(t, get["429"].headers, "Retry-After")
	// Every operation reads PostgreSQL, which may not answer in time.
	assert.Equal(t, []string{kit.CodeServiceUnavailable}, get["503"].codes)
	assert.Contains(t, get["503"].headers, "Retry-After")
	assert.NotContains(t, get["404"].headers, "Idempotent-Replayed", "a read is never replayed")

	// The organization list names no record and needs no ability.
	orgs := documentedErrors(t, doc, "listOrganizations")
	assert.NotContains(t, statuses(orgs), "404")
	assert.NotContains(t, orgs["403"].codes, kit.CodeMissingAbility)

	// A list validates its filters and page, and still cannot conflict.
	list := documentedErrors(t, doc, "listCatalogItems")
	assert.Equal(t, []string{kit.CodeValidationFailed}, list["422"].codes)
	assert.NotContains(t, statuses(list), "409")

	// A write with an Idempotency-Key: the key's conflict and validation,
	// the body's, and its stored refusals replay.
	create := documentedErrors(t, doc, "createCatalogItem")
	assert.Equal(t, []string{kit.CodeIdempotencyKeyReused}, create["409"].codes)
	assert.ElementsMatch(t, []string{kit.CodeIdempotencyKeyInvalid, kit.CodeInvalidJSON, kit.CodeValidationFailed}, create["422"].codes)
	assert.Contains(t, statuses(create), "413")
	assert.Contains(t, statuses(create), "415")
	assert.NotContains(t, statuses(create), "428")
	assert.Contains(t, create["409"].headers, "Idempotent-Replayed")

	// If-Match: 428 without it, 409 on a stale one; no Idempotency-Key.
	patch := documentedErrors(t, doc, "updateCatalogItem")
	assert.Equal(t, []string{kit.CodePreconditionRequired}, patch["428"].codes)
	assert.Equal(t, []string{kit.CodeRevisionConflict}, patch["409"].codes)
	assert.Contains(t, patch["422"].codes, domain.ErrItemArchived.Code)
	assert.NotContains(t, patch["422"].codes, kit.CodeIdempotencyKeyInvalid)

	// A row's own codes: a stock shortage and a revision check.
	event := documentedErrors(t, doc, "createSupplyEvent")
	assert.ElementsMatch(t, []string{kit.CodeIdempotencyKeyReused, kit.CodeRevisionConflict}, event["409"].codes)
	assert.Subset(t, event["422"].codes, []string{stock.ErrInsufficientStock.Code, domain.ErrItemArchived.Code})

	// A download of a file being built says when to come back.
	for _, id := range []string{"downloadReport", "downloadBDOReport", "getAuthorityRequest"} {
		download := documentedErrors(t, doc, id)
		assert.Equal(t, []string{kit.CodeFileNotReady}, download["409"].codes, id)
		assert.Contains(t, download["409"].headers, "Retry-After", id)
	}

	// The envelope's enumeration is exactly the codes some operation answers.
	answered := map[string]bool{}
	for _, op := range a.Server.Operations() {
		for _, e := range documentedErrors(t, doc, op.ID) {
			for _, c := range e.codes {
				answered[c] = true
			}
		}
	}
	envelope := doc["components"].(map[string]any)["schemas"].(map[string]any)["ErrorEnvelope"].(map[string]any)
	enum := envelope["properties"].(map[string]any)["error"].(map[string]any)["properties"].(map[string]any)["code"].(map[string]any)["enum"].([]any)
	var declared []string
	for _, c := range enum {
		declared = append(declared, c.(string))
	}
	assert.ElementsMatch(t, slices.Collect(maps.Keys(answered)), declared)
}

// A 405 carries the Allow header the document declares for it.
func TestMethodNotAllowedIsDocumented(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	res := a.Do(apitest.Req{Method: http.MethodDelete, Path: tn.Path("/catalog-items"), Token: tn.Token, Undocumented: true})
	require.Equal(t, http.StatusMethodNotAllowed, res.Code)
	assert.Equal(t, kit.CodeMethodNotAllowed, res.ErrorCode())
	assert.NotEmpty(t, res.Header().Get("Allow"))

	var doc map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &doc))
	for _, id := range []string{"listCatalogItems", "createCatalogItem"} {
		e := documentedErrors(t, doc, id)["405"]
		assert.Equal(t, []string{kit.CodeMethodNotAllowed}, e.codes, id)
		assert.Contains(t, e.headers, "Allow", id)
	}
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

// Every JSON answer the document publishes is a component derived from
// the Go type the handler encodes (kit.Model), or the list envelope of
// one: no answer's schema is written by hand, so none can drift from what
// is sent. The other components are request bodies, bound by their own
// declarations. File answers (a download, a CSV) are strings.
func TestResponseSchemasAreDerivedFromGoTypes(t *testing.T) {
	a := apitest.New(t)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &doc))
	derived := map[string]bool{}
	for _, name := range a.Server.ModelNames() {
		derived[name] = true
	}
	requests := map[string]bool{}
	for _, op := range a.Server.Operations() {
		if op.Request != nil && op.Request.Name != "" {
			requests[op.Request.Name] = true
		}
		if op.Success.List != "" {
			assert.True(t, derived[op.Success.List], "%s lists %s, a model", op.ID, op.Success.List)
			derived[kit.ListName(op.Success.List)] = true
		}
	}
	for name := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		assert.True(t, derived[name] || requests[name], "component %s is neither a model nor a request body", name)
	}
	for path, item := range doc["paths"].(map[string]any) {
		for method, raw := range item.(map[string]any) {
			op, ok := raw.(map[string]any)
			if !ok || op["responses"] == nil {
				continue
			}
			for status, res := range op["responses"].(map[string]any) {
				content, _ := res.(map[string]any)["content"].(map[string]any)
				if !strings.HasPrefix(status, "2") {
					continue
				}
				for media, body := range content {
					schema := body.(map[string]any)["schema"].(map[string]any)
					where := method + " " + path + " " + status + " " + media
					if media != "application/json" {
						assert.Equal(t, "string", schema["type"], "%s is a file", where)
						continue
					}
					ref, _ := schema["$ref"].(string)
					name, isComponent := strings.CutPrefix(ref, "#/components/schemas/")
					assert.True(t, isComponent && derived[name], "%s answers %v, not a model", where, schema)
				}
			}
		}
	}
}

// Every example in the document is a value its schema accepts, formats
// included: an example is declared once, as a Go value of the answer's
// type (kit.Model.Example), and only as a schema's examples. Every job,
// whose answer holds a progress, has one, as do the events and webhook
// answers, and the list of each shows a page of it.
func TestExamplesValidateAgainstTheirSchemas(t *testing.T) {
	a := apitest.New(t)
	const base = "https://ppwr.test/openapi.json"
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(a.Server.OpenAPIDocument(i18n.EN)))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource(base, doc))

	validated := map[string]int{}
	var walk func(pointer, parent string, v any)
	walk = func(pointer, parent string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for key, child := range v {
				at := pointer + "/" + url.PathEscape(strings.NewReplacer("~", "~0", "/", "~1").Replace(key))
				if parent != "properties" && (key == "example" || key == "examples") {
					examples, ok := child.([]any)
					if !assert.True(t, ok, "%s: an example is a schema's examples", at) {
						continue
					}
					schema, err := c.Compile(base + "#" + pointer)
					require.NoError(t, err, pointer)
					for i, example := range examples {
						assert.NoError(t, schema.Validate(example), "%s/%d", at, i)
					}
					validated[pointer] = len(examples)
					continue
				}
				walk(at, key, child)
			}
		case []any:
			for i, child := range v {
				walk(pointer+"/"+strconv.Itoa(i), "", child)
			}
		}
	}
	walk("", "", doc)

	schemas := doc.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any)
	for name, schema := range schemas {
		if holdsProgress(schema) {
			assert.Equal(t, 1, validated["/components/schemas/"+name], "job %s has an example", name)
		}
	}
	for _, name := range []string{"Import", "ReportRun", "Report", "DocumentVersion", "AuthorityRequest",
		"Event", "EventList", "WebhookEndpoint", "WebhookEndpointWithSecret", "WebhookDelivery", "WebhookDeliveryList"} {
		assert.Equal(t, 1, validated["/components/schemas/"+name], "%s has an example", name)
	}
	page := schemas["EventList"].(map[string]any)["examples"].([]any)[0].(map[string]any)
	assert.Equal(t, schemas["Event"].(map[string]any)["examples"], page["data"], "an events page shows the example event")
	running := schemas["Import"].(map[string]any)["examples"].([]any)[0].(map[string]any)["progress"].(map[string]any)
	done, _ := running["done"].(json.Number).Int64()
	total, _ := running["total"].(json.Number).Int64()
	assert.Less(t, done, total, "the example import is under way")
}

// holdsProgress reports whether schema has a progress property, at any
// depth of its properties.
func holdsProgress(schema any) bool {
	props, _ := schema.(map[string]any)["properties"].(map[string]any)
	for name, prop := range props {
		if name == "progress" || holdsProgress(prop) {
			return true
		}
	}
	return false
}

// Every 202, every create that starts a job and every read of a job
// declares the Retry-After its answer carries while the job runs.
func TestJobAnswersDeclareRetryAfter(t *testing.T) {
	a := apitest.New(t)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &doc))
	polled := map[string]string{
		"createBDOReport": "201", "createAuthorityRequest": "201", "uploadDocument": "201", "uploadDocumentVersion": "201",
		"getBDOReport": "200", "getAuthorityRequest": "200", "getDocumentVersion": "200", "getImport": "200", "getReport": "200",
	}
	accepted := 0
	for _, item := range doc["paths"].(map[string]any) {
		for _, raw := range item.(map[string]any) {
			op := raw.(map[string]any)
			id, responses := op["operationId"].(string), op["responses"].(map[string]any)
			status, ok := polled[id]
			if _, isAccepted := responses["202"]; isAccepted {
				status, ok = "202", true
				accepted++
			}
			if !ok {
				continue
			}
			delete(polled, id)
			headers := responses[status].(map[string]any)["headers"].(map[string]any)
			assert.Contains(t, headers, "Retry-After", "%s %s", id, status)
		}
	}
	assert.Empty(t, polled, "operations not in the document")
	assert.GreaterOrEqual(t, accepted, 4, "imports, reports, analyses and resends answer 202")
}
