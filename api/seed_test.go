package api_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/domain/webhooks"
	"ppwr/internal/register"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// creator makes records through the operations of the table and keeps
// the first answer of each operation.
type creator struct {
	*apitest.API
	tn      apitest.Tenant
	answers map[string]*apitest.Response
	// records name, by the path of their collection relative to the
	// organization ("/catalog-items"), the records the lists under a
	// record are about.
	records map[string]string
}

// operation is the POST of the table that serves a concrete path.
func (c *creator) operation(t *testing.T, path string) *kit.Operation {
	t.Helper()
	var found *kit.Operation
	ops := c.Server.Operations()
	for i := range ops {
		template := "^" + regexp.MustCompile(`\\\{[A-Za-z]+\\\}`).ReplaceAllString(regexp.QuoteMeta(ops[i].Path), "[^/]+") + "$"
		if ops[i].Method == http.MethodPost && regexp.MustCompile(template).MatchString(path) {
			require.Nil(t, found, "%s is served by one operation", path)
			found = &ops[i]
		}
	}
	require.NotNil(t, found, "an operation serves POST %s", path)
	return found
}

// send posts a JSON body (or, with contentType, a form) to the
// organization's path and requires the operation's success; it answers
// the new record's id.
func (c *creator) send(t *testing.T, suffix string, body any, contentType string) string {
	t.Helper()
	path := c.tn.Path(suffix)
	op := c.operation(t, path)
	headers := map[string]string{"Idempotency-Key": apitest.IdemKey()}
	if contentType != "" {
		headers["Content-Type"] = contentType
	}
	res := c.Do(apitest.Req{Method: http.MethodPost, Path: path, Token: c.tn.Token, Body: body, Headers: headers})
	require.Equal(t, op.Success.Status, res.Code, "%s: %s", op.ID, res.Body.String())
	if _, seen := c.answers[op.ID]; !seen {
		c.answers[op.ID] = res
	}
	return recordID(res.JSON)
}

func (c *creator) create(t *testing.T, suffix string, body any) string {
	t.Helper()
	return c.send(t, suffix, body, "")
}

func (c *creator) upload(t *testing.T, suffix string, fields map[string]string, name string, content []byte) string {
	t.Helper()
	body, contentType := apitest.Form(t, fields, name, content)
	return c.send(t, suffix, body, contentType)
}

func (c *creator) get(t *testing.T, suffix string) map[string]any {
	t.Helper()
	res := c.Do(apitest.Req{Method: http.MethodGet, Path: c.tn.Path(suffix), Token: c.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

func (c *creator) revision(t *testing.T, item string) int {
	t.Helper()
	return int(c.get(t, "/catalog-items/"+item)["revision"].(float64))
}

// recordID is the id of the record an answer shows: its id, a recipe
// line's line, or the report whose lines a list shows.
func recordID(body map[string]any) string {
	for _, v := range []any{body["id"], body["line"]} {
		if id, ok := v.(string); ok {
			return id
		}
	}
	if report, ok := body["report"].(map[string]any); ok {
		id, _ := report["id"].(string)
		return id
	}
	return ""
}

// seedOrganization makes an organization with a record of every kind a
// client can create: through the operations of the table, except what
// only a workflow or a reviewer makes (a processed document version and
// its page, approved versions, an import's planned rows), which is stored
// as they would leave it. The API must store files (apitest.WithStorage).
func seedOrganization(t *testing.T, a *apitest.API) *creator {
	t.Helper()
	c := &creator{API: a, tn: a.NewTenant(apitest.TenantSpec{}), answers: map[string]*apitest.Response{}}
	org := c.tn.Org
	today := time.Now().UTC().Format(time.DateOnly)

	// The catalogue: a jar with a component and a market, a stock-tracked
	// box, and the structure around them.
	jar := c.create(t, "/catalog-items", map[string]any{"internalCode": "LOC-" + uuid.NewString()[:8], "name": "Słoik",
		"sourcingType": "own_production", "massG": "180", "mainMaterialCode": "GLASS", "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "food_contact"})
	component := c.create(t, "/catalog-items/"+jar+"/components", map[string]any{"name": "Zakrętka", "role": "closure",
		"materialCode": "PLASTIC_PP", "massG": "4"})
	res := c.Do(apitest.Req{Method: http.MethodPut, Path: c.tn.Path("/catalog-items/" + jar + "/markets"), Token: c.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
		Body:    map[string]any{"market_revision": c.revision(t, jar), "markets": []string{"PL"}}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	scenario := res.JSON["markets"].([]any)[0].(map[string]any)["id"].(string)
	box := c.create(t, "/catalog-items", map[string]any{"internalCode": "LOC-" + uuid.NewString()[:8], "name": "Karton",
		"sourcingType": "purchased", "massG": "24.5", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece", "stockTracked": true,
		"reuseType": "single_use", "foodContactStatus": "not_food_contact"})
	c.create(t, "/folders", map[string]any{"name": "Słoiki"})
	c.create(t, "/families", map[string]any{"name": "Słoiki 500 ml"})
	party := c.create(t, "/parties", map[string]any{"name": "Kartonex", "roles": []string{"supplier"}, "country": "PL",
		"email": "oferty@kartonex.example"})
	endpoint := c.create(t, "/webhook-endpoints", map[string]any{"url": "https://203.0.113.10/ppwr-events", "events": []string{"*"}})

	// Movements, and parcels of the box held from its stock and packed.
	for _, item := range []string{jar, box} {
		c.create(t, "/catalog-items/"+item+"/supply-events", map[string]any{"catalog_revision": c.revision(t, item),
			"direction": "opening_balance", "quantity_units": "10", "event_on": today})
	}
	c.create(t, "/flows", map[string]any{"item": jar, "kind": "placed", "quantity": "12", "unit": "piece", "mass_g": "300.5",
		"country": "PL", "event_on": today})
	set := c.create(t, "/packaging-systems", map[string]any{"name": "Paczka S"})
	c.create(t, "/packaging-systems/"+set+"/items", map[string]any{"revision": 1, "item": box, "quantity": "1", "unit": "piece",
		"role": "container", "outer_packaging": true})
	config := c.get(t, "/packaging-systems/"+set+"/configuration")
	c.create(t, "/packaging-systems/"+set+"/reservations", map[string]any{"revision": config["revision"],
		"configuration_hash": config["configuration_hash"], "sets_count": 1, "order_reference": "R-1", "country": "PL",
		"expires_in_hours": 24})
	c.create(t, "/packaging-systems/"+set+"/consumptions", map[string]any{"revision": config["revision"],
		"configuration_hash": config["configuration_hash"], "sets_count": 1, "order_reference": "U-1", "country": "PL",
		"event_on": today})

	// Documents: an upload about the jar and its second version, the first
	// processed as the document workflow leaves it, so that a reviewer can
	// quote its page.
	pdf, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "documents", "measurements.pdf"))
	require.NoError(t, err)
	version := c.upload(t, "/documents", map[string]string{"document_type": "specification_sheet", "title": "Karta",
		"catalog_item": jar}, "karta.pdf", pdf)
	document := c.answers["uploadDocument"].JSON["document"].(string)
	c.upload(t, "/documents/"+document+"/versions", nil, "karta-2.pdf", pdf)
	require.NoError(t, a.DB.Model(&documents.DocumentVersion{}).Where("id = ?", version).
		Updates(map[string]any{"processing_status": documents.ProcessingReviewRequired, "page_count": 1}).Error)
	require.NoError(t, a.DB.Create(&documents.DocumentPage{DocumentVersionID: uuid.MustParse(version), Page: 1, OrganizationID: org,
		HasText: true, Text: "Masa opakowania: 12,5 g"}).Error)
	c.create(t, "/document-versions/"+version+"/evidence-proposals", map[string]any{"code": "MASS_G", "value": "12.5", "unit": "g",
		"source_page": 1, "source_text": "Masa opakowania: 12,5 g"})
	approved, second := a.StoredVersion(org, documents.ReviewApproved), a.StoredVersion(org, documents.ReviewApproved)
	c.create(t, "/catalog-items/"+jar+"/traceability", map[string]any{"link_type": "supplier_declaration", "version": approved,
		"revision": c.revision(t, jar)})
	c.create(t, "/catalog-items/"+jar+"/generated-documents", map[string]any{"kind": documents.GeneratedDeclarationOfConformity,
		"catalog_revision": c.revision(t, jar)})
	request := c.create(t, "/supplier-requests", map[string]any{"party": party, "language": "pl",
		"due_on": time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly),
		"lines":  []map[string]any{{"item": jar, "document_type": "supplier_declaration"}}})
	// A catalogue import of a complete row and an incomplete one, with the
	// rows the import workflow plans from the file.
	file := "internalCode,name,sourcingType,massG,mainMaterialCode,stockUnit,foodContactStatus,reuseType\n" +
		"IMP-1,Pudełko,purchased,2,GLASS,piece,unknown,single_use\nIMP-2,Pudełko bez masy,purchased,,GLASS,piece,unknown,single_use\n"
	imported := c.upload(t, "/imports", map[string]string{"type": imports.ImportCatalog}, "katalog.csv", []byte(file))
	planImport(t, a, org, imported, file)

	// An entry of every register about the jar, and its assessment.
	examples := apitest.RegisterExamples(apitest.RegisterRefs{Component: component, Scenario: scenario, Approved: approved, Second: second})
	for _, reg := range register.All {
		c.create(t, "/catalog-items/"+jar+"/ppwr/"+reg.Slug, map[string]any{"catalog_revision": c.revision(t, jar),
			"method": "test_method", "values": examples[reg.Slug]})
	}
	c.create(t, "/assessments", map[string]any{"item": jar})

	// The organization's records and reports.
	c.create(t, "/ppwr/refill-stations", map[string]any{"name": "Stacja Gdańsk", "location": "ul. Długa 1, Gdańsk", "country": "PL",
		"products": []string{jar}, "refill_rules": "Przynieś czysty, suchy pojemnik.", "hygiene_evidence": []string{approved}})
	c.create(t, "/ppwr/reuse-systems", map[string]any{"code": "POOL-PL", "name": "Pula skrzynek PL", "operator": "Pula Sp. z o.o.",
		"loop": "closed_loop", "return_incentive": "Kaucja 20 zł za skrzynkę",
		"participants":         []any{map[string]any{"name": "Myjnia B", "role": "reconditioner"}},
		"reconditioning_steps": []string{"cleaning"}, "items": []string{jar}, "markets": []string{"PL"}})
	c.create(t, "/ppwr/compliance-profile", map[string]any{"values": map[string]any{"country": "PL", "micro_enterprise": false,
		"final_distributor": true, "sales_area": map[string]any{"value": "450", "unit": "m2"}, "refill_offered": false}})
	c.create(t, "/ppwr/deposit-schemes", map[string]any{"market": "PL", "scheme_name": "System kaucyjny PL",
		"scheme_operator": "Operator Kaucji S.A.", "deposit_amount": "0.50", "currency": "PLN", "items": []string{jar},
		"label_requirement": "Znak systemu kaucyjnego na etykiecie", "label_applied": true, "evidence": []string{approved},
		"participates_from": "2025-10-01"})
	c.create(t, "/ppwr/authority-requests", map[string]any{"authority": map[string]any{"name": "WIOŚ Kraków", "country": "PL"},
		"authority_reference": "WI.7021.15.2026", "items": []string{jar}, "received_on": today})
	// This year, so that the lines report the flow placed today.
	eprReport := c.create(t, "/ppwr/epr-reports", map[string]any{"country": "PL", "year": time.Now().UTC().Year()})
	c.create(t, "/bdo-reports", map[string]any{"year": 2025})
	c.create(t, "/carbon-factors", map[string]any{"name": "PET dostawcy", "material_code": "PLASTIC_PET", "variant": "primary",
		"value": "3000", "unit": "kg CO2e/t", "scope": "scope_3", "source": "EPD S-P-01234 (2026)", "supplier_document": approved})
	c.create(t, "/carbon-calculations", map[string]any{"subject": jar, "type": "item"})
	c.create(t, "/reports", map[string]any{"kind": reports.ReportEvidenceCoverage})

	// The jar's passport, published and shared with another organization.
	passport := c.create(t, "/passports", map[string]any{"catalog_item": jar, "catalog_revision": c.revision(t, jar)})
	c.create(t, "/passports/"+passport+"/publish", map[string]any{"revision": 1})
	c.create(t, "/passports/"+passport+"/shares", map[string]any{"organization": a.NewTenant(apitest.TenantSpec{}).Org})

	// A delivery of the jar's first event to the endpoint, as the relay
	// and one failed attempt leave it.
	var event domain.Event
	require.NoError(t, a.DB.Where("organization_id = ?", org).Order("id").First(&event).Error)
	delivery := webhooks.WebhookDelivery{ID: domain.NewID(), EventID: event.ID, EndpointID: uuid.MustParse(endpoint),
		Status: webhooks.DeliveryPending, Attempts: 1, LastError: "receiver answered 503", CreatedAt: time.Now().UTC()}
	require.NoError(t, a.DB.Create(&delivery).Error)
	unavailable := http.StatusServiceUnavailable
	require.NoError(t, a.DB.Create(&webhooks.WebhookAttempt{ID: domain.NewID(), DeliveryID: delivery.ID, AttemptedAt: time.Now().UTC(),
		StatusCode: &unavailable, DurationMs: 40, Error: delivery.LastError}).Error)

	c.records = map[string]string{"/catalog-items": jar, "/documents": document, "/document-versions": version,
		"/imports": imported, "/packaging-systems": set, "/ppwr/epr-reports": eprReport, "/supplier-requests": request,
		"/webhook-endpoints": endpoint}
	return c
}

// planImport plans an import's rows from its CSV file and stores them, as
// the import workflow does.
func planImport(t *testing.T, a *apitest.API, org uuid.UUID, id, file string) {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(file)).ReadAll()
	require.NoError(t, err)
	var cells []map[string]string
	for _, record := range records[1:] {
		row := map[string]string{}
		for i, column := range records[0] {
			row[column] = record[i]
		}
		cells = append(cells, row)
	}
	ctx := context.Background()
	w := work.New(ctx, a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: org, Reference: "test"})
	imp, err := domain.Find[imports.Import](ctx, a.DB, org, uuid.MustParse(id))
	require.NoError(t, err)
	rows, err := imports.NewRowPlanner(imp).Plan(w, imp.ID, 1, cells)
	require.NoError(t, err)
	require.NoError(t, w.Commit())
	require.NoError(t, imports.StoreImportRows(ctx, a.DB, rows))
}
