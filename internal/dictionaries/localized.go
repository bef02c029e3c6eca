package dictionaries

// Localized is the dictionaries rendered for one locale, ready to be encoded
// as the GET /dictionaries response. Every list is sorted by code.
type Localized struct {
	Version             string              `json:"version"`
	Countries           []CountryEntry      `json:"countries"`
	Materials           []MaterialEntry     `json:"materials"`
	PackagingCategories []DescribedEntry    `json:"packaging_categories"`
	PackagingFormats    []Entry             `json:"packaging_formats"`
	EconomicRoles       []EconomicRoleEntry `json:"economic_roles"`
	DocumentTypes       []Entry             `json:"document_types"`
	RuleSets            []RuleSetEntry      `json:"rule_sets"`
}

// Entry is a code with its display name.
type Entry struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// DescribedEntry is a code with its display name and a description.
type DescribedEntry struct {
	Code        string `json:"code"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// CountryEntry is an ISO 3166-1 alpha-2 country.
type CountryEntry struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	EUMember bool   `json:"eu_member"`
}

// MaterialEntry is a packaging material or, when Parent is nil, a material
// group. The nil pointers encode as JSON null so clients see every key.
type MaterialEntry struct {
	Code               string  `json:"code"`
	Name               string  `json:"name"`
	Parent             *string `json:"parent"`
	BDOGroup           string  `json:"bdo_group"`
	IdentificationCode *string `json:"identification_code"`
	Abbreviation       *string `json:"abbreviation"`
}

// EconomicRoleEntry is an economic operator role defined in Regulation (EU)
// 2025/40.
type EconomicRoleEntry struct {
	Code        string `json:"code"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Article     string `json:"article"`
}

// RuleSetEntry is a published rule set. Dates are YYYY-MM-DD; EffectiveTo
// is null for open-ended rule sets.
type RuleSetEntry struct {
	Code          string   `json:"code"`
	Name          string   `json:"name"`
	Regulation    string   `json:"regulation"`
	Article       string   `json:"article"`
	Version       string   `json:"version"`
	EffectiveFrom string   `json:"effective_from" schema:"date"`
	EffectiveTo   *string  `json:"effective_to" schema:"date"`
	Grades        []string `json:"grades,omitempty"`
}

// For returns the dictionaries in the given locale ("en" or "pl"; any other
// locale falls back to "en"). The result is freshly built, so callers may
// modify it without affecting the Set.
func (s *Set) For(locale string) Localized {
	loc := normaliseLocale(locale)
	out := Localized{
		Version:             s.version,
		Countries:           make([]CountryEntry, 0, len(s.countries)),
		Materials:           make([]MaterialEntry, 0, len(s.materials)),
		PackagingCategories: make([]DescribedEntry, 0, len(s.categories)),
		PackagingFormats:    localizeEntries(s.formats, loc),
		EconomicRoles:       make([]EconomicRoleEntry, 0, len(s.roles)),
		DocumentTypes:       localizeEntries(s.documentTypes, loc),
		RuleSets:            make([]RuleSetEntry, 0, len(s.ruleSets)),
	}
	for _, c := range s.countries {
		out.Countries = append(out.Countries, CountryEntry{
			Code:     c.Code,
			Name:     c.Names.in(loc),
			EUMember: *c.EUMember,
		})
	}
	for _, m := range s.materials {
		out.Materials = append(out.Materials, MaterialEntry{
			Code:               m.Code,
			Name:               m.Names.in(loc),
			Parent:             clonePtr(m.Parent),
			BDOGroup:           m.BDOGroup,
			IdentificationCode: clonePtr(m.IdentificationCode),
			Abbreviation:       clonePtr(m.Abbreviation),
		})
	}
	for _, c := range s.categories {
		out.PackagingCategories = append(out.PackagingCategories, DescribedEntry{
			Code:        c.Code,
			Name:        c.Names.in(loc),
			Description: c.Description.in(loc),
		})
	}
	for _, r := range s.roles {
		out.EconomicRoles = append(out.EconomicRoles, EconomicRoleEntry{
			Code:        r.Code,
			Name:        r.Names.in(loc),
			Description: r.Description.in(loc),
			Article:     r.Article,
		})
	}
	for _, r := range s.ruleSets {
		e := RuleSetEntry{
			Code:          r.Code,
			Name:          r.Names.in(loc),
			Regulation:    r.Regulation,
			Article:       r.Article,
			Version:       r.Version,
			EffectiveFrom: r.EffectiveFrom.Format(dateLayout),
			Grades:        cloneStrings(r.Grades),
		}
		if !r.EffectiveTo.IsZero() {
			to := r.EffectiveTo.Format(dateLayout)
			e.EffectiveTo = &to
		}
		out.RuleSets = append(out.RuleSets, e)
	}
	return out
}

func localizeEntries(entries []entry, loc string) []Entry {
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, Entry{Code: e.Code, Name: e.Names.in(loc)})
	}
	return out
}

// clonePtr copies the pointee so that callers of For cannot reach into the
// Set through the returned pointers.
func clonePtr(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
