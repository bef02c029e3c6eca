package i18n

import (
	"regexp"
	"sort"
	"strings"
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

// verb matches one fmt directive: flags, an optional explicit argument
// index, width and precision (each possibly "*" or indexed) and the verb
// letter; "%%" counts too, so a literal percent sign must match as well.
var verb = regexp.MustCompile(`%[-+# 0]*(?:\[\d+\])?(?:\d+|\*)?(?:\.(?:\[\d+\])?(?:\d+|\*)?)?(?:\[\d+\])?[a-zA-Z%]`)

// sameInBothLanguages lists the only keys whose Polish value may equal the
// English one. Every entry needs a reason; the test below also fails when an
// entry is no longer identical, so the list cannot go stale.
var sameInBothLanguages = map[string]string{
	// "OK." is the HTTP reason phrase, used as is in Polish software.
	"response.200": "HTTP reason phrase",
	// The audit log's actor types, the same words in Polish.
	"support.actor.operator": "the same word in Polish",
	"support.actor.system":   "the same word in Polish",
}

// Both catalogues must carry the same keys, or a Polish client would see an
// English message (T falls back to English for a missing key).
func TestCataloguesHaveTheSameKeys(t *testing.T) {
	en, pl := Keys(EN), Keys(PL)
	sort.Strings(en)
	sort.Strings(pl)
	require.Equal(t, en, pl)
}

// normalized folds the differences that do not make a translation: case,
// runs of white space and a final full stop.
func normalized(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".")
}

// A Polish value equal to the English one (ignoring case, spacing and a
// final full stop) is an untranslated string in the Polish OpenAPI document
// and in Polish error messages, unless the key is allow-listed above.
func TestPolishValuesAreTranslated(t *testing.T) {
	for _, k := range Keys(EN) {
		en, pl := catalogues[EN][k], catalogues[PL][k]
		assert.NotEmpty(t, strings.TrimSpace(pl), "%s is empty in pl", k)
		if _, allowed := sameInBothLanguages[k]; allowed {
			continue
		}
		assert.NotEqual(t, normalized(en), normalized(pl), "%s is not translated into Polish: %q", k, pl)
	}
	for k := range sameInBothLanguages {
		require.True(t, Has(EN, k) && Has(PL, k), "allow-listed key %s no longer exists", k)
		assert.Equal(t, catalogues[EN][k], catalogues[PL][k], "allow-listed key %s now differs; drop it from sameInBothLanguages", k)
	}
}

// englishWords are common English words that are not Polish words (so "a",
// "to", "by", "do", "on", "no" are left out).
var englishWords = map[string]bool{
	"the": true, "of": true, "and": true, "or": true, "is": true, "are": true, "be": true,
	"must": true, "with": true, "for": true, "from": true, "this": true, "that": true,
	"not": true, "an": true, "has": true, "have": true, "your": true, "you": true,
	"which": true, "when": true, "only": true, "will": true, "should": true, "its": true,
}

// Literal parts of a message that stay English by design: `code`, "quoted
// values", <placeholders> and HTTP header names such as Retry-After.
var untranslatable = regexp.MustCompile("`[^`]*`|\"[^\"]*\"|<[^>]*>|\\b[A-Z][A-Za-z]*(?:-[A-Z][A-Za-z]*)+\\b")

var word = regexp.MustCompile(`\p{L}+`)

// A half-translated value ("Lista of items") passes the equality test; a
// Polish value must not contain English function words outside code.
func TestPolishValuesHaveNoEnglishWords(t *testing.T) {
	for _, k := range Keys(PL) {
		prose := untranslatable.ReplaceAllString(catalogues[PL][k], " ")
		for _, w := range word.FindAllString(prose, -1) {
			assert.False(t, englishWords[strings.ToLower(w)], "%s: English word %q in %q", k, w, catalogues[PL][k])
		}
	}
}

// Each Polish template must take the same fmt verbs in the same order as the
// English one, or T would render "%!d(MISSING)" or swap arguments.
func TestPolishValuesKeepTheFmtVerbs(t *testing.T) {
	for _, k := range Keys(EN) {
		assert.Equal(t, verb.FindAllString(catalogues[EN][k], -1), verb.FindAllString(catalogues[PL][k], -1), "fmt verbs of %s", k)
	}
}

// The checks above must be able to fail.
func TestTranslationChecksCatchMistakes(t *testing.T) {
	assert.Equal(t, normalized("List imports."), normalized("  list   IMPORTS "))
	assert.Equal(t, []string{"%d", "%[2]s", "%-5.2f", "%%", "%q"}, verb.FindAllString("od %d do %[2]s, %-5.2f%% z %q", -1))
	assert.NotEqual(t, verb.FindAllString("from %d to %s", -1), verb.FindAllString("od %s do %d", -1))
	prose := untranslatable.ReplaceAllString("zobacz Retry-After i `the code`, \"piece\" lub <the key>", " ")
	for _, w := range word.FindAllString(prose, -1) {
		assert.False(t, englishWords[strings.ToLower(w)], w)
	}
	assert.True(t, englishWords["the"])
	assert.Contains(t, word.FindAllString("Lista of items", -1), "of")
}

func TestTFormatsAndFallsBack(t *testing.T) {
	assert.Equal(t, "no.such.key", T(PL, "no.such.key"))
	assert.Contains(t, T(EN, "field.per_page_range", 1, 100), "100")
}

// A count takes the plural form its number needs in each language:
// Polish has three, with the teens taking the "many" form.
func TestCountsTakeTheirPluralForm(t *testing.T) {
	for n, want := range map[int]string{0: "0 seconds", 1: "1 second", 2: "2 seconds", 5: "5 seconds", 21: "21 seconds"} {
		assert.Equal(t, want, Seconds(n).in(EN))
	}
	for n, want := range map[int]string{
		0: "0 sekund", 1: "1 sekundę", 2: "2 sekundy", 4: "4 sekundy", 5: "5 sekund", 11: "11 sekund", 12: "12 sekund",
		14: "14 sekund", 21: "21 sekund", 22: "22 sekundy", 25: "25 sekund", 104: "104 sekundy", 112: "112 sekund",
	} {
		assert.Equal(t, want, Seconds(n).in(PL))
	}
	assert.Equal(t, "Zbyt wiele żądań. Spróbuj ponownie za 3 sekundy.", T(PL, "error.rate_limited", Seconds(3)), "T renders a Count in its locale")
	assert.Equal(t, "Too many requests. Retry in 1 second.", T(EN, "error.rate_limited", Seconds(1)))
}

// Every noun a Count names has as many forms as its language has plural
// forms, or pluralForm would pick a missing or a wrong one.
func TestCountsHaveEveryPluralForm(t *testing.T) {
	for _, l := range Locales {
		for _, k := range Keys(l) {
			if !strings.HasPrefix(k, countPrefix) {
				continue
			}
			forms := strings.Split(catalogues[l][k], "|")
			assert.Len(t, forms, pluralForms[l], "%s in %s", k, l)
			for _, f := range forms {
				assert.NotEmpty(t, strings.TrimSpace(f), "%s in %s", k, l)
			}
		}
	}
}
