package i18n

import (
	"regexp"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFallsBackToEnglish(t *testing.T) {
	assert.Equal(t, PL, Parse("pl"))
	assert.Equal(t, PL, Parse("pl-PL"))
	assert.Equal(t, EN, Parse("EN"))
	assert.Equal(t, EN, Parse(""))
	assert.Equal(t, EN, Parse("de"))
}

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// sameInBothLanguages are messages that are correctly identical in pl and en.
var sameInBothLanguages = map[string]bool{"response.200": true}

// Both catalogues must carry the same keys with the same fmt verbs, or a
// Polish client would see an English message or a garbled one.
func TestCataloguesMatch(t *testing.T) {
	en, pl := Keys(EN), Keys(PL)
	sort.Strings(en)
	sort.Strings(pl)
	require.Equal(t, en, pl)
	for _, k := range en {
		assert.Equal(t, verb.FindAllString(T(EN, k), -1), verb.FindAllString(T(PL, k), -1), "verbs of %s", k)
		if !sameInBothLanguages[k] {
			assert.NotEqual(t, T(EN, k), T(PL, k), "%s is not translated", k)
		}
	}
}

func TestTFormatsAndFallsBack(t *testing.T) {
	assert.Equal(t, "no.such.key", T(PL, "no.such.key"))
	assert.Contains(t, T(EN, "field.per_page_range", 1, 100), "100")
}
