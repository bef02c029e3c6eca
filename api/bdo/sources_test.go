package bdo_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
)

type year struct {
	*apitest.API
	tn apitest.Tenant
}

func (y *year) send(t *testing.T, tn apitest.Tenant, method, path string, body any) *apitest.Response {
	t.Helper()
	return y.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (y *year) created(t *testing.T, path string, body any) string {
	t.Helper()
	res := y.send(t, y.tn, http.MethodPost, path, body)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	if id, ok := res.JSON["id"].(string); ok {
		return id
	}
	return res.JSON["event"].(map[string]any)["id"].(string)
}

func (y *year) item(t *testing.T, material, grams string) string {
	return y.created(t, "/catalog-items", map[string]any{"internalCode": "BDO-" + uuid.NewString()[:8], "name": "Opakowanie",
		"sourcingType": "own_production", "massG": grams, "mainMaterialCode": material, "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "not_food_contact"})
}

func (y *year) flow(t *testing.T, item, grams, country, on string, reusable bool) string {
	return y.created(t, "/flows", map[string]any{"item": item, "kind": "placed", "quantity": "1", "unit": "piece", "mass_g": grams,
		"country": country, "event_on": on, "reusable": reusable})
}

func (y *year) supply(t *testing.T, item, direction, quantity, country, on string) *apitest.Response {
	t.Helper()
	rev := y.get(t, "/catalog-items/"+item)["revision"]
	body := map[string]any{"catalog_revision": rev, "direction": direction, "quantity_units": quantity, "event_on": on}
	if direction == "received" {
		body["counterparty_name"], body["counterparty_country"], body["counterparty_address"] = "Lieferant GmbH", country, "Berlin"
	}
	res := y.send(t, y.tn, http.MethodPost, "/catalog-items/"+item+"/supply-events", body)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res
}

func (y *year) get(t *testing.T, path string) map[string]any {
	t.Helper()
	res := y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path(path), Token: y.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

func totals(page map[string]any) map[string][2]string {
	out := map[string][2]string{}
	for _, r := range page["summary"].(map[string]any)["totals"].([]any) {
		r := r.(map[string]any)
		out[r["material_group"].(string)] = [2]string{r["single_use_mg"].(string), r["reusable_mg"].(string)}
	}
	return out
}

// A known year: the sources and their totals are computed by hand, in
// grams, then in Mg without rounding.
func TestTheSourcesOfAYearAndTheirTotals(t *testing.T) {
	a := apitest.New(t)
	y := &year{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	bottle, box := y.item(t, "PLASTIC_PET", "25"), y.item(t, "PAPER_CARDBOARD", "120")
	y.flow(t, bottle, "25000", "PL", "2025-03-01", false)
	y.flow(t, box, "1200.5", "PL", "2025-06-01", true)
	exported := y.flow(t, box, "600", "DE", "2025-07-01", false)
	earlier := y.flow(t, bottle, "100", "PL", "2024-12-31", false)
	y.supply(t, box, "produced", "100", "", "2025-02-01")      // 12,000 g manufactured
	y.supply(t, bottle, "received", "200", "DE", "2025-04-01") // 5,000 g brought from abroad
	y.supply(t, bottle, "received", "50", "PL", "2025-05-01")  // a domestic purchase: no source

	page := y.get(t, "/bdo-reports/sources?year=2025&per_page=2")
	assert.EqualValues(t, 5, page["total"])
	assert.EqualValues(t, 1, page["page"])
	require.Len(t, page["data"], 2)
	first := page["data"].([]any)[0].(map[string]any)
	assert.Equal(t, "manufactured", first["suggested_section"], "2025-02-01 production comes first")
	assert.Equal(t, "paper", first["material_group"])
	assert.Equal(t, "12000", first["mass_g"])
	assert.Equal(t, "0.012", first["mass_mg"])
	assert.Equal(t, "unclassified", first["state"])
	assert.Equal(t, map[string][2]string{"plastics": {"0.03", "0"}, "paper": {"0.0126", "0.0012005"}}, totals(page))
	summary := page["summary"].(map[string]any)
	assert.Equal(t, "0.0438005", summary["total_mg"])
	assert.EqualValues(t, 5, summary["unclassified"])
	last := y.get(t, "/bdo-reports/sources?year=2025&per_page=2&page=3")
	require.Len(t, last["data"], 1)
	assert.Equal(t, "flow:"+exported, last["data"].([]any)[0].(map[string]any)["key"])
	assert.Equal(t, "exported", last["data"].([]any)[0].(map[string]any)["suggested_section"])

	res := y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
		map[string]any{"key": "flow:" + exported, "section": "exported", "excluded": true, "exclusion_reason": "Wysyłka próbna, zwrócona"},
		map[string]any{"key": first["key"], "section": "manufactured", "reusable": true},
	}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.EqualValues(t, 2, res.JSON["classified"])
	page = y.get(t, "/bdo-reports/sources?year=2025")
	assert.Equal(t, map[string][2]string{"plastics": {"0.03", "0"}, "paper": {"0", "0.0132005"}}, totals(page),
		"the exclusion leaves the totals, the reusable override moves the production")
	summary = page["summary"].(map[string]any)
	assert.EqualValues(t, 3, summary["unclassified"])
	assert.EqualValues(t, 1, summary["excluded"])
	for _, s := range page["data"].([]any) {
		if s := s.(map[string]any); s["key"] == "flow:"+exported {
			assert.Equal(t, "excluded", s["state"])
			assert.Equal(t, "Wysyłka próbna, zwrócona", s["classification"].(map[string]any)["exclusion_reason"])
		}
	}

	other := a.NewTenant(apitest.TenantSpec{})
	foreign := (&year{API: a, tn: other}).flow(t, (&year{API: a, tn: other}).item(t, "GLASS", "300"), "300", "PL", "2025-01-10", false)
	for name, key := range map[string]string{
		"a packaging card (item) id": "flow:" + bottle, "another organization's flow": "flow:" + foreign,
		"a flow of another year": "flow:" + earlier, "not a source key": "card:" + bottle,
	} {
		res := y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
			map[string]any{"key": key, "section": "placed_on_market"}}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Equal(t, "invalid_register_sources", res.ErrorCode(), name)
		assert.Contains(t, res.FieldErrors(), "sources.0.key", name)
	}
	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
		map[string]any{"key": "flow:" + exported, "section": "exported", "excluded": true}}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "sources.0.exclusion_reason")

	for _, query := range []string{"", "?year=2023", "?year=2027", "?year=2025&per_page=101", "?year=2025&per_page=0", "?year=2025&page=0", "?year=x"} {
		res := y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path("/bdo-reports/sources" + query), Token: y.tn.Token})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, query)
	}
}

// The spec's body: sources as bare keys, each classified into its
// suggested section; an object entry says otherwise. A bad key names its
// entry, and nothing is recorded.
func TestClassifyingSourcesByTheirKeys(t *testing.T) {
	a := apitest.New(t)
	y := &year{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	box := y.item(t, "PAPER_CARDBOARD", "120")
	exported, placed := y.flow(t, box, "600", "DE", "2025-07-01", false), y.flow(t, box, "240", "PL", "2025-08-01", false)
	y.supply(t, box, "produced", "10", "", "2025-02-01")
	untouched := y.flow(t, box, "120", "PL", "2025-09-01", false)
	produced := ""
	for _, s := range y.get(t, "/bdo-reports/sources?year=2025")["data"].([]any) {
		if s := s.(map[string]any); s["kind"] == "supply" {
			produced = s["key"].(string)
		}
	}
	require.NotEmpty(t, produced)
	sections := func() map[string]any {
		out := map[string]any{}
		for _, s := range y.get(t, "/bdo-reports/sources?year=2025")["data"].([]any) {
			s := s.(map[string]any)
			if c, ok := s["classification"].(map[string]any); ok {
				out[s["key"].(string)] = c["section"]
			} else {
				out[s["key"].(string)] = s["state"]
			}
		}
		return out
	}

	other := &year{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	foreign := other.flow(t, other.item(t, "GLASS", "300"), "300", "PL", "2025-01-10", false)
	res := y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
		"flow:" + exported, "card:" + box, "flow:not-a-uuid", "flow:" + foreign, map[string]any{"key": "supply:" + box}, "",
	}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	fields := res.FieldErrors()
	assert.Equal(t, []string{"sources.5"}, keysOf(fields), "the empty key fails binding, before any lookup")
	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
		"flow:" + exported, "card:" + box, "flow:not-a-uuid", "flow:" + foreign, map[string]any{"key": "supply:" + box},
	}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	assert.Equal(t, "invalid_register_sources", res.ErrorCode())
	fields = res.FieldErrors()
	assert.Equal(t, []string{"sources.1", "sources.2", "sources.3", "sources.4.key"}, keysOf(fields),
		"a bare key is named by its entry, an object's by its key field; the good key is not named")
	assert.Equal(t, []any{"is not a flow:<uuid> or supply:<uuid> source of 2025 for this organization"}, fields["sources.1"])
	unclassified := map[string]any{"flow:" + exported: "unclassified", "flow:" + placed: "unclassified", produced: "unclassified",
		"flow:" + untouched: "unclassified"}
	assert.Equal(t, unclassified, sections(), "nothing is recorded")

	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
		"flow:" + exported, produced, map[string]any{"key": "flow:" + placed, "section": "exported"},
	}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.EqualValues(t, 3, res.JSON["classified"])
	assert.Equal(t, []any{"flow:" + exported, produced, "flow:" + placed}, res.JSON["sources"])
	assert.Equal(t, map[string]any{"flow:" + exported: "exported", produced: "manufactured", "flow:" + placed: "exported",
		"flow:" + untouched: "unclassified"}, sections(), "bare keys go into their suggested sections, the object into its own")
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
