package registers_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/internal/i18n"
	"ppwr/internal/register"
)

// Each register has its own request and response schema, built from its
// declaration, with its labels translated.
func TestEachRegisterHasItsOwnSchemas(t *testing.T) {
	a := apitest.New(t)
	for _, locale := range []i18n.Locale{i18n.EN, i18n.PL} {
		var doc struct {
			Components struct {
				Schemas map[string]struct {
					Properties map[string]struct {
						Properties map[string]struct {
							Description string `json:"description"`
						} `json:"properties"`
						Required []string `json:"required"`
					} `json:"properties"`
				} `json:"schemas"`
			} `json:"components"`
		}
		require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(locale), &doc))
		for _, reg := range register.All {
			name := stemOf(reg.Slug)
			answer, ok := doc.Components.Schemas[name]
			require.True(t, ok, "%s has no %s schema", reg.Slug, name)
			create, ok := doc.Components.Schemas[name+"Create"]
			require.True(t, ok, "%s has no %sCreate schema", reg.Slug, name)
			for _, f := range reg.Fields {
				assert.Contains(t, answer.Properties["values"].Properties, f.Name, "%s answers %s", reg.Slug, f.Name)
				sent := create.Properties["values"].Properties[f.Name]
				assert.Equal(t, i18n.T(locale, string(register.Label(f.Name))), sent.Description, "%s labels %s in %s", reg.Slug, f.Name, locale)
			}
			for _, d := range reg.Derived {
				assert.Contains(t, answer.Properties["values"].Properties, d.Name)
				assert.NotContains(t, create.Properties["values"].Properties, d.Name, "%s is computed, never sent", d.Name)
			}
		}
	}
}

func stemOf(slug string) string {
	out := []byte{}
	upper := true
	for _, c := range []byte(slug) {
		switch {
		case c == '-':
			upper = true
		case upper:
			out, upper = append(out, c-'a'+'A'), false
		default:
			out = append(out, c)
		}
	}
	return string(out) + "Entry"
}
