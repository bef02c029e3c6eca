package assessments_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marketOutcomes are a market rule's outcomes by country.
func marketOutcomes(r map[string]any) map[string]string {
	out := map[string]string{}
	for _, m := range r["markets"].([]any) {
		out[m.(map[string]any)["country"].(string)] = m.(map[string]any)["outcome"].(string)
	}
	return out
}

// summaryRule is the summary's entry of a rule in a list, nil when the
// list does not hold it.
func summaryRule(list any, rule string) map[string]any {
	for _, r := range list.([]any) {
		if r := r.(map[string]any); r["rule"] == rule {
			return r
		}
	}
	return nil
}

// depositScheme records the item's participation in a market's
// deposit-return system; accepted, when the reviewer accepts it.
func (b *bench) depositScheme(t *testing.T, country string, accepted bool) string {
	t.Helper()
	return b.depositSchemeOf(t, b.item, country, accepted)
}

// depositSchemeOf is depositScheme of another item.
func (b *bench) depositSchemeOf(t *testing.T, item, country string, accepted bool) string {
	t.Helper()
	id := b.created(t, b.tn, "/ppwr/deposit-schemes", map[string]any{"market": country, "scheme_name": "System kaucyjny " + country,
		"scheme_operator": "Operator " + country, "deposit_amount": "0.50", "currency": "EUR", "items": []string{item},
		"label_requirement": "Znak systemu kaucyjnego", "label_applied": true, "participates_from": "2025-10-01"})["id"].(string)
	if accepted {
		b.acceptScheme(t, id)
	}
	return id
}

func (b *bench) acceptScheme(t *testing.T, id string) {
	t.Helper()
	res := b.send(t, b.reviewer, http.MethodPost, "/ppwr/deposit-schemes/"+id+"/review",
		map[string]any{"decision": "accepted", "reason": "Umowa sprawdzona", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
}

// A 0.5 l single-use plastic bottle sold in Poland and Germany: its
// labels, claims and deposit-return systems meet R30, R32 and R62; the
// rules waiting for the label acts stay not yet applicable on either side
// of 12 August 2028; removing one input opens the rule that reads it.
func TestALabelledBottleMeetsTheLabellingRulesInForce(t *testing.T) {
	b := newBench(t)
	res := b.send(t, b.tn, http.MethodPut, "/catalog-items/"+b.item+"/markets", map[string]any{"market_revision": b.revision(t), "markets": []string{"PL", "DE"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	b.accepted(t, "packaging-classification", map[string]any{"packaging_function": "sales", "is_packaging": true, "reuse_type": "single_use",
		"contact_sensitive": true, "contact_sensitive_basis": "food_contact", "food_contact": true, "annex_ii_category": 7,
		"predominant_material": "plastic", "composite": false, "sup_beverage_bottle": true, "capacity": qty("500", "ml")}, "")
	labels := map[string]any{"identifier": "LOT-2029-01", "manufacturer_contact_marked": true, "misleading_marks_checked": true,
		"labels": []any{map[string]any{"type": "harmonised_material_label", "artwork": b.proof}, map[string]any{"type": "drs_label", "artwork": b.proof}},
		"claims": []any{map[string]any{"text": "30 per cent recycled PET", "scope": "unit", "substantiation": b.proof, "exceeds_legal_minimum": true}}}
	communications := b.accepted(t, "communications", labels, "")
	b.depositScheme(t, "PL", true)
	german := b.depositScheme(t, "DE", false)

	open := b.assess(t, "2029-01-01")
	r62 := result(t, open, "R62")
	assert.Equal(t, "insufficient_data", r62["outcome"], "the German scheme is not accepted yet")
	assert.Equal(t, map[string]string{"PL": "pass", "DE": "insufficient_data"}, marketOutcomes(r62))
	assert.Equal(t, []any{"deposit-schemes@DE"}, r62["missing"])

	b.acceptScheme(t, german)
	complete := b.assess(t, "2029-01-01")
	for _, rule := range []string{"R30", "R32", "R62"} {
		assert.Equal(t, "pass", result(t, complete, rule)["outcome"], rule)
	}
	assert.Equal(t, map[string]string{"PL": "pass", "DE": "pass"}, marketOutcomes(result(t, complete, "R62")))
	for _, rule := range []string{"R25", "R26", "R28", "R29", "R31"} {
		r := result(t, complete, rule)
		assert.Equal(t, "not_yet_applicable", r["outcome"], rule)
		assert.Equal(t, true, r["applies_from_pending_act"], "%s waits for its Commission act", rule)
	}

	delete(labels, "misleading_marks_checked")
	b.accepted(t, "communications", labels, communications)
	unchecked := b.assess(t, "2029-01-01")
	r30 := result(t, unchecked, "R30")
	assert.Equal(t, "documentation_missing", r30["outcome"], "the marks are not recorded as checked")
	assert.Equal(t, []any{"communications.misleading_marks_checked"}, r30["missing"])
	assert.Equal(t, "pass", result(t, unchecked, "R32")["outcome"])
	var finding string
	for _, f := range b.openFindings(t) {
		if msg := f.(map[string]any)["message"].(string); strings.HasPrefix(msg, "Rule R30 ") {
			finding = msg
		}
	}
	assert.Contains(t, finding, "communications.misleading_marks_checked", "the finding says what to record")

	before, after := b.assess(t, "2026-08-11"), b.assess(t, "2026-08-12")
	for _, rule := range []string{"R30", "R32"} {
		assert.Equal(t, "not_yet_applicable", result(t, before, rule)["outcome"], rule)
	}
	assert.Equal(t, "documentation_missing", result(t, after, "R30")["outcome"])
	assert.Equal(t, "pass", result(t, after, "R32")["outcome"])
}

func TestTheSummaryOnEitherSideOfTheLabellingDates(t *testing.T) {
	b := newBench(t)
	summary := func(date string) map[string]any { return b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date="+date) }

	for _, date := range []string{"2028-08-11", "2028-08-12"} {
		s := summary(date)
		for _, rule := range []string{"R25", "R29", "R31"} {
			assert.Nil(t, summaryRule(s["applicable"], rule), "%s on %s: the label act is pending", rule, date)
			upcoming := summaryRule(s["upcoming"], rule)
			require.NotNil(t, upcoming, "%s on %s", rule, date)
			assert.Equal(t, "2028-08-12", upcoming["applies_from"], rule)
			assert.Equal(t, true, upcoming["applies_from_pending_act"], rule)
		}
	}

	before, after := summary("2026-08-11"), summary("2026-08-12")
	for _, rule := range []string{"R30", "R32"} {
		assert.Nil(t, summaryRule(before["applicable"], rule), rule)
		assert.NotNil(t, summaryRule(before["upcoming"], rule), rule)
		assert.NotNil(t, summaryRule(after["applicable"], rule), "%s applies from 12 August 2026", rule)
		assert.Nil(t, summaryRule(after["upcoming"], rule), rule)
	}
}
