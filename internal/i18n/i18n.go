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

// T renders message key in locale with fmt-style args. A key missing from
// the locale falls back to English, then to the key itself, so a forgotten
// translation degrades instead of failing a request (a test keeps the
// catalogues complete).
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
	return fmt.Sprintf(tmpl, args...)
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
