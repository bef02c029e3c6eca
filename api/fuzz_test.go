package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ppwr/api/apitest"
)

// FuzzWrites drives the binder and the write pipeline with arbitrary
// bodies, Idempotency-Keys, preconditions and query strings on the built
// writes and the search: whatever a client sends, the answer is never a
// server error. make test runs the seeds and a few seconds of fuzzing;
// run it longer with
//
//	go test ./api -run '^$' -fuzz FuzzWrites -fuzztime 10m
func FuzzWrites(f *testing.F) {
	a := apitest.New(f)
	tn := a.NewTenant(apitest.TenantSpec{})
	item := createFixture(f, a, tn, "/catalog-items", `{"internalCode":"FUZZ","name":"Fuzz","sourcingType":"purchased","massG":"1",
		"mainMaterialCode":"PAPER","stockUnit":"piece","foodContactStatus":"unknown","reuseType":"single_use"}`)
	folder := createFixture(f, a, tn, "/folders", `{"name":"Fuzz"}`)
	family := createFixture(f, a, tn, "/families", `{"name":"Fuzz"}`)
	set := createFixture(f, a, tn, "/packaging-systems", `{"name":"Fuzz"}`)
	line := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/packaging-systems/" + set + "/items"), Token: tn.Token,
		Body:    `{"revision":1,"item":"` + item + `","quantity":"1","unit":"piece","role":"container","outer_packaging":true}`,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}}).JSON["line"].(string)
	party := createFixture(f, a, tn, "/parties", `{"name":"Fuzz","roles":["supplier"],"country":"PL","email":"fuzz@example.test"}`)
	request := createFixture(f, a, tn, "/supplier-requests", `{"party":"`+party+`","language":"pl","due_on":"2999-01-01",
		"lines":[{"item":"`+item+`","document_type":"other"}]}`)
	targets := []struct{ method, path string }{
		{http.MethodPost, "/catalog-items"},
		{http.MethodPatch, "/catalog-items/" + item},
		{http.MethodPost, "/catalog-items/" + item + "/archive"},
		{http.MethodPost, "/catalog-items/" + item + "/restore"},
		{http.MethodPost, "/catalog-items/" + item + "/components"},
		{http.MethodPut, "/catalog-items/" + item + "/markets"},
		{http.MethodPost, "/folders"},
		{http.MethodPut, "/folders/" + folder},
		{http.MethodDelete, "/folders/" + folder},
		{http.MethodPost, "/families"},
		{http.MethodPut, "/families/" + family},
		{http.MethodPost, "/parties"},
		{http.MethodPost, "/catalog-items/" + item + "/supply-events"},
		{http.MethodPost, "/flows"},
		{http.MethodPost, "/packaging-systems"},
		{http.MethodPut, "/packaging-systems/" + set},
		{http.MethodPost, "/packaging-systems/" + set + "/items"},
		{http.MethodDelete, "/packaging-systems/" + set + "/items/" + line},
		{http.MethodPost, "/packaging-systems/" + set + "/consumptions"},
		{http.MethodPost, "/packaging-systems/" + set + "/reservations"},
		{http.MethodPost, "/packing-consumptions"},
		{http.MethodPost, "/packing-recommendations"},
		{http.MethodGet, "/catalog-items/" + item + "/inventory"},
		{http.MethodGet, "/catalog-items"},
		{http.MethodGet, "/folders"},
		{http.MethodGet, "/audit-log"},
		{http.MethodPost, "/catalog-items/" + item + "/traceability"},
		{http.MethodPost, "/supplier-requests"},
		{http.MethodPost, "/supplier-requests/" + request + "/cancel"},
		{http.MethodGet, "/supplier-requests"},
		{http.MethodGet, "/issues"},
		{http.MethodGet, "/documents"},
		{http.MethodGet, "/evidence-proposals"},
		{http.MethodPost, "/ppwr/refill-stations"},
		{http.MethodPost, "/ppwr/deposit-schemes"},
		{http.MethodPost, "/ppwr/reuse-systems"},
		{http.MethodGet, "/ppwr/reuse-statistics"},
		{http.MethodPost, "/ppwr/authority-requests"},
		{http.MethodPost, "/ppwr/epr-reports"},
		{http.MethodPost, "/passports"},
		{http.MethodGet, "/sharing-grants"},
	}
	seeds := []string{
		`{"internalCode":"A\u0000B","name":"x"}`, `{"name":"  "}`, `{"name":null}`, `{"revision":99999999999,"name":"x"}`,
		`{"massG":"1e400"}`, `{"massG":" 12.5 "}`, `{"folder":"00000000-0000-0000-0000-000000000000"}`,
		`{"\u0000":"\u0000"}`, `{"markets":["PL"],"market_details":{"PL":[]}}`, `[]`, `"x"`, `{`, ``,
		`{"roles":[1],"country":{}}`, `{"revision":1,"parent":"` + folder + `"}`,
		`{"catalog_revision":1,"direction":"used","quantity_units":"999999999999999.999999999","usage_channel":"ecommerce","country":"PL","event_on":"2026-01-01"}`,
		`{"item":"` + item + `","kind":"placed","quantity":"1","unit":"kg","mass_g":"1","country":"PL","event_on":"9999-12-31"}`,
		`{"revision":2,"configuration_hash":"` + strings.Repeat("0", 64) + `","sets_count":2147483648,"order_reference":"\u0000","country":"PL","expires_in_hours":169}`,
		`{"order_reference":"A","event_on":"2026-01-01","country":"PL","lines":[{"item":"` + item + `","revision":1,"quantity":"1","unit":"m3","reusable":false},{}]}`,
		`{"products":[{"length_mm":"0.000000001","width_mm":"1e9","height_mm":"1","quantity":100}],"limit":0}`,
		`{"link_type":"other","version":"` + item + `","revision":1}`,
		`{"products":["` + item + `",7],"hygiene_evidence":"x","country":"PL","name":"\u0000","refill_rules":" "}`,
		`{"market":"PL","deposit_amount":"-0","currency":"pln","items":[null],"participates_from":"0000-00-00"}`,
		`{"participants":[{"name":"A","role":"operator","confirmation":"` + item + `"}],"markets":["PL","PL"],"reconditioning_steps":[""]}`,
		`{"authority":{"name":"A","country":"NO"},"items":["` + item + `"],"received_on":"2026-02-30","answered_on":"2025-01-01"}`,
		`{"country":"PL","year":2147483648,"period_from":"2026-12-31","period_to":"2026-01-01","flow_kinds":[]}`,
		`{"catalog_item":"` + item + `","catalog_revision":0}`,
		`{"party":"` + party + `","language":"en","due_on":"2999-01-01","recipients":["a@b"],"lines":[{"item":"` + item + `","component":"` + item + `","measurement_codes":["MASS_G"]}]}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s), "fuzz-key-0000000000000", `"1"`, "q=%00&per_page=7")
	}
	f.Add(uint8(0), []byte(`{}`), "\xff\xfe invalid utf-8 key...", "*", "q=\xff")
	f.Fuzz(func(t *testing.T, target uint8, body []byte, key, ifMatch, query string) {
		op := targets[int(target)%len(targets)]
		req := httptest.NewRequest(op.method, apitest.Base+tn.Path(op.path), bytes.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("Authorization", "Bearer "+tn.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header["Idempotency-Key"] = []string{key}
		req.Header["If-Match"] = []string{ifMatch}
		rec := httptest.NewRecorder()
		a.Engine.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q (key %q, If-Match %q, query %q) → %d: %s", op.method, op.path, body, key, ifMatch, query, rec.Code, rec.Body)
		}
	})
}

// createFixture creates a record through the API and returns its id.
func createFixture(f *testing.F, a *apitest.API, tn apitest.Tenant, path, body string) string {
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	if res.Code != http.StatusCreated {
		f.Fatalf("%s: %d %s", path, res.Code, res.Body)
	}
	return res.JSON["id"].(string)
}
