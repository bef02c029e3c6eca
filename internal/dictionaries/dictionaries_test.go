package dictionaries

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var euMembers = []string{
	"AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU",
	"IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
}

func embeddedData(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(embedded, "data")
	require.NoError(t, err)
	return sub
}

func TestEmbeddedDataLoads(t *testing.T) {
	s, err := Load(embeddedData(t))
	require.NoError(t, err)
	require.NotNil(t, s)

	d := Default()
	require.NotNil(t, d)
	assert.Same(t, d, Default(), "Default must parse the data only once")
	assert.Equal(t, s.Version(), d.Version())
}

func TestVersion(t *testing.T) {
	s := Default()
	assert.Equal(t,
		"countries@2026.11.1,document_types@2026.11.1,economic_roles@2026.11.1,materials@2026.11.1,"+
			"packaging_categories@2026.11.1,packaging_formats@2026.11.1,rule_sets@2026.11.3",
		s.Version())
	assert.Equal(t, s.Version(), s.For(LocalePL).Version)

	fsys := validFS(t)
	setJSON(t, fsys, "materials.json", func(doc map[string]any) { doc["version"] = "2026.12.1" })
	changed, err := Load(fsys)
	require.NoError(t, err)
	assert.NotEqual(t, s.Version(), changed.Version())
	assert.Contains(t, changed.Version(), "materials@2026.12.1")
}

func TestLocalizedNames(t *testing.T) {
	en, pl := Default().For(LocaleEN), Default().For(LocalePL)
	for _, tc := range []struct {
		list   string
		code   string
		wantEN string
		wantPL string
		name   func(Localized, string) string
	}{
		{"countries", "PL", "Poland", "Polska", countryName},
		{"countries", "DE", "Germany", "Niemcy", countryName},
		{"countries", "HU", "Hungary", "Węgry", countryName},
		{"countries", "GB", "United Kingdom", "Wielka Brytania", countryName},
		{"materials", "PAPER", "Paper and cardboard", "Papier i tektura", materialName},
		{"materials", "GLASS", "Glass", "Szkło", materialName},
		{"materials", "PLASTIC", "Plastics", "Tworzywa sztuczne", materialName},
		{"packaging_formats", "bottle", "Bottle", "Butelka", formatName},
		{"packaging_formats", "jar", "Jar", "Słoik", formatName},
		{"document_types", "test_report", "Test report", "Sprawozdanie z badań", documentName},
		{"economic_roles", "manufacturer", "Manufacturer", "Wytwórca", roleName},
		{"packaging_categories", "grouped", "Grouped packaging (secondary)", "Opakowanie zbiorcze", categoryName},
	} {
		t.Run(tc.list+"/"+tc.code, func(t *testing.T) {
			assert.Equal(t, tc.wantEN, tc.name(en, tc.code))
			assert.Equal(t, tc.wantPL, tc.name(pl, tc.code))
		})
	}
}

func TestDescriptionsAreLocalized(t *testing.T) {
	en, pl := Default().For(LocaleEN), Default().For(LocalePL)
	require.Len(t, pl.EconomicRoles, len(en.EconomicRoles))
	for i := range en.EconomicRoles {
		assert.NotEqual(t, en.EconomicRoles[i].Description, pl.EconomicRoles[i].Description, en.EconomicRoles[i].Code)
		assert.Equal(t, en.EconomicRoles[i].Article, pl.EconomicRoles[i].Article)
	}
	require.Len(t, pl.PackagingCategories, len(en.PackagingCategories))
	for i := range en.PackagingCategories {
		assert.NotEqual(t, en.PackagingCategories[i].Description, pl.PackagingCategories[i].Description, en.PackagingCategories[i].Code)
	}
}

func TestCountries(t *testing.T) {
	s := Default()
	byCode := map[string]CountryEntry{}
	members := 0
	for _, c := range s.For(LocaleEN).Countries {
		byCode[c.Code] = c
		if c.EUMember {
			members++
		}
	}
	for _, code := range euMembers {
		c, ok := byCode[code]
		if assert.True(t, ok, "EU member %s missing", code) {
			assert.True(t, c.EUMember, "%s must be an EU member", code)
		}
		assert.True(t, s.HasCountry(code), code)
		assert.True(t, s.IsMemberState(code), code)
	}
	assert.Equal(t, len(euMembers), members, "exactly the EU-27 are EU members")
	assert.ElementsMatch(t, euMembers, s.MemberStates())
	assert.IsIncreasing(t, s.MemberStates())

	for _, code := range []string{
		"NO", "CH", "GB", "IS", "LI", "AL", "BA", "ME", "MK", "RS", "UA", "MD", "BY", "TR",
		"US", "CN", "JP", "KR", "IN", "CA", "MX", "BR", "VN", "TW", "TH", "MY", "ID", "AU",
		"ZA", "AE", "SA", "IL", "EG", "MA", "SG", "HK", "BD", "PK",
	} {
		c, ok := byCode[code]
		if assert.True(t, ok, "country %s missing", code) {
			assert.False(t, c.EUMember, "%s is not an EU member", code)
		}
		assert.False(t, s.IsMemberState(code), code)
	}
	assert.False(t, s.IsMemberState("EU"), "an unknown code is no Member State")
	assert.False(t, s.HasCountry("pl"), "codes are case-sensitive")
	assert.False(t, s.HasCountry("EU"))
}

func TestMaterials(t *testing.T) {
	s := Default()
	byCode := map[string]MaterialEntry{}
	for _, m := range s.For(LocaleEN).Materials {
		byCode[m.Code] = m
	}

	groups := map[string]string{
		"PLASTIC": "plastics", "PAPER": "paper", "GLASS": "glass", "STEEL": "steel",
		"ALUMINIUM": "aluminium", "WOOD": "wood", "MULTIMATERIAL": "multimaterial", "OTHER": "other",
	}
	for code, bdo := range groups {
		m, ok := byCode[code]
		if assert.True(t, ok, "group %s missing", code) {
			assert.Nil(t, m.Parent, "%s is a top-level group", code)
			assert.Equal(t, bdo, m.BDOGroup, code)
		}
	}

	for _, tc := range []struct {
		code, parent, idCode, abbreviation string
	}{
		{"PLASTIC_PET", "PLASTIC", "1", "PET"},
		{"PLASTIC_HDPE", "PLASTIC", "2", "HDPE"},
		{"PLASTIC_PVC", "PLASTIC", "3", "PVC"},
		{"PLASTIC_LDPE", "PLASTIC", "4", "LDPE"},
		{"PLASTIC_PP", "PLASTIC", "5", "PP"},
		{"PLASTIC_PS", "PLASTIC", "6", "PS"},
		{"PLASTIC_EPS", "PLASTIC", "6", "EPS"},
		{"PLASTIC_OTHER", "PLASTIC", "7", ""},
		{"PAPER_CORRUGATED", "PAPER", "20", "PAP"},
		{"PAPER_CARDBOARD", "PAPER", "21", "PAP"},
		{"PAPER_PAPER", "PAPER", "22", "PAP"},
		{"STEEL_TINPLATE", "STEEL", "40", "FE"},
		{"ALUMINIUM_FOIL", "ALUMINIUM", "41", "ALU"},
		{"WOOD_PALLET", "WOOD", "50", "FOR"},
		{"WOOD_CORK", "WOOD", "51", "FOR"},
		{"GLASS_CLEAR", "GLASS", "70", "GL"},
		{"GLASS_GREEN", "GLASS", "71", "GL"},
		{"GLASS_BROWN", "GLASS", "72", "GL"},
		{"GLASS_COLOURED", "GLASS", "", "GL"},
		{"MULTIMATERIAL_PAPER_PLASTIC", "MULTIMATERIAL", "81", "C/PAP"},
		{"MULTIMATERIAL_LIQUID_CARTON", "MULTIMATERIAL", "84", "C/PAP"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			m, ok := byCode[tc.code]
			require.True(t, ok, "material missing")
			assert.True(t, s.HasMaterial(tc.code))
			require.NotNil(t, m.Parent)
			assert.Equal(t, tc.parent, *m.Parent)
			assert.Equal(t, groups[tc.parent], m.BDOGroup)
			assert.Equal(t, tc.idCode, deref(m.IdentificationCode))
			assert.Equal(t, tc.abbreviation, deref(m.Abbreviation))
		})
	}

	// Every sub-material must land in its group's BDO reporting line.
	for _, m := range byCode {
		if m.Parent == nil {
			continue
		}
		parent, ok := byCode[*m.Parent]
		if assert.True(t, ok, "%s: parent %s missing", m.Code, *m.Parent) {
			assert.Equal(t, parent.BDOGroup, m.BDOGroup, m.Code)
			assert.Nil(t, parent.Parent, "%s: parent must be a group", m.Code)
		}
	}
	assert.GreaterOrEqual(t, len(byCode), 35)
}

func TestOtherDictionariesCoverRequiredCodes(t *testing.T) {
	s := Default()
	for _, code := range []string{"sales", "grouped", "transport", "e_commerce", "service"} {
		assert.True(t, s.HasPackagingCategory(code), code)
	}
	for _, code := range []string{
		"bottle", "jar", "can", "box", "carton", "tray", "bag", "pouch", "film_wrap", "sachet", "tube", "cup",
		"lid_closure", "label", "pallet", "crate", "drum", "ibc", "envelope", "blister", "capsule", "net",
		"cushioning_filler", "strap",
	} {
		assert.True(t, s.HasPackagingFormat(code), code)
	}
	for _, code := range []string{
		"manufacturer", "producer", "importer", "distributor", "fulfilment_service_provider",
		"final_distributor", "authorised_representative", "supplier", "economic_operator_of_reuse_system",
	} {
		assert.True(t, s.HasEconomicRole(code), code)
	}
	for _, code := range []string{
		"supplier_declaration", "test_report", "laboratory_report", "technical_documentation",
		"eu_declaration_of_conformity", "recyclability_assessment", "recycled_content_certificate",
		"specification_sheet", "invoice", "photo", "safety_data_sheet", "food_contact_declaration", "other",
	} {
		assert.True(t, s.HasDocumentType(code), code)
	}

	assert.False(t, s.HasPackagingCategory("primary"))
	assert.False(t, s.HasPackagingFormat("Bottle"))
	assert.False(t, s.HasEconomicRole("retailer"))
	assert.False(t, s.HasDocumentType(""))
	assert.False(t, s.HasMaterial("plastic_pet"))

	roles := map[string]string{}
	for _, r := range s.For(LocaleEN).EconomicRoles {
		roles[r.Code] = r.Article
	}
	// Every role is defined in Art. 3(1) of Regulation (EU) 2025/40.
	assert.Equal(t, "Art. 3(1)", roles["manufacturer"])
	assert.Equal(t, "Art. 3(1)", roles["producer"])
}

func TestRuleSets(t *testing.T) {
	s := Default()

	r, ok := s.RuleSet("recyclability_grades")
	require.True(t, ok)
	assert.Equal(t, []string{"A", "B", "C"}, r.Grades)
	assert.Equal(t, "Art. 6", r.Article)
	assert.Equal(t, "Regulation (EU) 2025/40", r.Regulation)
	assert.Equal(t, date(2030, 1, 1), r.EffectiveFrom)

	for _, tc := range []struct {
		code, article string
		from          time.Time
	}{
		{"recyclability_grades", "Art. 6", date(2030, 1, 1)},
		{"recycled_content_plastic", "Art. 7", date(2029, 1, 1)},
		{"substances_food_contact_pfas", "Art. 5", date(2026, 8, 12)},
		{"labelling", "Art. 12", date(2026, 8, 12)},
		{"minimisation_empty_space", "Art. 10, Art. 24", date(2028, 2, 12)},
		{"reuse_targets", "Art. 29", date(2030, 1, 1)},
	} {
		r, ok := s.RuleSet(tc.code)
		if assert.True(t, ok, tc.code) {
			assert.Equal(t, tc.article, r.Article, tc.code)
			assert.Equal(t, tc.from, r.EffectiveFrom, tc.code)
			assert.NotEmpty(t, r.Version, tc.code)
		}
	}

	// The copy handed out must not alias the Set's own grades.
	r.Grades[0] = "Z"
	again, _ := s.RuleSet("recyclability_grades")
	assert.Equal(t, "A", again.Grades[0])
}

func TestRuleSetInEffectOn(t *testing.T) {
	r, ok := Default().RuleSet("recyclability_grades")
	require.True(t, ok)
	assert.False(t, r.InEffectOn(time.Date(2029, 12, 31, 23, 59, 0, 0, time.UTC)))
	assert.True(t, r.InEffectOn(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)))
	warsaw := time.FixedZone("CET", 3600)
	assert.True(t, r.InEffectOn(time.Date(2030, 1, 1, 0, 30, 0, 0, warsaw)), "local calendar day counts")
	assert.True(t, r.InEffectOn(time.Date(2037, 12, 31, 12, 0, 0, 0, time.UTC)), "last day is inclusive")
	assert.False(t, r.InEffectOn(time.Date(2038, 1, 1, 0, 0, 0, 0, time.UTC)))

	open, ok := Default().RuleSet("reuse_targets")
	require.True(t, ok)
	assert.True(t, open.EffectiveTo.IsZero())
	assert.True(t, open.InEffectOn(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)))
}

func TestUnpublishedRuleSetIsHidden(t *testing.T) {
	// Every rule set of the embedded data is published; a draft is made
	// by unpublishing one.
	const draft = "recycled_content_plastic_2040"
	fsys := validFS(t)
	editEntry("rule_sets.json", draft, func(e map[string]any) { e["published"] = false })(t, fsys)
	s, err := Load(fsys)
	require.NoError(t, err)
	_, ok := s.RuleSet(draft)
	assert.False(t, ok)
	for _, loc := range []string{LocaleEN, LocalePL} {
		l := s.For(loc)
		assert.NotEmpty(t, l.RuleSets)
		for _, r := range l.RuleSets {
			assert.NotEqual(t, draft, r.Code)
		}
	}
	assert.Len(t, s.For(LocaleEN).RuleSets, len(Default().For(LocaleEN).RuleSets)-1)
}

func TestLocaleFallback(t *testing.T) {
	s := Default()
	en, pl := s.For(LocaleEN), s.For(LocalePL)
	require.NotEqual(t, en, pl)
	for _, loc := range []string{"", "de", "xx", "english", "en-GB"} {
		assert.Equal(t, en, s.For(loc), "locale %q", loc)
	}
	for _, loc := range []string{"PL", "pl-PL", " pl "} {
		assert.Equal(t, pl, s.For(loc), "locale %q", loc)
	}
}

func TestForReturnsIndependentCopy(t *testing.T) {
	s := Default()
	l := s.For(LocaleEN)
	l.Countries[0].Name = "changed"
	for i, m := range l.Materials {
		if m.Parent != nil {
			*l.Materials[i].Parent = "changed"
			break
		}
	}
	fresh := s.For(LocaleEN)
	assert.NotEqual(t, "changed", fresh.Countries[0].Name)
	for _, m := range fresh.Materials {
		if m.Parent != nil {
			assert.NotEqual(t, "changed", *m.Parent)
		}
	}
}

func TestLocalizedJSON(t *testing.T) {
	raw, err := json.Marshal(Default().For(LocalePL))
	require.NoError(t, err)

	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.ElementsMatch(t, []string{
		"version", "countries", "materials", "packaging_categories", "packaging_formats",
		"economic_roles", "document_types", "rule_sets",
	}, keys(doc))

	pl := find(t, doc, "countries", "PL")
	assert.Equal(t, map[string]any{"code": "PL", "name": "Polska", "eu_member": true}, pl)

	pet := find(t, doc, "materials", "PLASTIC_PET")
	assert.Equal(t, map[string]any{
		"code": "PLASTIC_PET", "name": "Politereftalan etylenu (PET)", "parent": "PLASTIC",
		"bdo_group": "plastics", "identification_code": "1", "abbreviation": "PET",
	}, pet)

	group := find(t, doc, "materials", "PLASTIC")
	for _, k := range []string{"parent", "identification_code", "abbreviation"} {
		v, present := group[k]
		assert.True(t, present, "%s must be present as null", k)
		assert.Nil(t, v, k)
	}

	sales := find(t, doc, "packaging_categories", "sales")
	assert.ElementsMatch(t, []string{"code", "name", "description"}, keys(sales))
	assert.ElementsMatch(t, []string{"code", "name"}, keys(find(t, doc, "packaging_formats", "bottle")))
	assert.ElementsMatch(t, []string{"code", "name"}, keys(find(t, doc, "document_types", "test_report")))
	assert.Equal(t, "Art. 3(1)", find(t, doc, "economic_roles", "manufacturer")["article"])

	graded := find(t, doc, "rule_sets", "recyclability_grades")
	assert.Equal(t, []any{"A", "B", "C"}, graded["grades"])
	assert.Equal(t, "2030-01-01", graded["effective_from"])
	assert.Equal(t, "2037-12-31", graded["effective_to"])
	assert.NotContains(t, graded, "published")

	ungraded := find(t, doc, "rule_sets", "reuse_targets")
	assert.NotContains(t, ungraded, "grades", "grades is omitted when absent")
	to, present := ungraded["effective_to"]
	assert.True(t, present, "effective_to must be present as null")
	assert.Nil(t, to)
	assert.Equal(t, "Regulation (EU) 2025/40", ungraded["regulation"])
	assert.Equal(t, "1.1", ungraded["version"])

	for _, list := range []string{
		"countries", "materials", "packaging_categories", "packaging_formats",
		"economic_roles", "document_types", "rule_sets",
	} {
		items := doc[list].([]any)
		require.NotEmpty(t, items, list)
		codes := make([]string, len(items))
		for i, it := range items {
			codes[i] = it.(map[string]any)["code"].(string)
		}
		assert.True(t, slices.IsSorted(codes), "%s must be sorted by code", list)
	}
}

func TestLoadRejectsBrokenData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, fsys fstest.MapFS)
		want    []string
	}{
		{
			name: "duplicate code",
			corrupt: func(t *testing.T, fsys fstest.MapFS) {
				setJSON(t, fsys, "countries.json", func(doc map[string]any) {
					entries := doc["entries"].([]any)
					doc["entries"] = append(entries, entries[0])
				})
			},
			want: []string{"countries.json", `"AD"`, "duplicate code"},
		},
		{
			name:    "missing pl name",
			corrupt: editEntry("document_types.json", "invoice", func(e map[string]any) { delete(e["names"].(map[string]any), "pl") }),
			want:    []string{"document_types.json", `"invoice"`, "missing pl name"},
		},
		{
			name:    "blank en name",
			corrupt: editEntry("packaging_formats.json", "bottle", func(e map[string]any) { e["names"].(map[string]any)["en"] = "  " }),
			want:    []string{"packaging_formats.json", `"bottle"`, "missing en name"},
		},
		{
			name:    "missing description",
			corrupt: editEntry("packaging_categories.json", "sales", func(e map[string]any) { delete(e, "description") }),
			want:    []string{"packaging_categories.json", `"sales"`, "missing en description", "missing pl description"},
		},
		{
			name:    "missing article",
			corrupt: editEntry("economic_roles.json", "importer", func(e map[string]any) { e["article"] = "" }),
			want:    []string{"economic_roles.json", `"importer"`, "missing article"},
		},
		{
			name:    "unknown material parent",
			corrupt: editEntry("materials.json", "PLASTIC_PET", func(e map[string]any) { e["parent"] = "RUBBER" }),
			want:    []string{"materials.json", `"PLASTIC_PET"`, `parent "RUBBER" does not exist`},
		},
		{
			name:    "material parent is not a group",
			corrupt: editEntry("materials.json", "PLASTIC_PET", func(e map[string]any) { e["parent"] = "PLASTIC_PP" }),
			want:    []string{"materials.json", `"PLASTIC_PET"`, "not a top-level material group"},
		},
		{
			name:    "bdo group outside the list",
			corrupt: editEntry("materials.json", "GLASS", func(e map[string]any) { e["bdo_group"] = "ceramics" }),
			want:    []string{"materials.json", `"GLASS"`, `bdo_group "ceramics" is not one of`},
		},
		{
			name:    "bdo group differs from parent",
			corrupt: editEntry("materials.json", "GLASS_CLEAR", func(e map[string]any) { e["bdo_group"] = "plastics" }),
			want:    []string{"materials.json", `"GLASS_CLEAR"`, "differs from", "GLASS"},
		},
		{
			name:    "malformed identification code",
			corrupt: editEntry("materials.json", "PLASTIC_PET", func(e map[string]any) { e["identification_code"] = "PET1" }),
			want:    []string{"materials.json", `"PLASTIC_PET"`, "identification_code"},
		},
		{
			name:    "lower-case country code",
			corrupt: editEntry("countries.json", "PL", func(e map[string]any) { e["code"] = "pl" }),
			want:    []string{"countries.json", `"pl"`, "two upper-case letters"},
		},
		{
			name:    "three-letter country code",
			corrupt: editEntry("countries.json", "PL", func(e map[string]any) { e["code"] = "POL" }),
			want:    []string{"countries.json", `"POL"`, "two upper-case letters"},
		},
		{
			name:    "missing eu_member",
			corrupt: editEntry("countries.json", "FR", func(e map[string]any) { delete(e, "eu_member") }),
			want:    []string{"countries.json", `"FR"`, "eu_member is required"},
		},
		{
			name:    "date in wrong format",
			corrupt: editEntry("rule_sets.json", "labelling", func(e map[string]any) { e["effective_from"] = "12.08.2028" }),
			want:    []string{"rule_sets.json", `"labelling"`, `effective_from "12.08.2028"`, "YYYY-MM-DD"},
		},
		{
			name:    "impossible date",
			corrupt: editEntry("rule_sets.json", "labelling", func(e map[string]any) { e["effective_to"] = "2030-02-30" }),
			want:    []string{"rule_sets.json", `"labelling"`, `effective_to "2030-02-30"`},
		},
		{
			name:    "effective_to before effective_from",
			corrupt: editEntry("rule_sets.json", "reuse_targets", func(e map[string]any) { e["effective_to"] = "2029-12-31" }),
			want:    []string{"rule_sets.json", `"reuse_targets"`, "effective_to 2029-12-31 is before effective_from 2030-01-01"},
		},
		{
			name:    "missing published flag",
			corrupt: editEntry("rule_sets.json", "reuse_targets", func(e map[string]any) { delete(e, "published") }),
			want:    []string{"rule_sets.json", `"reuse_targets"`, "published is required"},
		},
		{
			name:    "duplicate grade",
			corrupt: editEntry("rule_sets.json", "recyclability_grades", func(e map[string]any) { e["grades"] = []any{"A", "A"} }),
			want:    []string{"rule_sets.json", `"recyclability_grades"`, `duplicate grade "A"`},
		},
		{
			name: "missing version",
			corrupt: func(t *testing.T, fsys fstest.MapFS) {
				setJSON(t, fsys, "economic_roles.json", func(doc map[string]any) { delete(doc, "version") })
			},
			want: []string{"economic_roles.json", "missing version"},
		},
		{
			name: "no entries",
			corrupt: func(t *testing.T, fsys fstest.MapFS) {
				setJSON(t, fsys, "packaging_formats.json", func(doc map[string]any) { doc["entries"] = []any{} })
			},
			want: []string{"packaging_formats.json", "no entries"},
		},
		{
			name: "unknown key",
			corrupt: editEntry("materials.json", "PLASTIC_PET", func(e map[string]any) {
				e["bdo_grup"] = e["bdo_group"]
			}),
			want: []string{"materials.json", "unknown field", "bdo_grup"},
		},
		{
			name: "malformed JSON",
			corrupt: func(t *testing.T, fsys fstest.MapFS) {
				fsys["document_types.json"] = &fstest.MapFile{Data: []byte(`{"version": "1", "entries": [`)}
			},
			want: []string{"document_types.json", "invalid JSON"},
		},
		{
			name: "missing file",
			corrupt: func(t *testing.T, fsys fstest.MapFS) {
				delete(fsys, "rule_sets.json")
			},
			want: []string{"rule_sets.json", "cannot read"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := validFS(t)
			tc.corrupt(t, fsys)
			s, err := Load(fsys)
			require.Error(t, err)
			assert.Nil(t, s)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadReportsAllProblems(t *testing.T) {
	fsys := validFS(t)
	editEntry("countries.json", "PL", func(e map[string]any) { e["code"] = "pl" })(t, fsys)
	editEntry("materials.json", "WOOD_CORK", func(e map[string]any) { e["parent"] = "BARK" })(t, fsys)

	_, err := Load(fsys)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "countries.json")
	assert.Contains(t, err.Error(), `parent "BARK" does not exist`)
}

func TestLoadAcceptsUnsortedFiles(t *testing.T) {
	fsys := validFS(t)
	setJSON(t, fsys, "materials.json", func(doc map[string]any) {
		slices.Reverse(doc["entries"].([]any))
	})
	s, err := Load(fsys)
	require.NoError(t, err)
	assert.Equal(t, Default().For(LocalePL), s.For(LocalePL))
}

// validFS copies the embedded data into a MapFS that a test may break.
func validFS(t *testing.T) fstest.MapFS {
	t.Helper()
	data := embeddedData(t)
	names, err := fs.Glob(data, "*.json")
	require.NoError(t, err)
	require.Len(t, names, 7)
	fsys := fstest.MapFS{}
	for _, n := range names {
		b, err := fs.ReadFile(data, n)
		require.NoError(t, err)
		fsys[n] = &fstest.MapFile{Data: b}
	}
	return fsys
}

func setJSON(t *testing.T, fsys fstest.MapFS, name string, edit func(doc map[string]any)) {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(fsys[name].Data, &doc))
	edit(doc)
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	fsys[name] = &fstest.MapFile{Data: b}
}

func editEntry(name, code string, edit func(e map[string]any)) func(*testing.T, fstest.MapFS) {
	return func(t *testing.T, fsys fstest.MapFS) {
		t.Helper()
		setJSON(t, fsys, name, func(doc map[string]any) {
			for _, e := range doc["entries"].([]any) {
				if m := e.(map[string]any); m["code"] == code {
					edit(m)
					return
				}
			}
			t.Fatalf("%s: no entry %q", name, code)
		})
	}
}

func find(t *testing.T, doc map[string]any, list, code string) map[string]any {
	t.Helper()
	for _, it := range doc[list].([]any) {
		if m := it.(map[string]any); m["code"] == code {
			return m
		}
	}
	t.Fatalf("%s: no entry %q", list, code)
	return nil
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func date(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func countryName(l Localized, code string) string {
	for _, c := range l.Countries {
		if c.Code == code {
			return c.Name
		}
	}
	return ""
}

func materialName(l Localized, code string) string {
	for _, m := range l.Materials {
		if m.Code == code {
			return m.Name
		}
	}
	return ""
}

func formatName(l Localized, code string) string { return entryName(l.PackagingFormats, code) }

func documentName(l Localized, code string) string { return entryName(l.DocumentTypes, code) }

func entryName(entries []Entry, code string) string {
	for _, e := range entries {
		if e.Code == code {
			return e.Name
		}
	}
	return ""
}

func roleName(l Localized, code string) string {
	for _, r := range l.EconomicRoles {
		if r.Code == code {
			return r.Name
		}
	}
	return ""
}

func categoryName(l Localized, code string) string {
	for _, c := range l.PackagingCategories {
		if c.Code == code {
			return c.Name
		}
	}
	return ""
}

func TestPolishNamesUseDiacritics(t *testing.T) {
	// Guards against Polish text saved without diacritics (e.g. "Wegry").
	var withDiacritics int
	for _, c := range Default().For(LocalePL).Countries {
		if strings.ContainsAny(c.Name, "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ") {
			withDiacritics++
		}
	}
	assert.GreaterOrEqual(t, withDiacritics, 10)
}
