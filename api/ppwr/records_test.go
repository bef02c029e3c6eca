package ppwr_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestARefillStationIsCreatedWithItsRulesAndEvidenceAndListed(t *testing.T) {
	o := newDesk(t)
	product := o.item(t, o.tn, "single_use")
	body := map[string]any{"name": "Stacja Gdańsk", "location": "ul. Długa 1, Gdańsk", "country": "PL", "products": []string{product},
		"refill_rules": "Przynieś czysty, suchy pojemnik.", "hygiene_evidence": []string{o.approved}}
	s := o.ok(t, http.StatusCreated, http.MethodPost, "/ppwr/refill-stations", body)
	assert.Equal(t, []any{product}, s["products"])
	assert.Equal(t, []any{o.approved}, s["hygiene_evidence"])
	assert.EqualValues(t, 1, s["revision"])
	list := o.ok(t, http.StatusOK, http.MethodGet, "/ppwr/refill-stations", nil)
	assert.Equal(t, s["id"], list["data"].([]any)[0].(map[string]any)["id"])
	assert.Contains(t, o.EventTypes(o.tn.Org), "refill_station.created")
	assert.Len(t, o.AuditEntries(o.tn.Org, "createRefillStation"), 1)

	errs := o.refused(t, http.MethodPost, "/ppwr/refill-stations", with(body, map[string]any{
		"products": []string{product, o.foreignItem, "nie-uuid"}, "hygiene_evidence": []string{o.unapproved, o.foreignDoc},
		"refill_rules": " ", "country": "XX"}))
	assert.Contains(t, errs, "products.1", "another organization's item")
	assert.Contains(t, errs, "products.2", "not a UUID")
	assert.Contains(t, errs, "hygiene_evidence.0", "an unapproved version")
	assert.Contains(t, errs, "hygiene_evidence.1", "another organization's version")
	assert.Contains(t, errs, "refill_rules")
	assert.Contains(t, errs, "country")
	assert.NotContains(t, errs, "products.0")
	list = o.ok(t, http.StatusOK, http.MethodGet, "/ppwr/refill-stations", nil)
	assert.Len(t, list["data"], 1, "a refused station is not stored")
}

func TestADepositSchemeIsRecordedAndReviewedOnceByAnotherUser(t *testing.T) {
	o := newDesk(t)
	bottle := o.item(t, o.tn, "single_use")
	body := map[string]any{"market": "PL", "scheme_name": "System kaucyjny PL", "scheme_operator": "Operator Kaucji S.A.",
		"deposit_amount": "0.50", "currency": "PLN", "items": []string{bottle}, "label_requirement": "Znak systemu kaucyjnego na etykiecie",
		"label_applied": true, "evidence": []string{o.approved}, "participates_from": "2025-10-01"}
	s := o.ok(t, http.StatusCreated, http.MethodPost, "/ppwr/deposit-schemes", body)
	assert.Equal(t, "0.5", s["deposit_amount"])
	assert.Equal(t, "unreviewed", s["review_status"])
	path := "/ppwr/deposit-schemes/" + s["id"].(string)
	assert.Equal(t, s, o.ok(t, http.StatusOK, http.MethodGet, path, nil))
	res := o.send(t, o.other, http.MethodGet, path, nil)
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's record")

	decision := map[string]any{"decision": "accepted", "reason": "Umowa z operatorem sprawdzona", "revision": 1}
	res = o.send(t, o.tn, http.MethodPost, path+"/review", decision)
	assert.Equal(t, http.StatusForbidden, res.Code, "the creator cannot review")
	res = o.send(t, o.reviewer, http.MethodPost, path+"/review", with(decision, map[string]any{"revision": 2}))
	assert.Equal(t, http.StatusConflict, res.Code, "a stale revision")
	res = o.send(t, o.reviewer, http.MethodPost, path+"/review", decision)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "accepted", res.JSON["review_status"])
	assert.Equal(t, o.reviewer.User.String(), res.JSON["reviewed_by"])
	assert.EqualValues(t, 2, res.JSON["revision"])
	res = o.send(t, o.reviewer, http.MethodPost, path+"/review", with(decision, map[string]any{"revision": 2}))
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "record_already_reviewed", res.ErrorCode())
	assert.Contains(t, o.EventTypes(o.tn.Org), "deposit_scheme.reviewed")

	errs := o.refused(t, http.MethodPost, "/ppwr/deposit-schemes", with(body, map[string]any{
		"deposit_amount": "0", "currency": "zł", "items": []string{}, "evidence": []string{o.unapproved}}))
	assert.Contains(t, errs, "deposit_amount")
	assert.Contains(t, errs, "currency")
	assert.Contains(t, errs, "items")
	assert.Contains(t, errs, "evidence.0")
	errs = o.refused(t, http.MethodPost, "/ppwr/deposit-schemes", with(body, map[string]any{"items": []string{o.foreignItem}}))
	assert.Contains(t, errs, "items.0")
}

// with is body with some fields replaced.
func with(body, changes map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}
