package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
	"ppwr/internal/register"
)

var (
	body    = uuid.New()
	closure = uuid.New()
	general = day("2026-11-26")
)

func q(value, unit string) register.Value {
	return register.QuantityValue(decimal.RequireFromString(value), unit)
}

func accepted(reg string, v register.Values) Entry {
	return Entry{ID: uuid.New(), Register: reg, Values: v, Accepted: true, Current: true}
}

func chem(component uuid.UUID, sum string, extra register.Values) Entry {
	v := register.Values{"component": register.IDValue(component), "heavy_metals_sum": q(sum, "mg/kg")}
	maps.Copy(v, extra)
	return accepted("chemical-safety", v)
}

func classification(v register.Values) Entry { return accepted("packaging-classification", v) }

func itemOn(on time.Time, entries ...Entry) *Input {
	return &Input{On: on, Acts: Acts{}, Entries: entries, Item: Item{MassG: decimal.NewFromInt(184),
		Components: []Component{{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(180)}, {ID: closure, Material: "PLASTIC_PP", MassG: decimal.NewFromInt(4)}}}}
}

func rule(t *testing.T, code string) Rule {
	t.Helper()
	for _, r := range All {
		if r.Code == code {
			return r
		}
	}
	t.Fatalf("no rule %s", code)
	return Rule{}
}

func outcome(t *testing.T, code string, in *Input) Result {
	t.Helper()
	res := Evaluate([]Rule{rule(t, code)}, in, nil)
	require.Len(t, res, 1)
	return res[0]
}

func TestHeavyMetalSumAtBelowAndAboveTheLimit(t *testing.T) {
	for sum, want := range map[string]string{"99.99": Pass, "100": Pass, "100.01": Fail} {
		res := outcome(t, "R03", itemOn(general, chem(body, sum, nil), chem(closure, "3", nil)))
		assert.Equal(t, want, res.Outcome, sum)
		assert.Len(t, res.Entries, 2, "both components' entries are cited")
	}
	res := outcome(t, "R03", itemOn(general, chem(body, "150", register.Values{"derogation": register.TextValue("2001/171/EC")}), chem(closure, "3", nil)))
	assert.Equal(t, Pass, res.Outcome, "a derogation of Art. 70(3) keeps the limit from failing")
	assert.Equal(t, "rules.derogation", res.Reason)

	res = outcome(t, "R03", itemOn(general, chem(body, "3", nil)))
	assert.Equal(t, InsufficientData, res.Outcome, "every component needs its laboratory values")
	assert.Equal(t, []string{"chemical-safety@" + closure.String()}, res.Missing)

	unreviewed := chem(closure, "3", nil)
	unreviewed.Accepted = false
	stale := chem(closure, "3", nil)
	stale.Current = false
	for _, e := range []Entry{unreviewed, stale} {
		assert.Equal(t, InsufficientData, outcome(t, "R03", itemOn(general, chem(body, "3", nil), e)).Outcome,
			"unreviewed entries and entries of an older revision are not read")
	}
	assert.Equal(t, Fail, outcome(t, "R03", itemOn(general, chem(body, "101", nil), chem(body, "3", nil), chem(closure, "3", nil))).Outcome,
		"the newest entry of a component counts")
}

func TestPFASLimitsOnlyForFoodContact(t *testing.T) {
	food := classification(register.Values{"food_contact": register.BoolValue(true)})
	cases := []struct {
		rule, field, unit, below, at string
	}{
		{"R04", "pfas_max_individual", "ppb", "24.99", "25"},
		{"R05", "pfas_sum_targeted", "ppb", "249.99", "250"},
		{"R06", "pfas_total", "ppm", "49.99", "50"},
	}
	for _, c := range cases {
		for value, want := range map[string]string{c.below: Pass, c.at: Fail, "1000": Fail} {
			values := register.Values{c.field: q(value, c.unit)}
			res := outcome(t, c.rule, itemOn(general, food, chem(body, "1", values), chem(closure, "1", register.Values{c.field: q("0", c.unit)})))
			assert.Equal(t, want, res.Outcome, "%s at %s", c.rule, value)
		}
		res := outcome(t, c.rule, itemOn(general, food, chem(body, "1", nil), chem(closure, "1", nil)))
		assert.Equal(t, InsufficientData, res.Outcome)
		assert.Contains(t, res.Missing, "chemical-safety."+c.field)

		res = outcome(t, c.rule, itemOn(general, classification(register.Values{"food_contact": register.BoolValue(false)})))
		assert.Equal(t, NotApplicable, res.Outcome, "%s is for food-contact packaging", c.rule)
	}
	in := itemOn(general)
	in.Item.FoodContact = true
	assert.Equal(t, InsufficientData, outcome(t, "R04", in).Outcome, "without a classification the item's own status decides the scope")

	proof := register.Values{"pfas_total": q("1", "ppm"), "total_fluorine": q("50.01", "mg/kg")}
	res := outcome(t, "R06", itemOn(general, food, chem(body, "1", proof), chem(closure, "1", register.Values{"pfas_total": q("1", "ppm")})))
	assert.Equal(t, DocumentationMissing, res.Outcome, "above 50 mg/kg total fluorine the supplier's proof is needed")
}

func TestRulesApplyFromTheirDate(t *testing.T) {
	entries := []Entry{singleUse("none", true, nil)}
	assert.Equal(t, NotYetApplicable, outcome(t, "R44", itemOn(day("2029-12-31"), entries...)).Outcome)
	res := outcome(t, "R44", itemOn(day("2030-01-01"), entries...))
	assert.Equal(t, Pass, res.Outcome)
	assert.Equal(t, day("2030-01-01"), res.AppliesFrom)
	assert.False(t, res.Pending)

	assert.Equal(t, NotYetApplicable, outcome(t, "R03", itemOn(day("2026-08-11"))).Outcome)
	assert.NotEqual(t, NotYetApplicable, outcome(t, "R03", itemOn(day("2026-08-12"))).Outcome)
}

func TestAPendingActKeepsARuleFromApplying(t *testing.T) {
	grade := accepted("recyclability", register.Values{"grade": register.TextValue("B")})
	res := outcome(t, "R08", itemOn(day("2031-06-01"), grade))
	assert.Equal(t, NotYetApplicable, res.Outcome, "the DfR acts are not in force")
	assert.True(t, res.Pending)
	assert.Equal(t, day("2030-01-01"), res.AppliesFrom, "from 1 January 2030 at the earliest")

	in := itemOn(day("2030-05-31"), grade)
	in.Acts = Acts{"dfr_delegated_acts": day("2028-06-01")}
	res = outcome(t, "R08", in)
	assert.Equal(t, NotYetApplicable, res.Outcome, "24 months after the act is later than 2030-01-01")
	assert.Equal(t, day("2030-06-01"), res.AppliesFrom)
	assert.False(t, res.Pending)
	in.On = day("2030-06-01")
	res = outcome(t, "R08", in)
	assert.Equal(t, Graded, res.Outcome)
	assert.Equal(t, "B", res.Grade)

	in.Acts = Acts{"dfr_delegated_acts": day("2026-01-01")}
	from, pending := rule(t, "R08").Start.From(in.Acts)
	assert.Equal(t, day("2030-01-01"), from, "the fixed date when the act came early enough")
	assert.False(t, pending)
	assert.Empty(t, KnownActs(), "no act is taken as in force until it is checked")
}

func TestRecyclabilityGrades(t *testing.T) {
	dfrInForce := Acts{"dfr_delegated_acts": day("2027-01-01")}
	for grade, want := range map[string][2]string{"A": {Graded, Graded}, "B": {Graded, Graded}, "C": {Graded, Fail}, "non_recyclable": {Fail, Fail}} {
		e := accepted("recyclability", register.Values{"grade": register.TextValue(grade)})
		in := itemOn(day("2030-01-01"), e)
		in.Acts = dfrInForce
		assert.Equal(t, want[0], outcome(t, "R08", in).Outcome, "R08 %s", grade)
		in.On = day("2038-01-01")
		assert.Equal(t, want[1], outcome(t, "R09", in).Outcome, "R09 %s", grade)
	}
	in := itemOn(day("2038-01-01"), classification(register.Values{"exemptions": register.EnumsValue([]string{"6(11)"})}))
	assert.Equal(t, NotApplicable, outcome(t, "R09", in).Outcome, "Art. 6(11) exempts the item")
	assert.Equal(t, InsufficientData, outcome(t, "R09", itemOn(day("2038-01-01"))).Outcome)
}

func TestEmptySpaceRatio(t *testing.T) {
	esrInForce := Acts{"esr_method": day("2026-12-01")}
	on := day("2030-01-01")
	ecommerce := classification(register.Values{"packaging_function": register.TextValue("ecommerce")})
	for ratio, want := range map[string]string{"49.99": Pass, "50": Pass, "50.01": Fail} {
		in := itemOn(on, ecommerce, accepted("empty-space", register.Values{"empty_space_ratio": q(ratio, "%")}))
		in.Acts = esrInForce
		assert.Equal(t, want, outcome(t, "R41", in).Outcome, ratio)
	}
	in := itemOn(on, classification(register.Values{"packaging_function": register.TextValue("sales")}))
	in.Acts = esrInForce
	assert.Equal(t, NotApplicable, outcome(t, "R41", in).Outcome, "sales packaging is out of scope")
	in = itemOn(on, classification(register.Values{"packaging_function": register.TextValue("transport"), "exemptions": register.EnumsValue([]string{"24(5)"})}))
	in.Acts = esrInForce
	assert.Equal(t, NotApplicable, outcome(t, "R41", in).Outcome, "Art. 24(5) exempts it (R43)")
	in = itemOn(on)
	in.Acts = esrInForce
	res := outcome(t, "R41", in)
	assert.Equal(t, InsufficientData, res.Outcome, "the scope needs the classification")
	assert.Equal(t, []string{"packaging-classification"}, res.Missing)
}

// singleUse is a restricted-formats entry of single-use packaging.
func singleUse(use string, plastic bool, extra register.Values) Entry {
	v := register.Values{"use_context": register.TextValue(use), "plastic": register.BoolValue(plastic), "single_use": register.BoolValue(true)}
	maps.Copy(v, extra)
	return accepted("restricted-formats", v)
}

func TestRestrictedFormats(t *testing.T) {
	on := day("2030-01-01")
	cases := []struct {
		entry Entry
		want  string
	}{
		{singleUse("point_of_sale_grouping", true, nil), Fail},
		{singleUse("point_of_sale_grouping", false, nil), Pass},
		{singleUse("fresh_fruit_vegetables", true, register.Values{"pre_packed_mass": q("1499.9", "g")}), Fail},
		{singleUse("fresh_fruit_vegetables", true, register.Values{"pre_packed_mass": q("1500", "g")}), Pass},
		{singleUse("horeca_on_premises", true, register.Values{"exemption_claimed": register.BoolValue(true)}), NotApplicable},
		{singleUse("accommodation", false, nil), Fail},
		{singleUse("none", true, nil), Pass},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, outcome(t, "R44", itemOn(on, c.entry)).Outcome, "%v", c.entry.Values)
	}
}

func TestDocumentationAndMarking(t *testing.T) {
	res := outcome(t, "R33", itemOn(general))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	res = outcome(t, "R33", itemOn(general, accepted("conformity-dossiers", register.Values{"missing_elements": register.EnumsValue([]string{"TD-f"})})))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"conformity-dossiers.TD-f"}, res.Missing)
	assert.Equal(t, Pass, outcome(t, "R33", itemOn(general, accepted("conformity-dossiers", register.Values{"missing_elements": register.EnumsValue([]string{})}))).Outcome)
	assert.Equal(t, Pass, outcome(t, "R34", itemOn(general, accepted("eu-declarations", register.Values{}))).Outcome)

	marked := accepted("communications", register.Values{"identifier": register.TextValue("LOT-1"), "manufacturer_contact_marked": register.BoolValue(true)})
	assert.Equal(t, Pass, outcome(t, "R36", itemOn(general, marked)).Outcome)
	assert.Equal(t, Fail, outcome(t, "R36", itemOn(general, accepted("communications", register.Values{}))).Outcome)
	assert.Equal(t, Pass, outcome(t, "R37", itemOn(general, marked)).Outcome)
	importer := accepted("role-duties", register.Values{"scenario": register.IDValue(uuid.New()), "economic_roles": register.EnumsValue([]string{"importer"})})
	assert.Equal(t, Fail, outcome(t, "R37", itemOn(general, marked, importer)).Outcome, "an importer's contact must be marked too")
}

func TestEPRRegistrationPerMarket(t *testing.T) {
	pl, de := uuid.New(), uuid.New()
	producer := func(scenario uuid.UUID, number string) Entry {
		v := register.Values{"scenario": register.IDValue(scenario), "epr_producer": register.BoolValue(true)}
		if number != "" {
			v["epr_registration_number"] = register.TextValue(number)
		}
		return accepted("role-duties", v)
	}
	assert.Equal(t, Pass, outcome(t, "R58", itemOn(general, producer(pl, "E0001"), producer(de, "DE123"))).Outcome)
	assert.Equal(t, Fail, outcome(t, "R58", itemOn(general, producer(pl, "E0001"), producer(de, ""))).Outcome)
	assert.Equal(t, Pass, outcome(t, "R58", itemOn(general, producer(de, "DE123"), producer(de, ""))).Outcome, "the newest entry of a market counts")
	notProducer := accepted("role-duties", register.Values{"scenario": register.IDValue(pl), "epr_producer": register.BoolValue(false)})
	assert.Equal(t, NotApplicable, outcome(t, "R58", itemOn(general, notProducer)).Outcome)
}

func TestEveryRuleBelongsToAPublishedRuleSet(t *testing.T) {
	codes := map[string]bool{}
	for _, r := range All {
		assert.False(t, codes[r.Code], "%s is declared twice", r.Code)
		codes[r.Code] = true
		set, ok := dictionaries.Default().RuleSet(r.RuleSet)
		require.True(t, ok, "%s names %s, which is not a published rule set", r.Code, r.RuleSet)
		assert.False(t, r.Start.Fixed.Before(set.EffectiveFrom), "%s starts before its rule set", r.Code)
		assert.NotEmpty(t, r.Reads, r.Code)
	}
}

// Every reason a rule gives is a message in both languages.
func TestReasonsAreTranslated(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var reasons [][]string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		reasons = append(reasons, regexp.MustCompile(`"(rules\.[a-z0-9_]+)"`).FindAllStringSubmatch(string(src), -1)...)
	}
	require.NotEmpty(t, reasons)
	for _, m := range reasons {
		for _, l := range []i18n.Locale{i18n.EN, i18n.PL} {
			assert.True(t, i18n.Has(l, m[1]), "%s has no %s message", m[1], l)
		}
	}
}

func TestRecycledContentPerPlasticPart(t *testing.T) {
	tray, film := uuid.New(), uuid.New()
	on := day("2030-01-01")
	item := Item{MassG: decimal.NewFromInt(184), Components: []Component{
		{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(160)},
		{ID: tray, Material: "PLASTIC_PET", MassG: decimal.NewFromInt(23)},
		{ID: film, Material: "PLASTIC_PP", MassG: decimal.RequireFromString("0.5")},
	}}
	recycled := func(value string) Fact {
		return Fact{Code: "RECYCLED_CONTENT_PCT", Component: &tray, Value: decimal.RequireFromString(value), Proposal: uuid.New()}
	}
	evaluate := func(c register.Values, facts ...Fact) Result {
		in := &Input{On: on, Item: item, Facts: facts, Acts: Acts{"recycled_content_method": day("2026-06-01")},
			Entries: []Entry{classification(c)}}
		return outcome(t, "R14", in)
	}
	contact := register.Values{"contact_sensitive": register.BoolValue(true)}
	for value, want := range map[string]string{"29.99": Fail, "30": Pass} {
		res := evaluate(contact, recycled(value))
		assert.Equal(t, want, res.Outcome, "contact-sensitive PET needs 30 %%: %s", value)
		assert.Len(t, res.Evidence, 1, "the evidence is cited")
	}
	assert.Equal(t, Fail, evaluate(register.Values{}, recycled("34.9")).Outcome, "other plastic packaging needs 35 %")
	assert.Equal(t, Pass, evaluate(register.Values{"contact_sensitive": register.BoolValue(true), "sup_beverage_bottle": register.BoolValue(true)}, recycled("30")).Outcome)
	res := evaluate(contact)
	assert.Equal(t, InsufficientData, res.Outcome)
	assert.Equal(t, []string{"RECYCLED_CONTENT_PCT@" + tray.String()}, res.Missing, "the film under 5 per cent of the unit's mass needs nothing")
	assert.Equal(t, NotApplicable, evaluate(register.Values{"exemptions": register.EnumsValue([]string{"7(4)"})}).Outcome)

	glass := &Input{On: on, Item: Item{MassG: decimal.NewFromInt(180), Components: []Component{{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(180)}}},
		Acts: Acts{"recycled_content_method": day("2026-06-01")}, Entries: []Entry{classification(register.Values{})}}
	assert.Equal(t, NotApplicable, outcome(t, "R14", glass).Outcome, "no plastic part")

	pending := outcome(t, "R14", &Input{On: day("2032-01-01"), Acts: Acts{}})
	assert.Equal(t, NotYetApplicable, pending.Outcome, "the method act is not in force")
	assert.True(t, pending.Pending)
}

func TestCompostableFormats(t *testing.T) {
	on := day("2028-02-12")
	bag := classification(register.Values{"art_9_format": register.TextValue("tea_coffee_bag")})
	assert.Equal(t, NotYetApplicable, outcome(t, "R19", itemOn(day("2028-02-11"), bag)).Outcome)
	assert.Equal(t, NotApplicable, outcome(t, "R19", itemOn(on, classification(register.Values{}))).Outcome, "not an Art. 9(1) format")
	assert.Equal(t, DocumentationMissing, outcome(t, "R19", itemOn(on, bag)).Outcome, "the format needs its compostability entry")
	certified := accepted("compostability", register.Values{"format": register.TextValue("tea_coffee_bag")})
	assert.Equal(t, Pass, outcome(t, "R19", itemOn(on, bag, certified)).Outcome)
	other := accepted("compostability", register.Values{"format": register.TextValue("soft_single_serve_pod")})
	assert.Equal(t, DocumentationMissing, outcome(t, "R19", itemOn(on, bag, other)).Outcome, "an entry for another format does not count")
}

func TestRetentionGivesTheLaterEndDate(t *testing.T) {
	dossier := accepted("conformity-dossiers", register.Values{"retention_until": register.TextValue("2031-09-01")})
	declaration := accepted("eu-declarations", register.Values{"retention_until": register.TextValue("2031-10-01")})
	res := outcome(t, "R35", itemOn(general, dossier, declaration))
	assert.Equal(t, Pass, res.Outcome)
	assert.Equal(t, "rules.retain_until", res.Reason)
	assert.Equal(t, []string{"2031-10-01"}, res.ReasonArgs)
	res = outcome(t, "R35", itemOn(general, dossier))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"eu-declarations"}, res.Missing)
}

func TestEPRRepresentativeForDirectSalesFromAnotherMemberState(t *testing.T) {
	pl, de := uuid.New(), uuid.New()
	market := func(scenario uuid.UUID, direct bool, representative string) Entry {
		v := register.Values{"scenario": register.IDValue(scenario), "direct_sales_from_other_member_state": register.BoolValue(direct)}
		if representative != "" {
			v["epr_authorised_representative"] = register.TextValue(representative)
		}
		return accepted("role-duties", v)
	}
	assert.Equal(t, NotApplicable, outcome(t, "R60", itemOn(general, market(pl, false, ""))).Outcome)
	assert.Equal(t, Fail, outcome(t, "R60", itemOn(general, market(pl, false, ""), market(de, true, ""))).Outcome)
	assert.Equal(t, Pass, outcome(t, "R60", itemOn(general, market(pl, false, ""), market(de, true, "EPR Rep GmbH"))).Outcome)
	assert.Equal(t, InsufficientData, outcome(t, "R60", itemOn(general)).Outcome)
}

func TestTheCatalogueHoldsEveryRuleOfTheMasterTable(t *testing.T) {
	require.Len(t, All, 62)
	acts := map[string]bool{}
	var doc struct{ Acts []struct{ Code string } }
	require.NoError(t, json.Unmarshal(actsJSON, &doc))
	for _, a := range doc.Acts {
		acts[a.Code] = true
	}
	for i, r := range All {
		assert.Equal(t, fmt.Sprintf("R%02d", i+1), r.Code, "in the master table's order")
		assert.NotEmpty(t, r.Article, r.Code)
		assert.Contains(t, Checks, r.Check, r.Code)
		assert.Contains(t, Levels, r.Level, r.Code)
		assert.NotEmpty(t, r.Reads, r.Code)
		set, ok := dictionaries.Default().RuleSet(r.RuleSet)
		assert.True(t, ok, "%s: rule set %s is published", r.Code, r.RuleSet)
		if ok && r.Start.Act == "" {
			assert.False(t, set.EffectiveFrom.After(r.Start.Fixed), "%s: its rule set is in effect from its date", r.Code)
		}
		if r.Start.Act != "" {
			assert.True(t, acts[r.Start.Act], "%s waits for %s, which acts.json lists", r.Code, r.Start.Act)
		}
		for _, l := range []i18n.Locale{i18n.EN, i18n.PL} {
			assert.NotEqual(t, r.ScopeKey(), i18n.T(l, r.ScopeKey()), "%s: scope decision in %s", r.Code, l)
		}
		assert.Equal(t, r.Check == Aggregate, r.eval == nil, "%s: evaluated from data", r.Code)
	}
}

// Absence of data never passes: an item with nothing recorded, on a date
// every rule applies with every act in force, passes no rule, and an
// information rule only informs.
func TestAbsenceOfDataNeverPasses(t *testing.T) {
	acts := Acts{}
	var doc struct{ Acts []struct{ Code string } }
	require.NoError(t, json.Unmarshal(actsJSON, &doc))
	for _, a := range doc.Acts {
		acts[a.Code] = day("2026-01-01")
	}
	in := itemOn(day("2045-01-01"))
	in.Acts, in.Markets = acts, []Market{{ID: uuid.New(), Country: "PL"}}
	for _, res := range Evaluate(All, in, nil) {
		assert.NotEqual(t, NotYetApplicable, res.Outcome, res.Rule)
		assert.NotContains(t, []string{Pass, Graded}, res.Outcome, "%s: absence of data never passes", res.Rule)
		if rule, _ := ByCode(res.Rule); rule.Check == Information {
			assert.Equal(t, Informational, res.Outcome, res.Rule)
		}
	}
}

// R01 never passes over rules an assessment left out: with every other
// rule skipped, it is not assessed either, naming them.
func TestTheAggregateDoesNotPassOverRulesLeftOut(t *testing.T) {
	skip := map[string]string{}
	for _, r := range All {
		if r.Code != "R01" {
			skip[r.Code] = "rules.rule_set_not_selected"
		}
	}
	res := Evaluate(All, itemOn(general), skip)
	assert.Equal(t, NotAssessed, res[0].Outcome, "R01")
	assert.Equal(t, "rules.aggregate_partial", res[0].Reason)
	assert.Contains(t, res[0].ReasonArgs[0], "R03")
	assert.Equal(t, NotAssessed, res[2].Outcome, "R03 is listed, not evaluated")
	assert.Equal(t, "rules.rule_set_not_selected", res[2].Reason)
}
