package dictionaries

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"
)

// File names inside the data directory, one per dictionary.
const (
	countriesFile     = "countries.json"
	materialsFile     = "materials.json"
	categoriesFile    = "packaging_categories.json"
	formatsFile       = "packaging_formats.json"
	rolesFile         = "economic_roles.json"
	documentTypesFile = "document_types.json"
	ruleSetsFile      = "rule_sets.json"
)

// bdoGroups are the packaging material groups of the Polish BDO register
// reports, which every material must map onto.
var bdoGroups = []string{"plastics", "paper", "glass", "steel", "aluminium", "wood", "multimaterial", "other"}

var (
	countryCodeRe  = regexp.MustCompile(`^[A-Z]{2}$`)
	materialCodeRe = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	snakeCodeRe    = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	// Versions are restricted so that the combined version stays unambiguous
	// and safe to use in HTTP headers such as ETag.
	versionRe = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`)
	// Decision 97/129/EC identification codes are plain numbers.
	identificationCodeRe = regexp.MustCompile(`^[0-9]{1,3}$`)
)

// The structs below mirror the data files. Optional values are pointers so
// that validation can tell a missing key from a false or empty one.

type entry struct {
	Code  string `json:"code"`
	Names Names  `json:"names"`
}

type describedEntry struct {
	Code        string `json:"code"`
	Names       Names  `json:"names"`
	Description Names  `json:"description"`
}

type country struct {
	Code     string `json:"code"`
	Names    Names  `json:"names"`
	EUMember *bool  `json:"eu_member"`
}

type material struct {
	Code               string  `json:"code"`
	Names              Names   `json:"names"`
	Parent             *string `json:"parent"`
	BDOGroup           string  `json:"bdo_group"`
	IdentificationCode *string `json:"identification_code"`
	Abbreviation       *string `json:"abbreviation"`
}

type economicRole struct {
	Code        string `json:"code"`
	Names       Names  `json:"names"`
	Description Names  `json:"description"`
	Article     string `json:"article"`
}

type ruleSetRecord struct {
	Code          string   `json:"code"`
	Names         Names    `json:"names"`
	Regulation    string   `json:"regulation"`
	Article       string   `json:"article"`
	Version       string   `json:"version"`
	Published     *bool    `json:"published"`
	EffectiveFrom string   `json:"effective_from"`
	EffectiveTo   *string  `json:"effective_to"`
	Grades        []string `json:"grades"`
}

type dataFile[T any] struct {
	Version string `json:"version"`
	Entries []T    `json:"entries"`
}

// Load parses and validates dictionaries from fsys, which must hold the data
// files at its root, laid out like the embedded data directory. All problems
// found are reported together, each naming its file and entry.
func Load(fsys fs.FS) (*Set, error) {
	l := loader{fsys: fsys}

	countries := readFile[country](&l, countriesFile)
	materials := readFile[material](&l, materialsFile)
	categories := readFile[describedEntry](&l, categoriesFile)
	formats := readFile[entry](&l, formatsFile)
	roles := readFile[economicRole](&l, rolesFile)
	documentTypes := readFile[entry](&l, documentTypesFile)
	ruleSets := readFile[ruleSetRecord](&l, ruleSetsFile)

	s := &Set{
		countries:     countries,
		materials:     materials,
		categories:    categories,
		formats:       formats,
		roles:         roles,
		documentTypes: documentTypes,
	}
	s.countryCodes = l.checkCountries(countries)
	s.materialCodes = l.checkMaterials(materials)
	s.categoryCodes = l.checkDescribed(categoriesFile, categories)
	s.formatCodes = l.checkEntries(formatsFile, formats)
	s.roleCodes = l.checkRoles(roles)
	s.documentCodes = l.checkEntries(documentTypesFile, documentTypes)
	s.ruleSets = l.checkRuleSets(ruleSets)

	if len(l.errs) > 0 {
		return nil, fmt.Errorf("dictionaries: invalid data:\n%w", errors.Join(l.errs...))
	}

	s.version = l.combinedVersion()
	sortByCode(s.countries, func(c country) string { return c.Code })
	sortByCode(s.materials, func(m material) string { return m.Code })
	sortByCode(s.categories, func(e describedEntry) string { return e.Code })
	sortByCode(s.formats, func(e entry) string { return e.Code })
	sortByCode(s.roles, func(r economicRole) string { return r.Code })
	sortByCode(s.documentTypes, func(e entry) string { return e.Code })
	sortByCode(s.ruleSets, func(r RuleSet) string { return r.Code })
	s.ruleSetsByCode = make(map[string]int, len(s.ruleSets))
	for i, r := range s.ruleSets {
		s.ruleSetsByCode[r.Code] = i
	}
	return s, nil
}

type loader struct {
	fsys     fs.FS
	versions []string // "name@version", one per file
	errs     []error
}

func (l *loader) fail(file, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...)))
}

// failEntry reports a problem with one entry, identified by position as well
// as code because the code itself may be what is wrong.
func (l *loader) failEntry(file string, i int, code, format string, args ...any) {
	l.fail(file, "entry %d (code %q): %s", i, code, fmt.Sprintf(format, args...))
}

func (l *loader) combinedVersion() string {
	v := slices.Clone(l.versions)
	slices.Sort(v)
	return strings.Join(v, ",")
}

// readFile decodes one data file strictly: unknown keys are rejected because
// in hand-edited data they are almost always typos of real keys.
func readFile[T any](l *loader, name string) []T {
	raw, err := fs.ReadFile(l.fsys, name)
	if err != nil {
		l.fail(name, "cannot read: %v", err)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f dataFile[T]
	if err := dec.Decode(&f); err != nil {
		l.fail(name, "invalid JSON: %v", err)
		return nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		l.fail(name, "invalid JSON: unexpected data after the top-level object")
		return nil
	}
	switch v := strings.TrimSpace(f.Version); {
	case v == "":
		l.fail(name, "missing version")
	case !versionRe.MatchString(v):
		l.fail(name, "version %q must contain only letters, digits, '.', '+' and '-'", f.Version)
	default:
		l.versions = append(l.versions, strings.TrimSuffix(name, ".json")+"@"+v)
	}
	if len(f.Entries) == 0 {
		l.fail(name, "no entries")
	}
	return f.Entries
}

// checkCommon validates what every entry has: a well-formed, unique code and
// a name in each locale. It returns false for a duplicate so that callers do
// not report follow-on errors against the wrong entry.
func (l *loader) checkCommon(file string, i int, code string, names Names, codeRe *regexp.Regexp, codeRule string, seen map[string]struct{}) bool {
	if !codeRe.MatchString(code) {
		l.failEntry(file, i, code, "code must be %s", codeRule)
	}
	if _, dup := seen[code]; dup {
		l.failEntry(file, i, code, "duplicate code")
		return false
	}
	seen[code] = struct{}{}
	l.checkNames(file, i, code, "name", names)
	return true
}

func (l *loader) checkNames(file string, i int, code, what string, n Names) {
	if strings.TrimSpace(n.EN) == "" {
		l.failEntry(file, i, code, "missing en %s", what)
	}
	if strings.TrimSpace(n.PL) == "" {
		l.failEntry(file, i, code, "missing pl %s", what)
	}
}

const (
	countryCodeRule  = "two upper-case letters (ISO 3166-1 alpha-2)"
	materialCodeRule = "upper-case words joined by underscores, such as PLASTIC_PET"
	snakeCodeRule    = "lower-case words joined by underscores, such as test_report"
)

func (l *loader) checkCountries(countries []country) map[string]struct{} {
	seen := make(map[string]struct{}, len(countries))
	for i, c := range countries {
		if !l.checkCommon(countriesFile, i, c.Code, c.Names, countryCodeRe, countryCodeRule, seen) {
			continue
		}
		if c.EUMember == nil {
			l.failEntry(countriesFile, i, c.Code, "eu_member is required")
		}
	}
	return seen
}

func (l *loader) checkMaterials(materials []material) map[string]struct{} {
	seen := make(map[string]struct{}, len(materials))
	groups := make(map[string]material) // top-level materials by code
	for i, m := range materials {
		if !l.checkCommon(materialsFile, i, m.Code, m.Names, materialCodeRe, materialCodeRule, seen) {
			continue
		}
		if !slices.Contains(bdoGroups, m.BDOGroup) {
			l.failEntry(materialsFile, i, m.Code, "bdo_group %q is not one of %s", m.BDOGroup, strings.Join(bdoGroups, ", "))
		}
		if ic := m.IdentificationCode; ic != nil && !identificationCodeRe.MatchString(*ic) {
			l.failEntry(materialsFile, i, m.Code, "identification_code %q must be null or a number from Decision 97/129/EC", *ic)
		}
		if a := m.Abbreviation; a != nil && strings.TrimSpace(*a) == "" {
			l.failEntry(materialsFile, i, m.Code, "abbreviation must be null or non-empty")
		}
		if m.Parent == nil {
			groups[m.Code] = m
		}
	}
	// Parents are checked in a second pass so that data files need not list
	// groups before their members.
	for i, m := range materials {
		if m.Parent == nil {
			continue
		}
		parent, ok := groups[*m.Parent]
		switch {
		case ok:
			if parent.BDOGroup != m.BDOGroup {
				l.failEntry(materialsFile, i, m.Code, "bdo_group %q differs from %q of its parent %s", m.BDOGroup, parent.BDOGroup, parent.Code)
			}
		case has(seen, *m.Parent):
			// One level keeps every material within a single BDO group and
			// rules out parent cycles.
			l.failEntry(materialsFile, i, m.Code, "parent %q is not a top-level material group", *m.Parent)
		default:
			l.failEntry(materialsFile, i, m.Code, "parent %q does not exist", *m.Parent)
		}
	}
	return seen
}

func (l *loader) checkEntries(file string, entries []entry) map[string]struct{} {
	seen := make(map[string]struct{}, len(entries))
	for i, e := range entries {
		l.checkCommon(file, i, e.Code, e.Names, snakeCodeRe, snakeCodeRule, seen)
	}
	return seen
}

func (l *loader) checkDescribed(file string, entries []describedEntry) map[string]struct{} {
	seen := make(map[string]struct{}, len(entries))
	for i, e := range entries {
		if l.checkCommon(file, i, e.Code, e.Names, snakeCodeRe, snakeCodeRule, seen) {
			l.checkNames(file, i, e.Code, "description", e.Description)
		}
	}
	return seen
}

func (l *loader) checkRoles(roles []economicRole) map[string]struct{} {
	seen := make(map[string]struct{}, len(roles))
	for i, r := range roles {
		if !l.checkCommon(rolesFile, i, r.Code, r.Names, snakeCodeRe, snakeCodeRule, seen) {
			continue
		}
		l.checkNames(rolesFile, i, r.Code, "description", r.Description)
		if strings.TrimSpace(r.Article) == "" {
			l.failEntry(rolesFile, i, r.Code, "missing article")
		}
	}
	return seen
}

// checkRuleSets validates every rule set, drafts included, and returns only
// the published ones.
func (l *loader) checkRuleSets(records []ruleSetRecord) []RuleSet {
	seen := make(map[string]struct{}, len(records))
	var published []RuleSet
	for i, r := range records {
		if !l.checkCommon(ruleSetsFile, i, r.Code, r.Names, snakeCodeRe, snakeCodeRule, seen) {
			continue
		}
		fail := func(format string, args ...any) { l.failEntry(ruleSetsFile, i, r.Code, format, args...) }
		for _, f := range []struct{ key, value string }{
			{"regulation", r.Regulation},
			{"article", r.Article},
			{"version", r.Version},
		} {
			if strings.TrimSpace(f.value) == "" {
				fail("missing %s", f.key)
			}
		}
		if r.Published == nil {
			fail("published is required")
		}
		from, fromOK := parseDate(r.EffectiveFrom)
		if !fromOK {
			fail("effective_from %q is not a date in YYYY-MM-DD form", r.EffectiveFrom)
		}
		var to time.Time
		if r.EffectiveTo != nil {
			var toOK bool
			if to, toOK = parseDate(*r.EffectiveTo); !toOK {
				fail("effective_to %q is not a date in YYYY-MM-DD form or null", *r.EffectiveTo)
			} else if fromOK && to.Before(from) {
				fail("effective_to %s is before effective_from %s", *r.EffectiveTo, r.EffectiveFrom)
			}
		}
		if r.Grades != nil {
			l.checkGrades(i, r.Code, r.Grades)
		}
		if r.Published != nil && *r.Published {
			published = append(published, RuleSet{
				Code:          r.Code,
				Names:         r.Names,
				Regulation:    r.Regulation,
				Article:       r.Article,
				Version:       r.Version,
				EffectiveFrom: from,
				EffectiveTo:   to,
				Grades:        r.Grades,
			})
		}
	}
	return published
}

func (l *loader) checkGrades(i int, code string, grades []string) {
	if len(grades) == 0 {
		l.failEntry(ruleSetsFile, i, code, "grades must be omitted or non-empty")
	}
	seen := make(map[string]struct{}, len(grades))
	for _, g := range grades {
		if strings.TrimSpace(g) == "" {
			l.failEntry(ruleSetsFile, i, code, "grades must not contain empty values")
			continue
		}
		if _, dup := seen[g]; dup {
			l.failEntry(ruleSetsFile, i, code, "duplicate grade %q", g)
		}
		seen[g] = struct{}{}
	}
}

// dateLayout is the only date form the data files and the API use.
const dateLayout = time.DateOnly

// parseDate accepts exactly YYYY-MM-DD and rejects impossible days such as
// 2030-02-30.
func parseDate(s string) (time.Time, bool) {
	t, err := time.Parse(dateLayout, s)
	return t, err == nil
}

func sortByCode[T any](items []T, code func(T) string) {
	slices.SortFunc(items, func(a, b T) int { return strings.Compare(code(a), code(b)) })
}
