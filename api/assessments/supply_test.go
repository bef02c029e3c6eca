package assessments_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
)

// A jar bought from a supplier needs the supplier's information for each
// component: a request's lines answered with files pass R39, and
// cancelling the request before the answers are reviewed takes them away.
func TestSupplierInformationIsAnAnsweredRequestPerComponent(t *testing.T) {
	b := newJar(t, "purchased", apitest.WithStorage()) // the answers are files
	party := b.created(t, b.tn, "/parties", map[string]any{"name": "Huta Szkła S.A.", "roles": []string{"supplier"}, "country": "PL",
		"email": "jakosc@huta.example"})["id"]
	request := b.created(t, b.tn, "/supplier-requests", map[string]any{"party": party, "language": "pl", "due_on": "2026-12-31",
		"lines": []map[string]any{{"item": b.item, "component": b.body, "document_type": "supplier_declaration"},
			{"item": b.item, "component": b.closure, "document_type": "supplier_declaration"}}})["id"].(string)
	bothMissing := []any{"supplier-requests@" + b.body, "supplier-requests@" + b.closure}

	r39 := result(t, b.assess(t, "2026-11-26"), "R39")
	assert.Equal(t, "documentation_missing", r39["outcome"], "a request nobody answered is no information")
	assert.Equal(t, bothMissing, r39["missing"])
	assert.Equal(t, "not_applicable", result(t, b.assess(t, "2026-11-26"), "R38")["outcome"], "no authority request names the jar")

	for _, line := range b.get(t, "/supplier-requests/"+request+"/lines")["data"].([]any) {
		body, contentType := apitest.Form(t, map[string]string{"document_type": "supplier_declaration", "title": "Deklaracja dostawcy",
			"supplier_request": request, "supplier_request_line": line.(map[string]any)["id"].(string)}, "deklaracja.txt", []byte("Deklarujemy zgodność."))
		res := b.Do(apitest.Req{Method: http.MethodPost, Path: b.tn.Path("/documents"), Token: b.tn.Token, Body: body,
			Headers: map[string]string{"Content-Type": contentType, "Idempotency-Key": apitest.IdemKey()}})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	}
	r39 = result(t, b.assess(t, "2026-11-26"), "R39")
	assert.Equal(t, "pass", r39["outcome"], "each component's line is answered")
	assert.Empty(t, r39["missing"])

	revision := b.get(t, "/supplier-requests/"+request)["revision"]
	res := b.send(t, b.tn, http.MethodPost, "/supplier-requests/"+request+"/cancel", map[string]any{"revision": revision})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	cancelled := b.assess(t, "2026-11-26")
	r39 = result(t, cancelled, "R39")
	assert.Equal(t, "documentation_missing", r39["outcome"], "answers of a cancelled request are never reviewed")
	assert.Equal(t, bothMissing, r39["missing"])
	assert.NotEqual(t, "pass", cancelled["status"])
}

// Where the organization is the EPR producer, R59 asks for the approved
// annual report of the last year due in each market: none is due until 1
// June 2027, then the 2026 report.
func TestTheAnnualEPRReportOfEachMarket(t *testing.T) {
	b := newBench(t)
	b.accepted(t, "role-duties", map[string]any{"scenario": b.scenario, "economic_roles": []string{"manufacturer", "producer"},
		"micro_enterprise": false, "epr_producer": true, "epr_registration_number": "000012345"}, "")
	b.created(t, b.tn, "/flows", map[string]any{"item": b.item, "kind": "placed", "quantity": "1000", "unit": "piece", "mass_g": "184000",
		"country": "PL", "event_on": "2026-11-20", "counterparty_name": "Sklep Sp. z o.o.", "counterparty_country": "PL",
		"counterparty_address": "ul. Handlowa 2, Warszawa"})

	market := func(a map[string]any) map[string]any {
		r59 := result(t, a, "R59")
		require.Len(t, r59["markets"], 1)
		m := r59["markets"].([]any)[0].(map[string]any)
		assert.Equal(t, b.scenario, m["market"])
		assert.Equal(t, "PL", m["country"])
		assert.Equal(t, r59["outcome"], m["outcome"], "one market: its outcome is the rule's")
		return m
	}
	assert.Equal(t, "epr_report_not_due_yet", market(b.assess(t, "2027-06-01"))["reason"])
	missing := market(b.assess(t, "2027-06-02"))
	assert.Equal(t, "documentation_missing", missing["outcome"])
	assert.Equal(t, []any{"epr-reports@PL/2026"}, missing["missing"])

	report := b.created(t, b.tn, "/ppwr/epr-reports", map[string]any{"country": "PL", "year": 2026})
	assert.Equal(t, "simplified", report["form"], "184 kg is below 10 t")
	assert.Equal(t, "epr_report_not_approved", market(b.assess(t, "2027-06-02"))["reason"], "an unreviewed report does not count")
	res := b.send(t, b.reviewer, http.MethodPost, "/ppwr/epr-reports/"+report["id"].(string)+"/review",
		map[string]any{"decision": "approved", "reason": "Zgodne z ERP", "revision": report["revision"]})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	passing := market(b.assess(t, "2027-06-02"))
	assert.Equal(t, "pass", passing["outcome"])
	assert.Empty(t, passing["missing"])

	b.created(t, b.tn, "/flows", map[string]any{"item": b.item, "kind": "used", "quantity": "1", "unit": "piece", "mass_g": "9816000",
		"country": "PL", "event_on": "2026-11-21"})
	mismatch := market(b.assess(t, "2027-06-02"))
	assert.Equal(t, "fail", mismatch["outcome"], "a later flow takes 2026 to 10 t: the simplified report no longer fits")
	assert.Equal(t, "epr_report_form_mismatch", mismatch["reason"])
}

// R38 fails while an authority request naming the item is past its 10
// days unanswered.
func TestAnAuthorityRequestPastItsDueDate(t *testing.T) {
	b := newBench(t)
	b.created(t, b.tn, "/ppwr/authority-requests", map[string]any{"authority": map[string]any{"name": "WIOŚ Kraków", "country": "PL"},
		"authority_reference": "NK.7021.1.2026", "items": []string{b.item}, "received_on": "2026-11-10"})
	r38 := result(t, b.assess(t, "2026-11-20"), "R38")
	assert.Equal(t, "pass", r38["outcome"], "the 10th day is still in time")
	assert.Equal(t, []any{"NK.7021.1.2026", "2026-11-20"}, r38["reason_args"])
	r38 = result(t, b.assess(t, "2026-11-21"), "R38")
	assert.Equal(t, "fail", r38["outcome"])
	assert.Equal(t, "authority_request_overdue", r38["reason"])
}

// R40 counts the item's supply records still kept that name no
// counterparty: a flow may name its own, and a generated flow carries its
// supply event's.
func TestSupplyRecordsNameTheirCounterparty(t *testing.T) {
	b := newBench(t)
	assert.Equal(t, "not_applicable", result(t, b.assess(t, "2026-11-26"), "R40")["outcome"], "no supply record")

	flow := map[string]any{"item": b.item, "kind": "placed", "quantity": "10", "unit": "piece", "mass_g": "1840", "country": "PL",
		"event_on": "2026-11-20"}
	b.created(t, b.tn, "/flows", flow)
	flow["counterparty_name"] = "Sklep Sp. z o.o."
	res := b.send(t, b.tn, http.MethodPost, "/flows", flow)
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	assert.Contains(t, res.FieldErrors(), "counterparty_country", "a counterparty is named in full")
	assert.Contains(t, res.FieldErrors(), "counterparty_address")
	flow["counterparty_country"], flow["counterparty_address"] = "PL", "ul. Handlowa 2, Warszawa"
	named := b.created(t, b.tn, "/flows", flow)
	assert.Equal(t, "Sklep Sp. z o.o.", b.get(t, "/flows/"+named["id"].(string))["counterparty_name"])

	supply := func(direction string) map[string]any {
		return b.created(t, b.tn, "/catalog-items/"+b.item+"/supply-events", map[string]any{"catalog_revision": b.revision(t),
			"direction": direction, "quantity_units": "5", "event_on": "2026-11-21", "counterparty_name": "Kunde GmbH",
			"counterparty_country": "DE", "counterparty_address": "Hauptstr. 1, 10115 Berlin"})
	}
	supply("received")
	generated := b.get(t, "/flows/"+supply("supplied")["flow"].(string))
	assert.Equal(t, "Kunde GmbH", generated["counterparty_name"], "the supply event's counterparty")
	assert.Equal(t, "DE", generated["counterparty_country"])

	r40 := result(t, b.assess(t, "2026-11-26"), "R40")
	assert.Equal(t, "documentation_missing", r40["outcome"])
	assert.Equal(t, []any{"flows.counterparty_name"}, r40["missing"])
	assert.Equal(t, []any{"1", "5"}, r40["reason_args"], "one of four records, kept 5 years for single-use packaging")
	r40 = result(t, b.assess(t, "2031-11-21"), "R40")
	assert.Equal(t, "pass", r40["outcome"], "5 years on, only the records of 21 November are kept")
	assert.Equal(t, "not_applicable", result(t, b.assess(t, "2031-11-22"), "R40")["outcome"])
}

// The supply-chain rules all apply from 12 August 2026: upcoming the day
// before, applicable that day.
func TestTheSupplyRulesInTheSummaryOnEitherSideOf12August2026(t *testing.T) {
	b := newBench(t)
	rulesOf := func(s map[string]any, list string) []string {
		var out []string
		for _, r := range s[list].([]any) {
			out = append(out, r.(map[string]any)["rule"].(string))
		}
		return out
	}
	before := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2026-08-11")
	after := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2026-08-12")
	for _, rule := range []string{"R38", "R39", "R40", "R59", "R61"} {
		assert.True(t, slices.Contains(rulesOf(before, "upcoming"), rule), "%s is upcoming on 11 August", rule)
		assert.False(t, slices.Contains(rulesOf(before, "applicable"), rule), rule)
		assert.True(t, slices.Contains(rulesOf(after, "applicable"), rule), "%s applies from 12 August", rule)
	}
	a := b.assess(t, "2026-08-11")
	for _, rule := range []string{"R38", "R39", "R40", "R59", "R61"} {
		assert.Equal(t, "not_yet_applicable", result(t, a, rule)["outcome"], rule)
	}
}
