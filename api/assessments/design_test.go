package assessments_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The minimisation chapter end to end: the jar's Annex IV assessment
// justifies its mass, so R22 (from 2030) and R23 (from the general date)
// pass; without the justified minimum R22 cannot be shown met and its
// finding says what to record; the summary adds R22 on 1 January 2030.
func TestTheMinimisationChapter(t *testing.T) {
	b := newBench(t)
	b.complete(t)
	minimization := b.minimised()

	res := b.send(t, b.tn, http.MethodPost, "/catalog-items/"+b.item+"/ppwr/minimization", map[string]any{"catalog_revision": b.revision(t),
		"method": "test_method", "values": withValues(minimization, map[string]any{"double_walls": true})})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, "a double wall needs an exception of Art. 10(2)")
	assert.Contains(t, res.FieldErrors(), "values.exception")

	entry := b.accepted(t, "minimization", minimization, "")
	before, after := b.assess(t, "2029-12-31"), b.assess(t, "2030-01-01")
	assert.Equal(t, "not_yet_applicable", outcomes(before)["R22"])
	assert.Equal(t, "pass", outcomes(before)["R23"], "Art. 10(2) follows the general date")
	assert.Equal(t, "pass", outcomes(after)["R22"], "184 g is within 180 g and its 3 per cent batch variation")
	assert.Equal(t, "pass", outcomes(after)["R23"])
	assert.Contains(t, result(t, after, "R22")["entries"], entry)

	b.accepted(t, "minimization", withValues(minimization, map[string]any{"minimum_mass": nil}), entry)
	missing := b.assess(t, "2030-01-01")
	r22 := result(t, missing, "R22")
	assert.Equal(t, "documentation_missing", r22["outcome"])
	assert.Equal(t, []any{"minimization.minimum_mass"}, r22["missing"])
	assert.Equal(t, "pass", outcomes(missing)["R23"])
	assert.NotEqual(t, "pass", missing["status"])
	findings := b.openFindings(t)
	i := slices.IndexFunc(findings, func(f any) bool { return strings.HasPrefix(f.(map[string]any)["message"].(string), "Rule R22 ") })
	require.GreaterOrEqual(t, i, 0, "R22 opens its finding")
	assert.Contains(t, findings[i].(map[string]any)["message"], "record: minimization.minimum_mass", "the finding says what to record")

	rulesIn := func(summary map[string]any, list string) []string {
		var out []string
		for _, r := range summary[list].([]any) {
			out = append(out, r.(map[string]any)["rule"].(string))
		}
		return out
	}
	sBefore := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2029-12-31")
	sAfter := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2030-01-01")
	assert.Contains(t, rulesIn(sBefore, "upcoming"), "R22")
	assert.NotContains(t, rulesIn(sBefore, "applicable"), "R22")
	assert.Contains(t, rulesIn(sAfter, "applicable"), "R22")
	assert.Contains(t, rulesIn(sBefore, "applicable"), "R23")
	assert.Contains(t, rulesIn(sAfter, "applicable"), "R23")
}

// withValues are the values with changes, a nil change removing one.
func withValues(base, changes map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range changes {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}
