package register

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

func TestEveryValueHasALabelInBothLanguages(t *testing.T) {
	var walk func(fields []Field)
	walk = func(fields []Field) {
		for _, f := range fields {
			for _, l := range []i18n.Locale{i18n.EN, i18n.PL} {
				assert.True(t, i18n.Has(l, string(Label(f.Name))), "%s has no %s label", f.Name, l)
			}
			walk(f.Fields)
		}
	}
	for _, r := range append(slices.Clone(All), ComplianceProfile) {
		walk(r.Fields)
		for _, d := range r.Derived {
			walk([]Field{{Name: d.Name}})
		}
	}
}

func TestSlugsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range All {
		assert.False(t, seen[r.Slug], r.Slug)
		seen[r.Slug] = true
		got, ok := ByName(r.Slug)
		require.True(t, ok)
		assert.Same(t, r, got)
	}
	assert.Len(t, seen, 14)
}

func TestGradeBandsOfAnnexIITable3(t *testing.T) {
	for score, grade := range map[string]string{"100": "A", "95": "A", "94.99": "B", "80": "B", "79.9": "C", "70": "C", "69.99": "non_recyclable", "0": "non_recyclable"} {
		assert.Equal(t, grade, Grade(decimal.RequireFromString(score)), score)
	}
}

func derive(t *testing.T, r *Register, name string, v Values, s Subject) Value {
	t.Helper()
	for _, d := range r.Derived {
		if d.Name == name {
			return d.Compute(v, s)
		}
	}
	t.Fatalf("%s derives no %s", r.Slug, name)
	return nil
}

func TestCarrierBagClassesOfArticle3(t *testing.T) {
	for thickness, class := range map[string]string{"14.9": "very_lightweight", "15": "lightweight", "49.9": "lightweight", "50": "thick", "99": "thick", "99.5": "very_thick"} {
		v := Values{"carrier_bag_wall_thickness": QuantityValue(decimal.RequireFromString(thickness), "µm")}
		assert.Equal(t, TextValue(class), derive(t, packagingClassification, "carrier_bag_class", v, Subject{}), thickness)
	}
	assert.Nil(t, derive(t, packagingClassification, "carrier_bag_class", Values{}, Subject{}))
}

func TestRetentionIsFiveOrTenYears(t *testing.T) {
	v := Values{"placed_on_market_on": TextValue("2026-09-01")}
	assert.Equal(t, TextValue("2031-09-01"), derive(t, euDeclarations, "retention_until", v, Subject{}))
	assert.Equal(t, TextValue("2036-09-01"), derive(t, conformityDossiers, "retention_until", v, Subject{Reusable: true}))
}

// bind binds a values object of r as a create body would.
func bind(t *testing.T, r *Register, body string) (Values, *input.Errors) {
	t.Helper()
	b := &valuesBody{reg: r, v: Values{}}
	require.NoError(t, input.FromJSON([]byte(body), b))
	return b.v, &b.Errors
}

type valuesBody struct {
	input.Errors
	reg *Register
	v   Values
}

func (b *valuesBody) Declare(f *input.Fields) { b.reg.Declare(f, b.v) }

func TestQuantitiesAreStoredInTheCanonicalUnit(t *testing.T) {
	v, errs := bind(t, chemicalSafety, `{"lead": {"value": "0.5", "unit": "ppm"}, "pfas_total": {"value": "2500", "unit": "ppb"}, "cadmium": {"value": "1", "unit": "%"}}`)
	lead, _ := v.Quantity("lead")
	assert.Equal(t, "0.5", lead.String())
	total, _ := v.Quantity("pfas_total")
	assert.Equal(t, "2.5", total.String(), "2500 ppb is 2.5 ppm")
	assert.True(t, errs.Has("cadmium.unit"), "a concentration in per cent is refused")
	assert.False(t, v.Has("cadmium"))
	assert.True(t, errs.Has("mercury"), "a required value")
}

func TestDecodeGivesBackWhatBindingProduced(t *testing.T) {
	v, errs := bind(t, roleDuties, `{"scenario": "0195f5a8-0000-7000-8000-000000000001", "economic_roles": ["producer"], "micro_enterprise": false,
		"epr_producer": true, "duties": [{"duty_code": "REG", "article": "Art. 44", "status": "done"}]}`)
	require.False(t, errs.Failed())
	roleDuties.Complete(v, Subject{})
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	back, err := roleDuties.Decode(raw)
	require.NoError(t, err)
	assert.Equal(t, v["scenario"], back["scenario"])
	assert.Equal(t, []string{"producer"}, back.Strings("economic_roles"))
	assert.Equal(t, "done", back.List("duties")[0].String("status"))
	assert.False(t, back.Has("epr_registration_number"))

	v, _ = bind(t, emptySpace, `{"outer_length": {"value": "30", "unit": "cm"}, "outer_width": {"value": "200", "unit": "mm"},
		"outer_height": {"value": "100", "unit": "mm"}, "contained_volume": {"value": "4.2", "unit": "l"}, "packaging_function": "ecommerce"}`)
	emptySpace.Complete(v, Subject{})
	raw, _ = json.Marshal(v)
	back, err = emptySpace.Decode(raw)
	require.NoError(t, err)
	esr, ok := back.Quantity("empty_space_ratio")
	require.True(t, ok)
	assert.Equal(t, "30", esr.String())
}

// The requirements between values are published with the register's
// body, as the binder enforces them: a client generated from the
// document knows that a packaging item needs its Annex II category, a
// recyclability entry its score unless exempted, and that a declaration
// of conformity states sole responsibility.
func TestRequirementsArePublished(t *testing.T) {
	schema := func(slug string) string {
		reg, ok := ByName(slug)
		require.True(t, ok, slug)
		b, err := json.Marshal(input.Describe(&entryBody{reg: reg}))
		require.NoError(t, err)
		return string(b)
	}
	assert.Contains(t, schema("packaging-classification"), `{"if":{"properties":{"is_packaging":{"enum":[true]}},"required":["is_packaging"]},"then":{"properties":{"annex_ii_category":{"not":{"type":"null"}}},"required":["annex_ii_category"]}}`)
	assert.Contains(t, schema("recyclability"), `{"if":{"not":{"required":["exemption"]}},"then":{"required":["dfr_score"]}}`)
	assert.Contains(t, schema("eu-declarations"), `"sole_responsibility_statement":{"description":"register.field.sole_responsibility_statement","enum":[true],"type":"boolean"}`)
}

type entryBody struct {
	input.Errors
	reg *Register
}

func (b *entryBody) Declare(f *input.Fields) { b.reg.Declare(f, Values{}) }

// The compliance profile is bound like a register: a Member State of the
// dictionaries, areas in m², and its cross-field rules checked.
func TestTheComplianceProfileChecksItsValues(t *testing.T) {
	v, errs := bind(t, ComplianceProfile, `{"country": "PL", "micro_enterprise": false, "sales_area": {"value": "0.05", "unit": "m2"},
		"refill_area": {"value": "500", "unit": "m²"}}`)
	require.False(t, errs.Failed(), errs.Err())
	area, _ := v.Quantity("sales_area")
	assert.Equal(t, "0.05", area.String())
	assert.True(t, v.Has("micro_enterprise"), "false is a known value")
	assert.False(t, v.Has("final_distributor"), "a value left out is unknown")
	failed := map[string]string{}
	ComplianceProfile.Check(v, Subject{}, func(field, key string, _ ...any) { failed[field] = key })
	assert.Equal(t, map[string]string{"refill_area": "field.exceeds_sales_area"}, failed)

	_, errs = bind(t, ComplianceProfile, `{"country": "NO", "micro_enterprise": false}`)
	assert.True(t, errs.Has("country"), "Norway is no Member State")
	_, errs = bind(t, ComplianceProfile, `{"country": "DE"}`)
	assert.True(t, errs.Has("micro_enterprise"), "required")

	v, errs = bind(t, ComplianceProfile, `{"country": "DE", "micro_enterprise": true, "final_distributor": false, "horeca_takeaway": true,
		"reuse_reports": [{"year": 2030, "submitted_on": "2031-06-01"}, {"year": 2030, "submitted_on": "2031-06-02"}]}`)
	require.False(t, errs.Failed(), errs.Err())
	failed = map[string]string{}
	ComplianceProfile.Check(v, Subject{}, func(field, key string, _ ...any) { failed[field] = key })
	assert.Equal(t, map[string]string{"horeca_takeaway": "field.requires_final_distributor",
		"reuse_reports.1.year": "field.duplicate"}, failed)
	_, errs = bind(t, ComplianceProfile, `{"country": "DE", "micro_enterprise": true, "sales_area": {"value": "-1", "unit": "m2"},
		"reuse_reports": [{"year": 2029, "submitted_on": "2030-06-01"}]}`)
	assert.True(t, errs.Has("reuse_reports.0.year"), "2030 is the first year reported")
	assert.True(t, errs.Has("sales_area.value"), "an area is not negative")
}
