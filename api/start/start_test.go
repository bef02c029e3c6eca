package start_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func codes(list any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range list.([]any) {
		m := e.(map[string]any)
		out[m["code"].(string)] = m
	}
	return out
}

func TestDictionariesInBothLanguages(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	en := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/dictionaries"), Token: tn.Token})
	pl := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/dictionaries"), Token: tn.Token, Headers: map[string]string{"X-Locale": "pl"}})
	require.Equal(t, http.StatusOK, en.Code)
	require.Equal(t, http.StatusOK, pl.Code)
	assert.NotContains(t, en.JSON, "data", "a detail read is the plain object")

	assert.Equal(t, "Poland", codes(en.JSON["countries"])["PL"]["name"])
	assert.Equal(t, "Polska", codes(pl.JSON["countries"])["PL"]["name"])
	assert.Equal(t, true, codes(en.JSON["countries"])["DE"]["eu_member"])

	materials := codes(pl.JSON["materials"])
	assert.Equal(t, "plastics", materials["PLASTIC_PET"]["bdo_group"])
	assert.Equal(t, "PLASTIC", materials["PLASTIC_PET"]["parent"])
	for _, group := range []string{"PLASTIC", "PAPER", "GLASS", "STEEL", "ALUMINIUM", "WOOD", "MULTIMATERIAL", "OTHER"} {
		assert.Contains(t, materials, group)
	}
	for _, list := range []string{"packaging_categories", "packaging_formats", "economic_roles", "document_types"} {
		assert.NotEmpty(t, en.JSON[list], list)
	}
	assert.Contains(t, codes(en.JSON["economic_roles"]), "fulfilment_service_provider")

	rules := codes(en.JSON["rule_sets"])
	require.Contains(t, rules, "recyclability_grades")
	assert.Equal(t, []any{"A", "B", "C"}, rules["recyclability_grades"]["grades"])
	assert.Equal(t, "1.0", rules["recycled_content_plastic_2040"]["version"], "the 2040 minimums of R15 are published")
}
