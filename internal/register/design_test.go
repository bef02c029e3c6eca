package register

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// What the design rules read: a statement of no substances of concern
// that contradicts a listed one is refused, an innovative entry dates its
// first placing, and the articles' inclusions in the technical
// documentation are elements a dossier may list without being incomplete
// for lack of them.
func TestValuesTheDesignRulesRead(t *testing.T) {
	var failed []string
	fail := func(field, _ string, _ ...any) { failed = append(failed, field) }
	listed := Values{"no_substances_of_concern": BoolValue(true), "substances_of_concern": ObjectsValue([]Values{{"name": TextValue("BPA")}})}
	chemicalSafety.Check(listed, Subject{}, fail)
	assert.Equal(t, []string{"no_substances_of_concern"}, failed)
	failed = nil
	chemicalSafety.Check(Values{"no_substances_of_concern": BoolValue(true)}, Subject{}, fail)
	assert.Empty(t, failed)

	_, errs := bind(t, recyclability, `{"annex_ii_category": 12, "dfr_score": {"value": "50", "unit": "%"}, "innovative": true,
		"innovative_notification": "0195f5a8-0000-7000-8000-000000000001"}`)
	assert.True(t, errs.Has("first_placed_on"), "the derogation runs from the first placing")

	v, errs := bind(t, conformityDossiers, `{"manufacturer": "Huta", "placed_on_market_on": "2026-09-01",
		"elements": [{"element": "TD-5(6)", "complete": true}, {"element": "TD-7(6)", "complete": false}]}`)
	assert.False(t, errs.Failed())
	conformityDossiers.Complete(v, Subject{})
	assert.Equal(t, DossierElements, v.Strings("missing_elements"), "only the Annex VII elements make a dossier incomplete")
}
