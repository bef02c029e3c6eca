// Package i18n holds the service's user-facing messages in English and
// Polish. Messages are fmt templates keyed by a stable id; the catalogues are
// JSON files (messages/<locale>/*.json, one file per topic) embedded in the
// binary so translators never touch Go code.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// Locale is a supported message language.
type Locale string

const (
	EN Locale = "en"
	PL Locale = "pl"
)

// Default is the locale used when a request names none or an unsupported one.
const Default = EN

// Locales lists every supported locale, the default first.
var Locales = []Locale{EN, PL}

//go:embed messages
var files embed.FS

var catalogues = mustLoad()

func mustLoad() map[Locale]map[string]string {
	out := make(map[Locale]map[string]string, len(Locales))
	for _, l := range Locales {
		names, err := fs.Glob(files, "messages/"+string(l)+"/*.json")
		if err != nil || len(names) == 0 {
			panic(fmt.Sprintf("i18n: no catalogue for %s", l))
		}
		out[l] = map[string]string{}
		for _, name := range names {
			raw, err := files.ReadFile(name)
			if err != nil {
				panic(fmt.Sprintf("i18n: %v", err))
			}
			m := map[string]string{}
			if err := json.Unmarshal(raw, &m); err != nil {
				panic(fmt.Sprintf("i18n: %s: %v", name, err))
			}
			for k, v := range m {
				if _, dup := out[l][k]; dup {
					panic(fmt.Sprintf("i18n: %s redefines %q", name, k))
				}
				out[l][k] = v
			}
		}
	}
	return out
}

// Parse maps a header or query value such as "pl", "pl-PL" or "EN" onto a
// supported locale; anything else falls back to Default, because a client
// asking for an unsupported language still deserves a readable answer.
func Parse(value string) Locale {
	v := strings.ToLower(strings.TrimSpace(value))
	for _, l := range Locales {
		if v == string(l) || strings.HasPrefix(v, string(l)+"-") || strings.HasPrefix(v, string(l)+"_") {
			return l
		}
	}
	return Default
}

// T renders message key in locale with fmt-style args; a Count among them
// is rendered in l too. A key missing from the locale falls back to
// English, then to the key itself, so a forgotten translation degrades
// instead of failing a request (a test keeps the catalogues complete).
func T(l Locale, key string, args ...any) string {
	tmpl, ok := catalogues[l][key]
	if !ok {
		if tmpl, ok = catalogues[Default][key]; !ok {
			return key
		}
	}
	if len(args) == 0 {
		return tmpl
	}
	localized := make([]any, len(args))
	for i, arg := range args {
		localized[i] = arg
		switch a := arg.(type) {
		case Count:
			localized[i] = a.in(l)
		case Message:
			localized[i] = T(l, a.Key)
		case map[string]any:
			// A Message kept in JSON (a stored issue's arguments) comes back
			// as its object.
			if key, ok := a[messageField].(string); ok && len(a) == 1 {
				localized[i] = T(l, key)
			}
		}
	}
	return fmt.Sprintf(tmpl, localized...)
}

// Message is an argument that is itself a message, rendered in the
// locale of the message that holds it: an issue names the reason of a
// failure in the reader's language. In JSON it is {"message": key}.
type Message struct {
	Key string `json:"message"`
}

const messageField = "message"

// Count is a number with the noun it counts ("5 seconds"), an argument of
// a message that T renders in the message's locale, in the plural form
// the locale's grammar takes for the number. A message keeps its
// arguments unrendered until it is, so one Count serves pl and en.
type Count struct {
	N int
	// Key names the noun's forms in the locale's order of pluralForm,
	// separated by "|": "second|seconds", "sekundę|sekundy|sekund".
	Key string
}

// Seconds counts seconds, as in "retry in 5 seconds".
func Seconds(n int) Count { return Count{N: n, Key: "count.seconds"} }

// countPrefix starts the keys of a Count's forms.
const countPrefix = "count."

// pluralForms is how many forms a noun takes in each locale.
var pluralForms = map[Locale]int{EN: 2, PL: 3}

func (c Count) in(l Locale) string {
	forms := strings.Split(T(l, c.Key), "|")
	return fmt.Sprintf("%d %s", c.N, forms[min(pluralForm(l, c.N), len(forms)-1)])
}

// pluralForm is the index of the form l's grammar takes for n (the CLDR
// rules for integers). English: one (1 second), other (0, 2, 5 seconds).
// Polish: one (1 sekundę), few for units 2-4 except the teens
// (2, 4, 22 sekundy), many for the rest (0, 5, 12-14, 25 sekund).
func pluralForm(l Locale, n int) int {
	if n < 0 {
		n = -n
	}
	switch l {
	case PL:
		switch {
		case n == 1:
			return 0
		case n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14):
			return 1
		default:
			return 2
		}
	default:
		if n == 1 {
			return 0
		}
		return 1
	}
}

// Keys returns the message keys of a locale (for completeness tests).
func Keys(l Locale) []string {
	keys := make([]string, 0, len(catalogues[l]))
	for k := range catalogues[l] {
		keys = append(keys, k)
	}
	return keys
}

// Has reports whether locale l defines key.
func Has(l Locale, key string) bool {
	_, ok := catalogues[l][key]
	return ok
}
