package assessments_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/documents"
)

// An assessment is stale once a record it read, or would read now, is
// recorded, changed or decided after it: one test per kind of record
// beyond the item's registers and the compliance profile (see
// TestTheHORECADutiesPassWithAnAcceptedProfileAndNotWithout), each with a
// change the assessment does not read.

// staleAfter assesses the item on the date, makes the change and tells
// whether the assessment reads as stale.
func (b *bench) staleAfter(t *testing.T, date string, change func()) bool {
	t.Helper()
	id := b.assess(t, date)["id"].(string)
	change()
	return b.get(t, "/assessments/"+id)["stale"].(bool)
}

// otherItem is a second item of the organization.
func (b *bench) otherItem(t *testing.T) string {
	t.Helper()
	return b.created(t, b.tn, "/catalog-items", map[string]any{"internalCode": "LID-" + uuid.NewString()[:8], "name": "Wieczko",
		"sourcingType": "purchased", "massG": "4", "mainMaterialCode": "PLASTIC_PP", "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "food_contact"})["id"].(string)
}

// flowOf records a flow of the kind of the item, in Poland, on the day.
func (b *bench) flowOf(t *testing.T, item, kind, on string) {
	t.Helper()
	b.created(t, b.tn, "/flows", map[string]any{"item": item, "kind": kind, "quantity": "10", "unit": "piece", "mass_g": "1840",
		"country": "PL", "event_on": on})
}

func TestADepositSchemeOfTheItemAcceptedMakesItsAssessmentStale(t *testing.T) {
	b := newBench(t)
	other := b.otherItem(t)
	var scheme string
	assert.False(t, b.staleAfter(t, "2026-11-26", func() {
		b.depositSchemeOf(t, other, "PL", true)
		scheme = b.depositScheme(t, "DE", false)
	}), "another item's scheme, and the item's scheme before its review (not read)")
	assert.Zero(t, b.refreshStarts(t))
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { b.acceptScheme(t, scheme) }))
	assert.Positive(t, b.refreshStarts(t), "the acceptance records the item's refresh")
}

func TestAnAuthorityRequestNamingTheItemMakesItsAssessmentStale(t *testing.T) {
	b := newBench(t)
	other := b.otherItem(t)
	request := func(item, received string) {
		b.created(t, b.tn, "/ppwr/authority-requests", map[string]any{"authority": map[string]any{"name": "WIOŚ Kraków", "country": "PL"},
			"authority_reference": "NK.7021." + uuid.NewString()[:4], "items": []string{item}, "received_on": received})
	}
	assert.False(t, b.staleAfter(t, "2026-11-10", func() {
		request(other, "2026-11-09")
		request(b.item, "2026-11-11")
	}), "another item's request, and one received after the assessment's date")
	assert.True(t, b.staleAfter(t, "2026-11-20", func() { request(b.item, "2026-11-19") }))
	assert.Positive(t, b.refreshStarts(t), "the request records the item's refresh")
}

func TestAReuseSystemListingTheItemMakesItsAssessmentStale(t *testing.T) {
	b := newBench(t)
	other := b.otherItem(t)
	system := func(code, item string) {
		b.created(t, b.tn, "/ppwr/reuse-systems", map[string]any{"code": code, "name": "Pula słoików", "operator": "Pula Sp. z o.o.",
			"loop": "closed_loop", "return_incentive": "Kaucja 1 zł", "participants": []any{map[string]any{"name": "Pula Sp. z o.o.", "role": "operator"}},
			"reconditioning_steps": []string{"cleaning"}, "items": []string{item}, "markets": []string{"PL"}})
	}
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { system("POOL-LID", other) }), "another item's system")
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { system("POOL-JAR", b.item) }))
	assert.Positive(t, b.refreshStarts(t), "the system records the item's refresh")
}

func TestASupplierAnswerAboutTheItemMakesItsAssessmentStale(t *testing.T) {
	b := newJar(t, "purchased", apitest.WithStorage()) // the answers are files
	other := b.otherItem(t)
	party := b.created(t, b.tn, "/parties", map[string]any{"name": "Huta Szkła S.A.", "roles": []string{"supplier"}, "country": "PL",
		"email": "jakosc@huta.example"})["id"]
	request := b.created(t, b.tn, "/supplier-requests", map[string]any{"party": party, "language": "pl", "due_on": "2026-12-31",
		"lines": []map[string]any{{"item": other, "document_type": "supplier_declaration"},
			{"item": b.item, "component": b.body, "document_type": "supplier_declaration"}}})["id"].(string)
	answer := func(line int) {
		id := b.get(t, "/supplier-requests/"+request+"/lines")["data"].([]any)[line].(map[string]any)["id"].(string)
		body, contentType := apitest.Form(t, map[string]string{"document_type": "supplier_declaration", "title": "Deklaracja dostawcy",
			"supplier_request": request, "supplier_request_line": id}, "deklaracja.txt", []byte("Deklarujemy zgodność."))
		res := b.Do(apitest.Req{Method: http.MethodPost, Path: b.tn.Path("/documents"), Token: b.tn.Token, Body: body,
			Headers: map[string]string{"Content-Type": contentType, "Idempotency-Key": apitest.IdemKey()}})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	}
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { answer(0) }), "another item's line answered")
	assert.Zero(t, b.refreshStarts(t))
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { answer(1) }), "the item's line answered")
	assert.Positive(t, b.refreshStarts(t), "the answer records the item's refresh")
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { answer(1) }), "a second file changes nothing: the line was answered already")

	revision := b.get(t, "/supplier-requests/"+request)["revision"]
	assert.True(t, b.staleAfter(t, "2026-11-26", func() {
		res := b.send(t, b.tn, http.MethodPost, "/supplier-requests/"+request+"/cancel", map[string]any{"revision": revision})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	}), "the cancellation leaves the answer unreviewed for good")
}

func TestASupplierDocumentAboutTheItemApprovedMakesItsAssessmentStale(t *testing.T) {
	b := newJar(t, "purchased")
	other := uuid.MustParse(b.otherItem(t))
	item := uuid.MustParse(b.item)
	party := uuid.MustParse(b.created(t, b.tn, "/parties", map[string]any{"name": "Huta Szkła S.A.", "roles": []string{"supplier"},
		"country": "PL", "email": "jakosc@huta.example"})["id"].(string))
	declaration := func(item uuid.UUID) string {
		return b.StoredVersionOf(documents.Document{OrganizationID: b.tn.Org, DocumentType: "supplier_declaration", Title: "Deklaracja dostawcy",
			CatalogItemID: &item, PartyID: &party}, documents.ReviewUnreviewed)
	}
	approve := func(version string) {
		res := b.send(t, b.tn, http.MethodPost, "/document-versions/"+version+"/decision", map[string]any{"decision": "approved", "revision": 1})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	}
	others, ours := declaration(other), declaration(item)
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { approve(others) }), "another item's document")
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { approve(ours) }))
	assert.Positive(t, b.refreshStarts(t), "the approval records the item's refresh")
}

func TestASupplyRecordOfTheItemMakesItsAssessmentStale(t *testing.T) {
	b := newBench(t)
	other := b.otherItem(t)
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { b.flowOf(t, other, "placed", "2026-11-20") }), "another item's flow")
	assert.False(t, b.staleAfter(t, "2026-11-20", func() { b.flowOf(t, b.item, "placed", "2026-11-21") }),
		"a flow dated after the assessment's date is not counted on it")
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { b.flowOf(t, b.item, "placed", "2026-11-20") }))
	assert.True(t, b.staleAfter(t, "2026-11-26", func() {
		b.created(t, b.tn, "/catalog-items/"+b.item+"/supply-events", map[string]any{"catalog_revision": b.revision(t),
			"direction": "received", "quantity_units": "5", "event_on": "2026-11-21", "counterparty_name": "Huta Szkła S.A.",
			"counterparty_country": "PL", "counterparty_address": "ul. Szklana 1, Kraków"})
	}), "a receipt")
	assert.Positive(t, b.refreshStarts(t), "the flow and the receipt record the item's refresh")
}

// The organization-wide records count only by what they hold for the
// assessment's date.

func TestAFlowDatedInAClosedYearMakesTheOrganizationsAssessmentsStale(t *testing.T) {
	b := newBench(t)
	other := b.otherItem(t)
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { b.flowOf(t, other, "used", "2026-11-20") }),
		"the running year's flows change no total of a closed year")
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { b.flowOf(t, other, "used", "2025-12-31") }),
		"a late flow of 2025 changes its re-use statistics and placed mass")
}

func TestAnEPRReportOfTheYearDueMakesTheOrganizationsAssessmentsStale(t *testing.T) {
	b := newBench(t)
	report := func(year int) {
		b.created(t, b.tn, "/ppwr/epr-reports", map[string]any{"country": "PL", "year": year})
	}
	assert.False(t, b.staleAfter(t, "2027-06-02", func() { report(2024) }), "only the 2026 report is due on the date")
	assert.True(t, b.staleAfter(t, "2027-06-02", func() { report(2026) }))
}

func TestARefillStationInAProfiledCountryMakesTheOrganizationsAssessmentsStale(t *testing.T) {
	b := newBench(t)
	b.profiled(t, b.cafe(), true)
	station := func(country string) {
		b.created(t, b.tn, "/ppwr/refill-stations", map[string]any{"name": "Stacja " + country, "location": "Rynek 1", "country": country,
			"refill_rules": "Przynieś czysty, suchy pojemnik."})
	}
	assert.False(t, b.staleAfter(t, "2026-11-26", func() { station("DE") }), "no profile entry reads the stations of Germany")
	assert.True(t, b.staleAfter(t, "2026-11-26", func() { station("PL") }))
}
