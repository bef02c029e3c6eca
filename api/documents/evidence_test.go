package documents_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/documents"
)

// citable uploads the measurements PDF about item with the document type
// and processes it; it answers the processed version.
func (d *docs) citable(t *testing.T, item, documentType string) map[string]any {
	t.Helper()
	v := d.uploadDocument(t, map[string]string{"document_type": documentType, "title": "Karta", "catalog_item": item},
		"karta.pdf", fixtureFile(t, "measurements.pdf"))
	v = d.processed(t, v["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	return v
}

func (d *docs) propose(t *testing.T, version map[string]any, body map[string]any) *apitest.Response {
	t.Helper()
	return d.post(t, d.tn, "/document-versions/"+version["id"].(string)+"/evidence-proposals", body)
}

func (d *docs) decideProposal(t *testing.T, p map[string]any, body map[string]any) *apitest.Response {
	t.Helper()
	return d.Do(apitest.Req{Method: http.MethodPost, Path: d.tn.Path("/evidence-proposals/" + p["id"].(string) + "/decision"),
		Token: d.tn.Token, Body: body})
}

func TestManualProposalsQuoteTheirPageExactly(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	v := d.citable(t, item, "specification_sheet")

	res := d.propose(t, v, map[string]any{"code": "MASS_G", "value": "12.5", "unit": "g", "source_page": 1, "source_text": "Masa opakowania: 12,5 g"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, "manual", res.JSON["origin"])
	assert.Equal(t, "open", res.JSON["status"])
	assert.Equal(t, item, res.JSON["catalog_item"])
	assert.Equal(t, documents.ReviewInReview, d.get(t, "/document-versions/"+v["id"].(string))["review_status"], "a proposal starts the review")

	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"quotation from another page": {map[string]any{"code": "HEIGHT_MM", "value": "150", "unit": "mm", "source_page": 1, "source_text": "Height: 150 mm"}, "source_text"},
		"page that does not exist":    {map[string]any{"code": "HEIGHT_MM", "value": "150", "unit": "mm", "source_page": 9, "source_text": "Height: 150 mm"}, "source_page"},
		"unit not the code's":         {map[string]any{"code": "HEIGHT_MM", "value": "15", "unit": "cm", "source_page": 3, "source_text": "Height: 150 mm"}, "unit"},
		"measurement not positive":    {map[string]any{"code": "MASS_G", "value": "0", "unit": "g", "source_page": 1, "source_text": "Masa opakowania: 12,5 g"}, "value"},
		"percentage over 100":         {map[string]any{"code": "RECYCLED_CONTENT_PCT", "value": "185", "unit": "%", "source_page": 2, "source_text": "85%", "method": "declaration", "result": "85%"}, "value"},
		"design for recycling method": {map[string]any{"code": "RECYCLED_CONTENT_PCT", "value": "85", "unit": "%", "source_page": 2, "source_text": "85%"}, "method"},
		"chemical laboratory report":  {map[string]any{"code": "LEAD_MG_KG", "value": "3", "unit": "mg/kg", "source_page": 1, "source_text": "Masa"}, "laboratory_report"},
		"unknown code":                {map[string]any{"code": "COLOUR", "value": "3", "unit": "g", "source_page": 1, "source_text": "Masa"}, "code"},
	} {
		res := d.propose(t, v, c.body)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Contains(t, res.FieldErrors(), c.field, "%s: %s", name, res.Body.String())
	}

	res = d.propose(t, v, map[string]any{"code": "RECYCLED_CONTENT_PCT", "value": "85", "unit": "%", "source_page": 2,
		"source_text": "udział surowca z recyklingu 85%", "method": "supplier declaration", "result": "udział surowca z recyklingu 85%"})
	assert.Equal(t, http.StatusCreated, res.Code, res.Body.String())

	unlinked := d.uploadDocument(t, map[string]string{"document_type": "other", "title": "Loose"}, "l.pdf", fixtureFile(t, "measurements.pdf"))
	unlinked = d.processed(t, unlinked["id"].(string))
	res = d.propose(t, unlinked, map[string]any{"code": "MASS_G", "value": "12.5", "unit": "g", "source_page": 1, "source_text": "Masa opakowania: 12,5 g"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "proposals need a document about an item")
	assert.Equal(t, "document_not_analyzable", res.ErrorCode())

	other := d.NewTenant(apitest.TenantSpec{})
	res = d.post(t, other, "/document-versions/"+v["id"].(string)+"/evidence-proposals", map[string]any{"code": "MASS_G"})
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's version")
}

func TestChemicalValuesNeedALaboratoryReportAndAComponentOfTheItem(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Butelka")
	comp := d.post(t, d.tn, "/catalog-items/"+item+"/components", map[string]any{"name": "Nakrętka", "role": "closure", "materialCode": "PLASTIC_OTHER", "massG": "2"})
	require.Equal(t, http.StatusCreated, comp.Code, comp.Body.String())
	otherItem := d.newItem(t, "Inne")
	foreign := d.post(t, d.tn, "/catalog-items/"+otherItem+"/components", map[string]any{"name": "Etykieta", "role": "label", "materialCode": "PLASTIC_OTHER", "massG": "1"})
	require.Equal(t, http.StatusCreated, foreign.Code, foreign.Body.String())
	v := d.citable(t, item, "specification_sheet")
	lab := d.citable(t, item, "laboratory_report")

	body := func(component, report string) map[string]any {
		return map[string]any{"code": "LEAD_MG_KG", "value": "0", "unit": "mg/kg", "source_page": 1, "source_text": "Masa opakowania",
			"component": component, "laboratory_report": report}
	}
	res := d.propose(t, v, body(foreign.JSON["id"].(string), lab["id"].(string)))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "component", "a component of another item")
	res = d.propose(t, v, body(comp.JSON["id"].(string), v["id"].(string)))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "laboratory_report", "a specification sheet is no laboratory report")

	res = d.propose(t, v, body(comp.JSON["id"].(string), lab["id"].(string)))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, comp.JSON["id"], res.JSON["component"])
	assert.Equal(t, lab["id"], res.JSON["laboratory_report"])
}

func TestProposalDecisionsAreFinalAndMakeEvidencedFacts(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	v := d.citable(t, item, "specification_sheet")
	propose := func(code, value, unit string, page int, quote string) map[string]any {
		res := d.propose(t, v, map[string]any{"code": code, "value": value, "unit": unit, "source_page": page, "source_text": quote})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
		return res.JSON
	}
	mass := propose("MASS_G", "12.5", "g", 1, "Masa opakowania: 12,5 g")
	width := propose("WIDTH_MM", "300", "mm", 2, "Szerokość: 30 cm")
	height := propose("HEIGHT_MM", "150", "mm", 3, "Height: 150 mm")

	res := d.decideProposal(t, mass, map[string]any{"decision": "accepted", "revision": 1})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "note")
	res = d.decideProposal(t, mass, map[string]any{"decision": "accepted", "revision": 1, "note": "ok", "acceptedValue": "12"})
	assert.Contains(t, res.FieldErrors(), "acceptedValue", "a value is only sent with acceptedModified")
	res = d.decideProposal(t, width, map[string]any{"decision": "acceptedModified", "revision": 1, "note": "30 cm is 300 mm"})
	assert.Contains(t, res.FieldErrors(), "acceptedValue")
	res = d.decideProposal(t, mass, map[string]any{"decision": "accepted", "revision": 7, "note": "ok"})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale revision")

	res = d.decideProposal(t, mass, map[string]any{"decision": "accepted", "revision": 1, "note": "matches the sheet"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "accepted", res.JSON["status"])
	assert.Equal(t, d.tn.User.String(), res.JSON["decided_by"])
	res = d.decideProposal(t, res.JSON, map[string]any{"decision": "rejected", "revision": res.JSON["revision"], "note": "changed my mind"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a decided proposal stays decided")
	assert.Equal(t, "proposal_decided", res.ErrorCode())
	assert.Equal(t, "accepted", d.get(t, "/evidence-proposals/"+mass["id"].(string))["status"], "a retry reads the outcome")

	res = d.decideProposal(t, width, map[string]any{"decision": "acceptedModified", "revision": 1, "note": "rounded", "acceptedValue": "299.5"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "299.5", res.JSON["accepted_value"])
	res = d.decideProposal(t, height, map[string]any{"decision": "rejected", "revision": 1, "note": "outer, not inner height"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())

	list := d.get(t, "/evidence-proposals?item="+item)["data"].([]any)
	assert.Len(t, list, 3)
	assert.Empty(t, d.get(t, "/evidence-proposals?item="+uuid.NewString())["data"])

	facts, err := documents.EvidencedFacts(context.Background(), d.DB, d.tn.Org, uuid.MustParse(item))
	require.NoError(t, err)
	byCode := map[string]decimal.Decimal{}
	for _, f := range facts {
		byCode[f.Code] = f.Value
	}
	assert.Len(t, byCode, 2, "a rejected value is no fact")
	assert.Equal(t, "12.5", byCode["MASS_G"].String())
	assert.Equal(t, "299.5", byCode["WIDTH_MM"].String(), "the modified value is the fact")
	assert.Contains(t, d.EventTypes(d.tn.Org), "evidence_proposal.decided")
}

func TestTraceabilityLinksApprovedVersionsValidToday(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	upload := func(fields map[string]string) map[string]any {
		fields["document_type"], fields["title"] = "supplier_declaration", "Deklaracja"
		v := d.uploadDocument(t, fields, "d.txt", []byte("Deklaracja dostawcy"))
		return d.processed(t, v["id"].(string))
	}
	current := upload(map[string]string{"valid_from": "2026-01-01", "valid_until": "2099-12-31"})
	expired := upload(map[string]string{"valid_until": "2026-01-01"})
	link := func(v map[string]any, revision any) *apitest.Response {
		return d.post(t, d.tn, "/catalog-items/"+item+"/traceability", map[string]any{"link_type": "supplier_declaration", "version": v["id"], "revision": revision})
	}

	res := link(current, 1)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "only an approved version is linked")
	assert.Equal(t, "document_not_approved", res.ErrorCode())
	approve := func(v map[string]any) map[string]any {
		res := decide(d, t, d.tn, v, map[string]any{"decision": "approved", "revision": v["revision"]})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		return res.JSON
	}
	current, expired = approve(current), approve(expired)

	assert.Equal(t, http.StatusConflict, link(current, 9).Code, "the item's revision is stale")
	res = link(current, 1)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, "Deklaracja", res.JSON["document_title"])
	assert.Equal(t, "2099-12-31", res.JSON["valid_until"])
	assert.Equal(t, http.StatusConflict, link(current, 1).Code, "the same link twice")
	res = link(expired, 1)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	expiredLink := "/catalog-items/" + item + "/traceability/" + res.JSON["id"].(string)

	links := d.get(t, "/catalog-items/"+item+"/traceability")["data"].([]any)
	require.Len(t, links, 1, "a document no longer valid is not listed")
	assert.Equal(t, current["id"], links[0].(map[string]any)["version"])
	assert.Equal(t, "2026-01-01", d.get(t, expiredLink)["valid_until"], "its link is still read where its Location points")

	res = decide(d, t, d.tn, current, map[string]any{"decision": "revoked", "revision": current["revision"], "reason": "withdrawn by the supplier"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Empty(t, d.get(t, "/catalog-items/"+item+"/traceability")["data"], "a revoked version no longer counts")
	issues := d.get(t, "/issues?kind=evidence_document_withdrawn&item="+item)["data"].([]any)
	require.Len(t, issues, 1, "the withdrawn evidence is an issue of the item")
	assert.Equal(t, "high", issues[0].(map[string]any)["severity"])

	other := d.NewTenant(apitest.TenantSpec{})
	res = d.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/catalog-items/" + item + "/traceability"), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
	res = d.Do(apitest.Req{Method: http.MethodGet, Path: other.Path(expiredLink), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's link")
	res = d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path(strings.Replace(expiredLink, item, d.newItem(t, "Inne"), 1)), Token: d.tn.Token})
	assert.Equal(t, http.StatusNotFound, res.Code, "a link of another item")
}
