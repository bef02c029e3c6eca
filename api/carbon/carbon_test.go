package carbon_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/documents"
)

type carbon struct {
	*apitest.API
	tn apitest.Tenant
}

func newCarbon(t *testing.T) *carbon {
	a := apitest.New(t)
	return &carbon{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
}

func (c *carbon) send(t *testing.T, method, path string, body any) *apitest.Response {
	t.Helper()
	return c.Do(apitest.Req{Method: method, Path: c.tn.Path(path), Token: c.tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (c *carbon) ok(t *testing.T, status int, method, path string, body any) map[string]any {
	t.Helper()
	res := c.send(t, method, path, body)
	require.Equal(t, status, res.Code, res.Body.String())
	return res.JSON
}

// item creates an item of mass grams of material, with the components
// given as material and grams.
func (c *carbon) item(t *testing.T, material, grams string, components ...[2]string) string {
	t.Helper()
	id := c.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "CO2-" + uuid.NewString()[:8],
		"name": "Opakowanie", "sourcingType": "purchased", "massG": grams, "mainMaterialCode": material, "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "not_food_contact"})["id"].(string)
	for _, comp := range components {
		c.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items/"+id+"/components", map[string]any{"name": comp[0], "role": "body",
			"materialCode": comp[0], "massG": comp[1]})
	}
	return id
}

func (c *carbon) calculate(t *testing.T, subject, kind string) map[string]any {
	t.Helper()
	return c.ok(t, http.StatusCreated, http.MethodPost, "/carbon-calculations", map[string]any{"subject": subject, "type": kind})
}

// recycled records the item's accepted recycled content, as a reviewer
// accepting a supplier's declaration would.
func (c *carbon) recycled(t *testing.T, item, percent string) {
	t.Helper()
	version := uuid.MustParse(c.StoredVersion(c.tn.Org, documents.ReviewApproved))
	at := time.Now()
	require.NoError(t, c.DB.Create(&documents.EvidenceProposal{ID: domain.NewID(), OrganizationID: c.tn.Org, DocumentVersionID: version,
		CatalogItemID: uuid.MustParse(item), Code: "RECYCLED_CONTENT_PCT", Value: decimal.RequireFromString(percent), Unit: "%",
		SourcePage: 1, SourceText: "rPET " + percent + " %", Origin: documents.OriginManual, Status: documents.ProposalAccepted,
		DecidedAt: &at, Revision: 2, CreatedAt: at, UpdatedAt: at}).Error)
}

func total(t *testing.T, calc map[string]any) decimal.Decimal {
	t.Helper()
	s, ok := calc["total_kg_co2e"].(string)
	require.True(t, ok, "total: %v", calc["total_kg_co2e"])
	return decimal.RequireFromString(s)
}

// The worked examples of ppwr-facts §5.3, through the API.
func TestTheWorkedExamples(t *testing.T) {
	c := newCarbon(t)
	bottle := c.item(t, "PLASTIC_PET", "25")
	calc := c.calculate(t, bottle, "item")
	assert.Equal(t, "0.0966", total(t, calc).Round(4).String())
	assert.Equal(t, "0.09659753275", total(t, calc).String(), "exact: 0.025 kg × 3863.90131 kg/t")
	line := calc["lines"].([]any)[0].(map[string]any)
	factor := line["factors"].([]any)[0].(map[string]any)
	assert.Equal(t, "19_505_5140_15_1", factor["row_id"])
	assert.EqualValues(t, 2025, factor["year"])
	assert.Equal(t, "scope_3", factor["scope"])
	assert.Equal(t, "incl. forming", factor["boundary"])
	assert.NotEmpty(t, calc["data_version"])

	rpet := c.item(t, "PLASTIC_PET", "25")
	c.recycled(t, rpet, "30")
	calc = c.calculate(t, rpet, "item")
	assert.Equal(t, "0.0842", total(t, calc).Round(4).String())
	assert.Len(t, calc["lines"].([]any)[0].(map[string]any)["factors"], 2, "primary and closed-loop factors")
	assert.Equal(t, "0.3", calc["lines"].([]any)[0].(map[string]any)["recycled_share"])

	box := c.item(t, "PAPER_CARDBOARD", "192", [2]string{"PAPER_CARDBOARD", "180"}, [2]string{"PLASTIC_LDPE", "12"})
	assert.Equal(t, "0.2515", total(t, c.calculate(t, box, "item")).Round(4).String())

	can := c.item(t, "ALUMINIUM", "13")
	calc = c.calculate(t, can, "item")
	assert.Equal(t, "0.1185", total(t, calc).Round(4).String())
	assert.Equal(t, "excl. forming", calc["lines"].([]any)[0].(map[string]any)["factors"].([]any)[0].(map[string]any)["boundary"])

	list := c.ok(t, http.StatusOK, http.MethodGet, "/carbon-calculations?type=item&subject="+can, nil)
	require.Len(t, list["data"], 1)
	assert.Equal(t, calc["id"], list["data"].([]any)[0].(map[string]any)["id"])
}

func TestAnIncompleteItemHasNoTotalAndSaysWhy(t *testing.T) {
	c := newCarbon(t)
	cup := c.item(t, "PLASTIC_PLA", "8", [2]string{"PLASTIC_PLA", "7"}, [2]string{"PAPER_PAPER", "1"})
	calc := c.calculate(t, cup, "item")
	assert.Nil(t, calc["total_kg_co2e"])
	assert.Equal(t, false, calc["complete"])
	missing := calc["missing"].([]any)
	require.Len(t, missing, 1)
	assert.Equal(t, "PLASTIC_PLA", missing[0].(map[string]any)["material"])
	assert.Equal(t, "primary_factor", missing[0].(map[string]any)["missing"])
	assert.NotNil(t, missing[0].(map[string]any)["component"])

	res := c.send(t, http.MethodPost, "/carbon-calculations", map[string]any{"subject": uuid.NewString(), "type": "item"})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "subject")
	res = c.send(t, http.MethodPost, "/carbon-calculations", map[string]any{"subject": cup, "type": "pallet"})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "type")
}

func TestOwnFactorsArePreferredAndArchivingOneChangesNoPastResult(t *testing.T) {
	c := newCarbon(t)
	res := c.send(t, http.MethodPost, "/carbon-factors", map[string]any{"name": "PET dostawcy", "material_code": "PLASTIC_PET",
		"variant": "primary", "value": "3"})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	for _, f := range []string{"unit", "scope", "source"} {
		assert.Contains(t, res.FieldErrors(), f, "the spec requires a unit, a scope and a source")
	}
	res = c.send(t, http.MethodPost, "/carbon-factors", map[string]any{"name": "PET", "material_code": "PLASTIC_PET", "variant": "primary",
		"value": "3", "unit": "kg CO2e/kg", "scope": "scope_3", "source": "EPD", "supplier_document": c.StoredVersion(c.tn.Org, documents.ReviewUnreviewed)})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "supplier_document")

	factor := c.ok(t, http.StatusCreated, http.MethodPost, "/carbon-factors", map[string]any{"name": "PET dostawcy", "material_code": "PLASTIC_PET",
		"variant": "primary", "value": "3000", "unit": "kg CO2e/t", "scope": "scope_3", "source": "EPD S-P-01234 (2026)",
		"supplier_document": c.StoredVersion(c.tn.Org, documents.ReviewApproved)})
	assert.Equal(t, "3", factor["kg_co2e_per_kg"])
	bottle := c.item(t, "PLASTIC_PET", "25")
	before := c.calculate(t, bottle, "item")
	assert.Equal(t, "0.075", total(t, before).String(), "0.025 kg × 3 kg/kg, the organization's own factor")
	used := before["lines"].([]any)[0].(map[string]any)["factors"].([]any)[0].(map[string]any)
	assert.Equal(t, factor["id"], used["factor"])

	id := factor["id"].(string)
	assert.Equal(t, http.StatusConflict, c.send(t, http.MethodPost, "/carbon-factors/"+id+"/archive", map[string]any{"revision": 2}).Code)
	archived := c.ok(t, http.StatusOK, http.MethodPost, "/carbon-factors/"+id+"/archive", map[string]any{"revision": 1})
	assert.Equal(t, false, archived["active"])
	res = c.send(t, http.MethodPost, "/carbon-factors/"+id+"/archive", map[string]any{"revision": 2})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "carbon_factor_archived", res.ErrorCode())

	again := c.ok(t, http.StatusOK, http.MethodGet, "/carbon-calculations/"+before["id"].(string), nil)
	assert.Equal(t, before["total_kg_co2e"], again["total_kg_co2e"], "a past calculation keeps its factor")
	assert.Equal(t, before["lines"], again["lines"])
	after := c.calculate(t, bottle, "item")
	assert.Equal(t, "0.09659753275", total(t, after).String(), "new calculations fall back to the reference set")

	list := c.ok(t, http.StatusOK, http.MethodGet, "/carbon-factors?active=false", nil)
	require.Len(t, list["data"], 1)
	assert.Equal(t, id, list["data"].([]any)[0].(map[string]any)["id"])
	assert.Empty(t, c.ok(t, http.StatusOK, http.MethodGet, "/carbon-factors?active=true", nil)["data"])
	assert.Contains(t, c.EventTypes(c.tn.Org), "carbon_factor.archived")
}

func TestAPackingSetIsTheSumOfItsLines(t *testing.T) {
	c := newCarbon(t)
	bottle, can := c.item(t, "PLASTIC_PET", "25"), c.item(t, "ALUMINIUM", "13")
	set := c.ok(t, http.StatusCreated, http.MethodPost, "/packaging-systems", map[string]any{"name": "Zestaw"})
	revision := set["revision"]
	for i, line := range [][2]string{{bottle, "2"}, {can, "3"}} {
		res := c.ok(t, http.StatusCreated, http.MethodPost, "/packaging-systems/"+set["id"].(string)+"/items", map[string]any{"revision": revision,
			"item": line[0], "quantity": line[1], "unit": "piece", "role": "container", "outer_packaging": i == 0})
		revision = res["revision"]
	}
	calc := c.calculate(t, set["id"].(string), "system")
	want := decimal.RequireFromString("0.09659753275").Mul(decimal.NewFromInt(2)).
		Add(decimal.RequireFromString("0.11850671703").Mul(decimal.NewFromInt(3)))
	assert.Equal(t, want.String(), total(t, calc).String(), "2 bottles and 3 cans")
	assert.Nil(t, calc["data_version"], "each line names its item's data version")
	assert.Len(t, calc["lines"], 2)

	empty := c.ok(t, http.StatusCreated, http.MethodPost, "/packaging-systems", map[string]any{"name": "Pusty"})
	calc = c.calculate(t, empty["id"].(string), "system")
	assert.Nil(t, calc["total_kg_co2e"], "an empty set has no footprint, not zero")
}

func TestTheReferenceCatalogue(t *testing.T) {
	c := newCarbon(t)
	ref := c.ok(t, http.StatusOK, http.MethodGet, "/carbon-factors/reference", nil)
	sources := ref["sources"].([]any)
	require.Len(t, sources, 1)
	s := sources[0].(map[string]any)
	assert.EqualValues(t, 2025, s["year"])
	assert.Equal(t, "Open Government Licence v3.0", s["licence"])
	assert.Len(t, s["rows"], 34)
	assert.Equal(t, []any{"scope_1", "scope_2", "scope_3"}, ref["scopes"])
}
