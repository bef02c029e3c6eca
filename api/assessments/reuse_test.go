package assessments_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newCrate is a bench whose item is a reusable plastic crate on the
// Polish market, classified and assessed as reusable (Art. 11), with its
// technical documentation; its re-use system is not recorded yet.
func newCrate(t *testing.T) (b *bench, reuseAssessment string) {
	b = newBenchOf(t, map[string]any{"internalCode": "CRATE-" + uuid.NewString()[:8], "name": "Skrzynka wielokrotnego użytku",
		"sourcingType": "purchased", "massG": "1800", "mainMaterialCode": "PLASTIC_PP", "stockUnit": "piece",
		"reuseType": "reusable", "foodContactStatus": "not_food_contact"})
	b.body = b.created(t, b.tn, "/catalog-items/"+b.item+"/components", map[string]any{"name": "Skrzynka", "role": "body", "materialCode": "PLASTIC_PP", "massG": "1800"})["id"].(string)
	b.market(t, "PL")
	b.accepted(t, "packaging-classification", map[string]any{"packaging_function": "transport", "is_packaging": true, "reuse_type": "reusable",
		"contact_sensitive": false, "food_contact": false, "annex_ii_category": 9, "predominant_material": "plastic", "composite": false,
		"article_29_format": "crate"}, "")
	criteria := []any{}
	for _, c := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		criteria = append(criteria, map[string]any{"criterion": "11(1)(" + c + ")", "met": true, "evidence": b.proof})
	}
	reuseAssessment = b.accepted(t, "reuse-assessments", map[string]any{"criteria": criteria, "minimum_rotations": 50,
		"reuse_system_type": "closed_loop", "system_operator": "Pula Skrzynek Sp. z o.o.", "article_29_format": "crate"}, "")
	b.dossier(t)
	return b, reuseAssessment
}

// inMarket is a market or operator rule's outcome in the assessment's
// only market, and what it misses there.
func inMarket(t *testing.T, a map[string]any, rule string) (string, []any) {
	t.Helper()
	markets := result(t, a, rule)["markets"].([]any)
	require.Len(t, markets, 1, rule)
	m := markets[0].(map[string]any)
	assert.Equal(t, "PL", m["country"])
	return m["outcome"].(string), m["missing"].([]any)
}

func (b *bench) findingOf(t *testing.T, rule string) string {
	for _, f := range b.openFindings(t) {
		if msg := f.(map[string]any)["message"].(string); strings.Contains(msg, "Rule "+rule+" ") {
			return msg
		}
	}
	return ""
}

func TestAReusableCrateNeedsItsReuseSystemAndItsReuseAssessment(t *testing.T) {
	b, reuseAssessment := newCrate(t)

	first := b.assess(t, "2026-11-26")
	assert.Equal(t, "pass", outcomes(first)["R24"], "every criterion of Art. 11(1) met with evidence")
	for rule, want := range map[string][]any{"R45": {"reuse-systems@PL"}, "R46": {"reuse-systems@PL", "reuse-assessments.reconditioning_steps"}} {
		assert.Equal(t, "documentation_missing", outcomes(first)[rule], rule)
		outcome, missing := inMarket(t, first, rule)
		assert.Equal(t, "documentation_missing", outcome)
		assert.Equal(t, want, missing, "%s: no re-use system covers Poland", rule)
		assert.Contains(t, b.findingOf(t, rule), "reuse-systems@PL", "the finding says what to record")
	}

	system := b.created(t, b.tn, "/ppwr/reuse-systems", map[string]any{"code": "POOL-PL", "name": "Pula skrzynek",
		"operator": "Pula Skrzynek Sp. z o.o.", "loop": "closed_loop", "return_incentive": "Kaucja 20 zł za skrzynkę",
		"participants": []any{map[string]any{"name": "Pula Skrzynek Sp. z o.o.", "role": "operator", "confirmation": b.proof},
			map[string]any{"name": "Myjnia B", "role": "reconditioner", "confirmation": b.proof}},
		"reconditioning_steps": []string{"condition_check", "cleaning", "fitness_inspection"}, "items": []string{b.item}, "markets": []string{"PL"}})
	second := b.assess(t, "2026-11-26")
	for _, rule := range []string{"R24", "R45", "R46"} {
		assert.Equal(t, "pass", outcomes(second)[rule], rule)
		assert.Empty(t, b.findingOf(t, rule), "%s: the passing assessment resolves its finding", rule)
	}
	outcome, _ := inMarket(t, second, "R45")
	assert.Equal(t, "pass", outcome)
	assert.Contains(t, result(t, second, "R45")["entries"], system["id"], "the system is cited")
	assert.Equal(t, "not_yet_applicable", outcomes(second)["R27"], "the label waits for its implementing act")

	// A correction not yet reviewed supersedes the accepted assessment:
	// no accepted assessment is left.
	b.created(t, b.tn, "/catalog-items/"+b.item+"/ppwr/reuse-assessments", map[string]any{"catalog_revision": b.revision(t),
		"method": "test_method", "supersedes": reuseAssessment, "values": map[string]any{"criteria": []any{map[string]any{"criterion": "11(1)(a)", "met": true}}, "reuse_system_type": "closed_loop"}})
	third := b.assess(t, "2026-11-26")
	assert.Equal(t, "documentation_missing", outcomes(third)["R24"])
	assert.Equal(t, []any{"reuse-assessments"}, result(t, third, "R24")["missing"])
	assert.Equal(t, "pass", outcomes(third)["R46"], "the system records the reconditioning steps")
}

func TestTheReuseTargetsStartIn2030AndReadTheProfile(t *testing.T) {
	b, _ := newCrate(t)
	rulesOf := func(list any) []string {
		var out []string
		for _, r := range list.([]any) {
			out = append(out, r.(map[string]any)["rule"].(string))
		}
		return out
	}
	before := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2029-12-31")
	after := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2030-01-01")
	for _, rule := range []string{"R50", "R51", "R52", "R53"} {
		assert.Contains(t, rulesOf(before["upcoming"]), rule)
		assert.Contains(t, rulesOf(after["applicable"]), rule, "from 1 January 2030")
	}
	for _, rule := range []string{"R24", "R45", "R46"} {
		assert.Contains(t, rulesOf(before["applicable"]), rule)
	}
	for _, rule := range []string{"R27", "R49", "R55"} {
		assert.Contains(t, rulesOf(after["upcoming"]), rule, "R27 and R49 wait for their acts, R55 for 2031")
	}

	// The statistics of 2030 are read, but without a compliance profile
	// no target can be decided.
	a := b.assess(t, "2031-07-01")
	assert.Equal(t, "not_yet_applicable", outcomes(a)["R49"], "the Art. 30(3) method act is pending")
	assert.Equal(t, true, result(t, a, "R49")["applies_from_pending_act"])
	for _, rule := range []string{"R50", "R52", "R53", "R55"} {
		assert.Equal(t, "insufficient_data", outcomes(a)[rule], rule)
		outcome, missing := inMarket(t, a, rule)
		assert.Equal(t, "insufficient_data", outcome)
		assert.Equal(t, []any{"compliance-profile@PL"}, missing, rule)
		assert.Equal(t, "operator", result(t, a, rule)["level"])
	}
	assert.Equal(t, "not_applicable", outcomes(a)["R51"], "the crate claims no Art. 29(4) exemption")
	assert.Equal(t, "no_exemption_29_4", result(t, a, "R51")["reason"])
}
