// Package dictionaries holds the code lists served at GET /dictionaries:
// countries, packaging materials, packaging categories and formats, PPWR
// economic roles, document types and the rule sets the compliance checks are
// based on, each with display names in English and Polish.
//
// The lists live in versioned JSON files under data/ that are embedded in the
// binary, so a deployment always serves exactly the dictionaries it was built
// and tested with.
package dictionaries

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"
)

// Supported locales. Any other requested locale is served in LocaleEN.
const (
	LocaleEN = "en"
	LocalePL = "pl"
)

//go:embed data/*.json
var embedded embed.FS

// Names holds one text in every supported locale.
type Names struct {
	EN string `json:"en"`
	PL string `json:"pl"`
}

func (n Names) in(locale string) string {
	if locale == LocalePL {
		return n.PL
	}
	return n.EN
}

// RuleSet is a published, versioned set of rules derived from an article of
// a regulation.
type RuleSet struct {
	Code       string
	Names      Names
	Regulation string
	Article    string
	Version    string
	// EffectiveFrom is the first day the rule set applies, at midnight UTC.
	EffectiveFrom time.Time
	// EffectiveTo is the last day the rule set applies, at midnight UTC; it is
	// the zero time when the rule set has no end date.
	EffectiveTo time.Time
	// Grades lists the admissible grades in order, or is nil when the rule
	// set is not graded.
	Grades []string
}

// InEffectOn reports whether the rule set applies on the calendar day of t,
// taken in t's own location, because legal dates name days, not instants.
func (r RuleSet) InEffectOn(t time.Time) bool {
	y, m, d := t.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if day.Before(r.EffectiveFrom) {
		return false
	}
	return r.EffectiveTo.IsZero() || !day.After(r.EffectiveTo)
}

// Set is the parsed, validated dictionaries in all locales. It is immutable
// and safe for concurrent use.
type Set struct {
	version string

	countries     []country
	materials     []material
	categories    []describedEntry
	formats       []entry
	roles         []economicRole
	documentTypes []entry
	// ruleSets holds published rule sets only: drafts are validated on load
	// and then dropped, so no accessor can leak them.
	ruleSets []RuleSet

	countryCodes   map[string]struct{}
	materialCodes  map[string]struct{}
	categoryCodes  map[string]struct{}
	formatCodes    map[string]struct{}
	roleCodes      map[string]struct{}
	documentCodes  map[string]struct{}
	ruleSetsByCode map[string]int
}

var defaultSet = sync.OnceValue(func() *Set {
	data, err := fs.Sub(embedded, "data")
	if err != nil {
		panic(fmt.Sprintf("dictionaries: embedded data: %v", err))
	}
	s, err := Load(data)
	if err != nil {
		panic(fmt.Sprintf("dictionaries: embedded data is invalid: %v", err))
	}
	return s
})

// Default returns the embedded dictionaries, parsed once. It panics if the
// embedded data is invalid, which the package tests rule out.
func Default() *Set {
	return defaultSet()
}

// Version is the combined version of all dictionary files: "name@version"
// per file, sorted by name and joined by commas, such as
// "countries@2026.11.1,document_types@2026.11.1,…". It is stable for the
// same data and changes whenever a file's version does.
func (s *Set) Version() string {
	return s.version
}

// HasCountry reports whether code is a known ISO 3166-1 alpha-2 country code.
// Codes are case-sensitive, exactly as served.
func (s *Set) HasCountry(code string) bool { return has(s.countryCodes, code) }

// IsMemberState reports whether code is the country code of a Member
// State of the EU, whose authorities enforce the regulation.
func (s *Set) IsMemberState(code string) bool {
	i := slices.IndexFunc(s.countries, func(c country) bool { return c.Code == code })
	return i >= 0 && *s.countries[i].EUMember
}

// MemberStates are the country codes of the Member States of the EU,
// sorted.
func (s *Set) MemberStates() []string {
	var out []string
	for _, c := range s.countries {
		if *c.EUMember {
			out = append(out, c.Code)
		}
	}
	slices.Sort(out)
	return out
}

// HasMaterial reports whether code is a known material or material group.
func (s *Set) HasMaterial(code string) bool { return has(s.materialCodes, code) }

// BDOGroups are the material groups of the Polish annual packaging report
// (BDO), as the materials' bdo_group names them.
func BDOGroups() []string { return slices.Clone(bdoGroups) }

// BDOGroupsByMaterial maps every material code to its BDO material group.
func (s *Set) BDOGroupsByMaterial() map[string]string {
	out := make(map[string]string, len(s.materials))
	for _, m := range s.materials {
		out[m.Code] = m.BDOGroup
	}
	return out
}

// HasEconomicRole reports whether code is a known economic operator role.
func (s *Set) HasEconomicRole(code string) bool { return has(s.roleCodes, code) }

// HasDocumentType reports whether code is a known document type.
func (s *Set) HasDocumentType(code string) bool { return has(s.documentCodes, code) }

// DocumentTypeName is a document type's name in the locale; an unknown
// code is its own name.
func (s *Set) DocumentTypeName(code, locale string) string {
	for _, e := range s.documentTypes {
		if e.Code == code {
			return e.Names.in(locale)
		}
	}
	return code
}

// HasPackagingCategory reports whether code is a known packaging category.
func (s *Set) HasPackagingCategory(code string) bool { return has(s.categoryCodes, code) }

// HasPackagingFormat reports whether code is a known packaging format.
func (s *Set) HasPackagingFormat(code string) bool { return has(s.formatCodes, code) }

// RuleSet returns the published rule set with the given code. Unpublished
// (draft) rule sets are never returned.
func (s *Set) RuleSet(code string) (RuleSet, bool) {
	i, ok := s.ruleSetsByCode[code]
	if !ok {
		return RuleSet{}, false
	}
	r := s.ruleSets[i]
	r.Grades = cloneStrings(r.Grades)
	return r, true
}

func has(codes map[string]struct{}, code string) bool {
	_, ok := codes[code]
	return ok
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

// normaliseLocale maps a requested locale onto a supported one. Region and
// case are ignored so that "pl-PL" or "PL" from a client still get Polish.
func normaliseLocale(locale string) string {
	tag := strings.ToLower(strings.TrimSpace(locale))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	if tag == LocalePL {
		return LocalePL
	}
	return LocaleEN
}
