package rules

import (
	"maps"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/register"
)

// designCase is one input of a design rule and the outcome it must give;
// missing, reason and args are checked when given.
type designCase struct {
	name    string
	in      *Input
	want    string
	missing []string
	reason  string
	args    []string
}

func checkDesign(t *testing.T, code string, cases []designCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := outcome(t, code, c.in)
			assert.Equal(t, c.want, res.Outcome)
			if c.missing != nil {
				assert.Equal(t, c.missing, res.Missing)
			}
			if c.reason != "" {
				assert.Equal(t, c.reason, res.Reason)
			}
			if c.args != nil {
				assert.Equal(t, c.args, res.ReasonArgs)
			}
		})
	}
}

// withActs is the input with Commission acts in force.
func withActs(in *Input, acts Acts) *Input {
	in.Acts = acts
	return in
}

func values(pairs ...any) register.Values {
	v := register.Values{}
	for i := 0; i < len(pairs); i += 2 {
		v[pairs[i].(string)] = pairs[i+1].(register.Value)
	}
	return v
}

var (
	yes = register.BoolValue(true)
	no  = register.BoolValue(false)
	doc = register.IDValue(uuid.New())
)

func text(s string) register.Value { return register.TextValue(s) }

func list(codes ...string) register.Value { return register.EnumsValue(codes) }

func objects(items ...register.Values) register.Value { return register.ObjectsValue(items) }

// recyclable is a recyclability entry with a design-for-recycling score
// and its grade.
func recyclable(score string, extra register.Values) Entry {
	v := register.Values{"dfr_score": q(score, "%"), "grade": text(register.Grade(decimal.RequireFromString(score)))}
	maps.Copy(v, extra)
	return accepted("recyclability", v)
}

// dossierWith is a conformity dossier listing elements, each complete
// unless named with a trailing "?".
func dossierWith(elements ...string) Entry {
	var list []register.Values
	for _, e := range elements {
		complete := e[len(e)-1] != '?'
		if !complete {
			e = e[:len(e)-1]
		}
		list = append(list, values("element", text(e), "complete", register.BoolValue(complete)))
	}
	return accepted("conformity-dossiers", values("elements", objects(list...)))
}

func substance() register.Values {
	return values("name", text("Bisphenol A"), "cas_number", text("80-05-7"), "concentration", q("0.2", "mg/kg"))
}

func TestR02SubstancesOfConcernAreListedOrStatedNone(t *testing.T) {
	listed := register.Values{"substances_of_concern": objects(substance())}
	none := register.Values{"no_substances_of_concern": yes}
	checkDesign(t, "R02", []designCase{
		{"listed and stated none", itemOn(general, chem(body, "1", listed), chem(closure, "1", none)), Pass, nil, "", nil},
		{"an empty list is not a statement", itemOn(general, chem(body, "1", listed), chem(closure, "1", nil)), DocumentationMissing,
			[]string{"chemical-safety.substances_of_concern@" + closure.String()}, "", nil},
		{"a statement of false is not one either", itemOn(general, chem(body, "1", listed), chem(closure, "1", register.Values{"no_substances_of_concern": no})),
			DocumentationMissing, []string{"chemical-safety.substances_of_concern@" + closure.String()}, "", nil},
		{"a component without its entry", itemOn(general, chem(body, "1", listed)), DocumentationMissing,
			[]string{"chemical-safety@" + closure.String()}, "", nil},
		{"before the general date", itemOn(day("2026-08-11"), chem(body, "1", listed), chem(closure, "1", none)), NotYetApplicable, nil, "", nil},
	})
}

func TestR07TheDossierHoldsTheSubstanceResults(t *testing.T) {
	chems := []Entry{chem(body, "1", nil), chem(closure, "1", nil)}
	checkDesign(t, "R07", []designCase{
		{"element complete, every component measured", itemOn(general, append(chems, dossierWith("TD-a", "TD-5(6)"))...), Pass, nil, "", nil},
		{"element not complete", itemOn(general, append(chems, dossierWith("TD-a", "TD-5(6)?"))...), DocumentationMissing,
			[]string{"conformity-dossiers.TD-5(6)"}, "", nil},
		{"element absent", itemOn(general, append(chems, dossierWith("TD-a"))...), DocumentationMissing, []string{"conformity-dossiers.TD-5(6)"}, "", nil},
		{"no dossier", itemOn(general, chems...), DocumentationMissing, []string{"conformity-dossiers"}, "", nil},
		{"a component not measured", itemOn(general, chems[0], dossierWith("TD-5(6)")), DocumentationMissing,
			[]string{"chemical-safety@" + closure.String()}, "", nil},
	})
}

func TestR10RecycledAtScale(t *testing.T) {
	rasInForce := Acts{"recycled_at_scale_method": day("2029-06-01")}
	on := day("2035-01-01")
	at := func(entries ...Entry) *Input { return withActs(itemOn(on, entries...), rasInForce) }
	ras := register.Values{"recycled_at_scale": yes}
	checkDesign(t, "R10", []designCase{
		{"grade C at 70 per cent, recycled at scale", at(recyclable("70", ras)), Graded, nil, "", nil},
		{"69.99 per cent is not recyclable", at(recyclable("69.99", ras)), Fail, nil, "rules.not_recyclable", nil},
		{"grade A not recycled at scale", at(recyclable("95", register.Values{"recycled_at_scale": no})), Fail, nil, "rules.not_recycled_at_scale", nil},
		{"recycled at scale not recorded", at(recyclable("95", nil)), InsufficientData, []string{"recyclability.recycled_at_scale"}, "", nil},
		{"no recyclability entry", at(), InsufficientData, []string{"recyclability"}, "", nil},
		{"exempt under Art. 6(11)", at(classification(values("exemptions", list("6(11)")))), NotApplicable, nil, "rules.exempt_6_11", nil},
		{"the act is pending", itemOn(day("2040-01-01"), recyclable("95", ras)), NotYetApplicable, nil, "", nil},
		{"the day before", withActs(itemOn(day("2034-12-31"), recyclable("95", ras)), rasInForce), NotYetApplicable, nil, "", nil},
	})
	assert.Equal(t, "C", outcome(t, "R10", at(recyclable("70", ras))).Grade)
	late := outcome(t, "R10", withActs(itemOn(day("2035-06-01")), Acts{"recycled_at_scale_method": day("2031-01-01")}))
	assert.Equal(t, NotYetApplicable, late.Outcome)
	assert.Equal(t, day("2036-01-01"), late.AppliesFrom, "5 years after an act later than 2030")
	assert.True(t, outcome(t, "R10", itemOn(on)).Pending)
}

var dfrInForce = Acts{"dfr_delegated_acts": day("2027-01-01")}

func TestR11SeparateComponentsAreAssessed(t *testing.T) {
	on := day("2030-01-01")
	at := func(entries ...Entry) *Input { return withActs(itemOn(on, entries...), dfrInForce) }
	separate := func(score string) register.Values {
		return values("separate_components", objects(values("component", register.IDValue(closure), "dfr_score", q(score, "%"))))
	}
	assessed := separate("60")
	assessed["table_4_parameters"] = objects(values("parameter", text("closures"), "component", register.IDValue(closure), "assessment", text("detaches in the float-sink step")))
	checkDesign(t, "R11", []designCase{
		{"separate component recyclable", at(recyclable("96", separate("70"))), Pass, nil, "", nil},
		{"only integrated components", at(recyclable("96", nil)), Pass, nil, "", nil},
		{"a separate component below 70 per cent without its Table 4 assessment", at(recyclable("96", separate("69.99"))), DocumentationMissing,
			[]string{"recyclability.table_4_parameters@" + closure.String()}, "", nil},
		{"with its Table 4 assessment", at(recyclable("96", assessed)), Pass, nil, "", nil},
		{"no unit score", at(accepted("recyclability", separate("90"))), DocumentationMissing, []string{"recyclability.dfr_score"}, "", nil},
		{"no recyclability entry", at(), DocumentationMissing, []string{"recyclability"}, "", nil},
		{"exempt by classification", at(classification(values("exemptions", list("6(11)")))), NotApplicable, nil, "rules.exempt_6_11", nil},
		{"exempt by recyclability entry", at(accepted("recyclability", values("exemption", text("medicinal_packaging")))), NotApplicable, nil, "rules.exempt_6_11", nil},
		{"the DfR acts are pending", itemOn(on, recyclable("96", nil)), NotYetApplicable, nil, "", nil},
	})
}

func TestR12InnovativePackagingDerogation(t *testing.T) {
	innovative := func(extra register.Values) Entry {
		v := values("innovative", yes, "innovative_notification", doc, "first_placed_on", text("2029-03-01"))
		maps.Copy(v, extra)
		return recyclable("50", v)
	}
	checkDesign(t, "R12", []designCase{
		{"last day of the fifth year after", itemOn(day("2034-12-31"), innovative(nil)), Pass, nil, "rules.innovative_derogation_until", []string{"2034-12-31"}},
		{"the day after", itemOn(day("2035-01-01"), innovative(nil)), Fail, nil, "rules.innovative_derogation_ended", []string{"2034-12-31"}},
		{"no notification", itemOn(day("2030-01-01"), innovative(register.Values{"innovative_notification": nil})), DocumentationMissing,
			[]string{"recyclability.innovative_notification"}, "", nil},
		{"no first placing date", itemOn(day("2030-01-01"), innovative(register.Values{"first_placed_on": nil})), DocumentationMissing,
			[]string{"recyclability.first_placed_on"}, "", nil},
		{"innovative by classification, no recyclability entry", itemOn(day("2030-01-01"), classification(values("innovative", yes))), DocumentationMissing,
			[]string{"recyclability"}, "", nil},
		{"innovative by classification only", itemOn(day("2030-01-01"), classification(values("innovative", yes)), recyclable("50", nil)), DocumentationMissing,
			[]string{"recyclability.innovative_notification", "recyclability.first_placed_on"}, "", nil},
		{"not innovative", itemOn(day("2030-01-01"), classification(values("innovative", no)), recyclable("96", nil)), NotApplicable, nil, "rules.not_innovative", nil},
		{"nothing to tell", itemOn(day("2030-01-01")), InsufficientData, []string{"packaging-classification"}, "", nil},
		{"before 2030", itemOn(day("2029-12-31"), innovative(nil)), NotYetApplicable, nil, "", nil},
	})
}

func TestR13ExemptionFromArticle6(t *testing.T) {
	on := day("2030-01-01")
	at := func(entries ...Entry) *Input { return withActs(itemOn(on, entries...), dfrInForce) }
	claims := classification(values("exemptions", list("6(11)")))
	basis := accepted("recyclability", values("exemption", text("medicinal_packaging")))
	checkDesign(t, "R13", []designCase{
		{"claimed with its basis", at(claims, basis), Pass, nil, "rules.exemption_applies", []string{"6(11)", "medicinal_packaging"}},
		{"the basis alone is a claim", at(classification(values()), basis), Pass, nil, "rules.exemption_applies", nil},
		{"claimed without a basis", at(claims, recyclable("96", nil)), DocumentationMissing, []string{"recyclability.exemption"}, "", nil},
		{"not claimed", at(classification(values()), recyclable("96", nil)), NotApplicable, nil, "rules.exemption_not_claimed", []string{"6(11)"}},
		{"no classification", at(basis), InsufficientData, []string{"packaging-classification"}, "", nil},
	})
}

func TestR15RecycledContentFrom2040(t *testing.T) {
	tray, film := uuid.New(), uuid.New()
	item := Item{MassG: decimal.NewFromInt(184), Components: []Component{
		{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(160)},
		{ID: tray, Material: "PLASTIC_PET", MassG: decimal.NewFromInt(23)},
		{ID: film, Material: "PLASTIC_PP", MassG: decimal.RequireFromString("0.5")},
	}}
	on := func(date string, c register.Values, pct string) *Input {
		in := &Input{On: day(date), Item: item, Acts: Acts{}, Entries: []Entry{classification(c)}}
		if pct != "" {
			in.Facts = []Fact{{Code: "RECYCLED_CONTENT_PCT", Component: &tray, Value: decimal.RequireFromString(pct), Proposal: uuid.New()}}
		}
		return in
	}
	contact := values("contact_sensitive", yes)
	bottle := values("sup_beverage_bottle", yes)
	cases := []designCase{
		{"other plastic at 65", on("2040-01-01", values(), "65"), Pass, nil, "", nil},
		{"other plastic at 64.99", on("2040-01-01", values(), "64.99"), Fail, nil, "rules.recycled_content_below_minimum", nil},
		{"contact-sensitive PET at 50", on("2040-01-01", contact, "50"), Pass, nil, "", nil},
		{"contact-sensitive PET at 49.99", on("2040-01-01", contact, "49.99"), Fail, nil, "", nil},
		{"beverage bottle at 65", on("2040-01-01", bottle, "65"), Pass, nil, "", nil},
		{"beverage bottle at 64.99", on("2040-01-01", bottle, "64.99"), Fail, nil, "", nil},
		{"the film under 5 per cent needs nothing", on("2040-01-01", values(), ""), InsufficientData, []string{"RECYCLED_CONTENT_PCT@" + tray.String()}, "", nil},
		{"exempt under Art. 7(4)", on("2040-01-01", values("exemptions", list("7(4)")), ""), NotApplicable, nil, "rules.exempt_7_4", nil},
		{"before 2040", on("2039-12-31", values(), "40"), NotYetApplicable, nil, "", nil},
	}
	checkDesign(t, "R15", cases)

	other := item
	other.Components = []Component{item.Components[0], {ID: tray, Material: "PLASTIC_PP", MassG: decimal.NewFromInt(23)}}
	in := on("2040-01-01", contact, "24.99")
	in.Item = other
	assert.Equal(t, Fail, outcome(t, "R15", in).Outcome, "contact-sensitive plastic other than PET needs 25 per cent")
	in.Facts[0].Value = decimal.NewFromInt(25)
	assert.Equal(t, Pass, outcome(t, "R15", in).Outcome)

	in = on("2040-01-01", values(), "35")
	in.Acts = Acts{"recycled_content_method": day("2026-06-01")}
	assert.Equal(t, Pass, outcome(t, "R14", in).Outcome, "35 per cent meets 2030")
	assert.Equal(t, Fail, outcome(t, "R15", in).Outcome, "but not 2040")
}

func TestR16ExemptionsFromRecycledContent(t *testing.T) {
	inForce := Acts{"recycled_content_method": day("2026-06-01")}
	on := day("2030-01-01")
	// The closure is 4 g of 184 g: about 2.2 per cent.
	at := func(entries ...Entry) *Input { return withActs(itemOn(on, entries...), inForce) }
	claims := func(exemption string, extra ...any) Entry {
		return classification(values(append([]any{"exemptions", list(exemption)}, extra...)...))
	}
	heavyPart := func(grams string) *Input {
		in := at(claims("7(5)"))
		in.Item = Item{MassG: decimal.NewFromInt(100), Components: []Component{
			{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(95)}, {ID: closure, Material: "PLASTIC_PP", MassG: decimal.RequireFromString(grams)}}}
		return in
	}
	glass := at(claims("7(4)"))
	glass.Item.Components = glass.Item.Components[:1]
	checkDesign(t, "R16", []designCase{
		{"Art. 7(4) with its basis", at(claims("7(4)", "recycled_content_exemption", text("medical_device"))), Pass, nil, "rules.exemption_applies",
			[]string{"7(4)", "medical_device"}},
		{"Art. 7(4) without a basis", at(claims("7(4)")), DocumentationMissing, []string{"packaging-classification.recycled_content_exemption"}, "", nil},
		{"Art. 7(5): every plastic part is minor", at(claims("7(5)")), Pass, nil, "rules.exemption_applies", nil},
		{"Art. 7(5): a part at 4.99 per cent", heavyPart("4.99"), Pass, nil, "", nil},
		{"Art. 7(5): a part at 5 per cent", heavyPart("5"), Fail, nil, "rules.plastic_part_not_minor", nil},
		{"none claimed", at(classification(values())), NotApplicable, nil, "rules.exemption_not_claimed", []string{"7(4)-(5)"}},
		{"no plastic part", glass, NotApplicable, nil, "rules.no_plastic_part", nil},
		{"no classification", at(), InsufficientData, []string{"packaging-classification"}, "", nil},
		{"the method act is pending", itemOn(on, claims("7(5)")), NotYetApplicable, nil, "", nil},
	})
}

func TestR17RecycledContentDocumentation(t *testing.T) {
	inForce := Acts{"recycled_content_method": day("2026-06-01")}
	tray := uuid.New()
	item := Item{MassG: decimal.NewFromInt(184), Components: []Component{
		{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(160)}, {ID: tray, Material: "PLASTIC_PET", MassG: decimal.NewFromInt(23)},
		{ID: closure, Material: "PLASTIC_PP", MassG: decimal.NewFromInt(1)}}}
	evidence := Fact{Code: "RECYCLED_CONTENT_PCT", Component: &tray, Value: decimal.NewFromInt(10), Proposal: uuid.New()}
	at := func(date string, facts []Fact, entries ...Entry) *Input {
		return &Input{On: day(date), Item: item, Acts: inForce, Facts: facts, Entries: entries}
	}
	cls := classification(values())
	checkDesign(t, "R17", []designCase{
		{"evidence and dossier", at("2029-01-01", []Fact{evidence}, cls, dossierWith("TD-7(6)")), Pass, nil, "", nil},
		{"no evidence", at("2029-01-01", nil, cls, dossierWith("TD-7(6)")), DocumentationMissing, []string{"RECYCLED_CONTENT_PCT@" + tray.String()}, "", nil},
		{"the dossier does not hold it", at("2029-01-01", []Fact{evidence}, cls, dossierWith("TD-a", "TD-7(6)?")), DocumentationMissing,
			[]string{"conformity-dossiers.TD-7(6)"}, "", nil},
		{"no dossier", at("2029-01-01", []Fact{evidence}, cls), DocumentationMissing, []string{"conformity-dossiers"}, "", nil},
		{"exempt", at("2029-01-01", nil, classification(values("exemptions", list("7(4)")))), NotApplicable, nil, "rules.exempt_7_4", nil},
		{"no classification", at("2029-01-01", []Fact{evidence}, dossierWith("TD-7(6)")), InsufficientData, []string{"packaging-classification"}, "", nil},
		{"before 2029", at("2028-12-31", []Fact{evidence}, cls, dossierWith("TD-7(6)")), NotYetApplicable, nil, "", nil},
	})
	res := outcome(t, "R17", at("2029-01-01", []Fact{evidence}, cls, dossierWith("TD-7(6)")))
	assert.Equal(t, []uuid.UUID{evidence.Proposal}, res.Evidence, "the evidence is cited")

	minor := at("2029-01-01", nil, cls)
	minor.Item = Item{MassG: decimal.NewFromInt(184), Components: []Component{{ID: body, Material: "GLASS", MassG: decimal.NewFromInt(180)},
		{ID: closure, Material: "PLASTIC_PP", MassG: decimal.NewFromInt(4)}}}
	assert.Equal(t, "rules.plastic_parts_all_minor", outcome(t, "R17", minor).Reason, "a closure under 5 per cent needs no evidence")
	pending := outcome(t, "R17", &Input{On: day("2029-06-01"), Acts: Acts{}})
	assert.Equal(t, NotYetApplicable, pending.Outcome)
	assert.True(t, pending.Pending)
}

func TestR18BiobasedContentIsInformationOnly(t *testing.T) {
	biobased := accepted("biobased", values("biobased_content", q("42", "%"), "measurement_method", text("EN 16640")))
	checkDesign(t, "R18", []designCase{
		{"an entry", itemOn(general, biobased), Informational, nil, "rules.biobased_content", []string{"42", "EN 16640"}},
		{"no entry", itemOn(general), Informational, nil, "rules.no_biobased_entry", nil},
	})
}

func TestR20NationalOptionsAreUnknownUntilVerified(t *testing.T) {
	pl, de := uuid.New(), uuid.New()
	pod := classification(values("non_metal_machine_pod", yes, "predominant_material", text("plastic")))
	bag := func(material, class string) Entry {
		return classification(values("predominant_material", text(material), "carrier_bag_class", text(class)))
	}
	inMarkets := func(entries ...Entry) *Input {
		in := itemOn(general, entries...)
		in.Markets = []Market{{ID: pl, Country: "PL"}, {ID: de, Country: "DE"}}
		in.NationalChoices = KnownNationalChoices()
		return in
	}
	require.Empty(t, KnownNationalChoices(), "ppwr-facts §7 verifies no Member State choice")
	checkDesign(t, "R20", []designCase{
		{"machine pod", inMarkets(pod), NationalChoiceUnknown, nil, "", nil},
		{"very lightweight plastic bag", inMarkets(bag("plastic", "very_lightweight")), NationalChoiceUnknown, nil, "", nil},
		{"lightweight plastic bag", inMarkets(bag("plastic", "lightweight")), NationalChoiceUnknown, nil, "", nil},
		{"thick plastic bag", inMarkets(bag("plastic", "thick")), NotApplicable, nil, "rules.not_national_option_format", nil},
		{"lightweight paper bag", inMarkets(bag("paper_board", "lightweight")), NotApplicable, nil, "rules.not_national_option_format", nil},
		{"no markets", itemOn(general, pod), InsufficientData, []string{"markets"}, "", nil},
		{"no classification", inMarkets(), InsufficientData, []string{"packaging-classification"}, "", nil},
	})
	res := outcome(t, "R20", inMarkets(pod))
	require.Len(t, res.Markets, 2)
	for _, m := range res.Markets {
		assert.Equal(t, NationalChoiceUnknown, m.Outcome, m.Country)
		assert.Equal(t, "rules.national_choice_unknown", m.Reason)
	}

	verified := inMarkets(pod)
	verified.NationalChoices = []NationalChoice{{Country: "PL", Format: "non_metal_machine_pod", CompostableRequired: true},
		{Country: "DE", Format: "non_metal_machine_pod", CompostableRequired: false}}
	res = outcome(t, "R20", verified)
	assert.Equal(t, DocumentationMissing, res.Outcome, "a verified requirement needs the compostability entry")
	assert.Equal(t, []string{"compostability"}, res.Markets[0].Missing)
	assert.Equal(t, NotApplicable, res.Markets[1].Outcome)
	verified.Entries = append(verified.Entries, accepted("compostability", values("format", text("member_state_mandated"))))
	res = outcome(t, "R20", verified)
	assert.Equal(t, []string{Pass, NotApplicable}, []string{res.Markets[0].Outcome, res.Markets[1].Outcome})
	assert.Equal(t, Pass, res.Outcome)
}

func TestR21DesignedForMaterialRecycling(t *testing.T) {
	on := day("2028-02-12")
	cls := classification(values())
	biodegradable := classification(values("annex_ii_category", register.IntValue(19)))
	checkDesign(t, "R21", []designCase{
		{"70 per cent", itemOn(on, cls, recyclable("70", nil)), Pass, nil, "", nil},
		{"69.99 per cent", itemOn(on, cls, recyclable("69.99", nil)), Fail, nil, "rules.not_designed_for_material_recycling", nil},
		{"biodegradable plastic too", itemOn(on, biodegradable, recyclable("69.99", nil)), Fail, nil, "", nil},
		{"no score", itemOn(on, cls, accepted("recyclability", values("exemption", text("medicinal_packaging")))), DocumentationMissing,
			[]string{"recyclability.dfr_score"}, "", nil},
		{"no recyclability entry", itemOn(on, cls), DocumentationMissing, []string{"recyclability"}, "", nil},
		{"an Art. 9(1) format", itemOn(on, classification(values("art_9_format", text("tea_coffee_bag")))), NotApplicable, nil, "rules.art_9_1_format", nil},
		{"no classification", itemOn(on), InsufficientData, []string{"packaging-classification"}, "", nil},
		{"before 12 February 2028", itemOn(day("2028-02-11"), cls), NotYetApplicable, nil, "", nil},
	})
}

// minimized is a minimization entry of an item of 99 g with a justified
// minimum of 95 g.
func minimized(extra register.Values) Entry {
	v := values("mass", q("99", "g"), "minimum_mass", q("95", "g"), "batch_variation", q("5", "%"),
		"criteria", objects(values("criterion", text("product protection"), "limiting_requirement", text("drop test 1.2 m"))),
		"double_walls", no, "false_bottoms", no, "unnecessary_layers", no)
	maps.Copy(v, extra)
	return accepted("minimization", v)
}

func TestR22MassAndVolumeAtTheJustifiedMinimum(t *testing.T) {
	on := day("2030-01-01")
	checkDesign(t, "R22", []designCase{
		{"within the batch variation", itemOn(on, minimized(nil)), Pass, nil, "", nil},
		{"at the limit of 99.75 g", itemOn(on, minimized(register.Values{"mass": q("99.75", "g")})), Pass, nil, "", nil},
		{"just above it", itemOn(on, minimized(register.Values{"mass": q("99.76", "g")})), Fail, nil, "rules.mass_above_minimum", []string{"99.75"}},
		{"at the minimum without variation", itemOn(on, minimized(register.Values{"mass": q("95", "g"), "batch_variation": nil})), Pass, nil, "", nil},
		{"above it without variation", itemOn(on, minimized(register.Values{"mass": q("95.01", "g"), "batch_variation": nil})), Fail, nil, "", []string{"95"}},
		{"volume above its minimum", itemOn(on, minimized(register.Values{"volume": q("520", "ml"), "minimum_volume": q("480", "ml")})), Fail, nil,
			"rules.volume_above_minimum", []string{"504"}},
		{"volume within it", itemOn(on, minimized(register.Values{"volume": q("504", "ml"), "minimum_volume": q("480", "ml")})), Pass, nil, "", nil},
		{"no minimum mass", itemOn(on, minimized(register.Values{"minimum_mass": nil})), DocumentationMissing, []string{"minimization.minimum_mass"}, "", nil},
		{"no criteria", itemOn(on, minimized(register.Values{"criteria": nil})), DocumentationMissing, []string{"minimization.criteria"}, "", nil},
		{"no assessment", itemOn(on), DocumentationMissing, []string{"minimization"}, "", nil},
		{"before 2030", itemOn(day("2029-12-31"), minimized(nil)), NotYetApplicable, nil, "", nil},
	})
}

func TestR23NoDoubleWallsFalseBottomsOrUnnecessaryLayers(t *testing.T) {
	protected := register.Values{"exception": text("design_protected_before_2025_02_11"), "exception_evidence": doc}
	with := func(feature string, extra register.Values) Entry {
		v := register.Values{feature: yes}
		maps.Copy(v, extra)
		return minimized(v)
	}
	checkDesign(t, "R23", []designCase{
		{"none of them", itemOn(general, minimized(nil)), Pass, nil, "", nil},
		{"double walls", itemOn(general, with("double_walls", nil)), Fail, nil, "rules.volume_inflated", nil},
		{"a false bottom", itemOn(general, with("false_bottoms", nil)), Fail, nil, "", nil},
		{"unnecessary layers", itemOn(general, with("unnecessary_layers", nil)), Fail, nil, "", nil},
		{"a protected design with its evidence", itemOn(general, with("false_bottoms", protected)), Pass, nil, "rules.volume_feature_exception",
			[]string{"design_protected_before_2025_02_11"}},
		{"an exception without evidence", itemOn(general, with("double_walls", register.Values{"exception": text("geographical_indication")})),
			DocumentationMissing, []string{"minimization.exception_evidence"}, "", nil},
		{"no minimization entry", itemOn(general), InsufficientData, []string{"minimization"}, "", nil},
		// Art. 10(2) follows the general date (an UNVERIFIED reading).
		{"on the general date", itemOn(day("2026-08-12"), with("double_walls", nil)), Fail, nil, "", nil},
		{"before it", itemOn(day("2026-08-11"), with("double_walls", nil)), NotYetApplicable, nil, "", nil},
	})
}

func TestR42SalesPackagingEmptySpace(t *testing.T) {
	on := day("2028-02-12")
	sales := classification(values("packaging_function", text("sales")))
	space := func(pairs ...any) Entry { return accepted("empty-space", values(pairs...)) }
	why := text("coffee settles after filling")
	checkDesign(t, "R42", []designCase{
		{"pack-fill level and justification", itemOn(on, sales, space("pack_fill_level", q("88", "%"), "headspace_justification", why)), Pass, nil, "", nil},
		{"volumes and justification", itemOn(on, sales, space("internal_volume", q("500", "ml"), "product_volume", q("450", "ml"),
			"headspace_justification", why)), Pass, nil, "", nil},
		{"only the internal volume", itemOn(on, sales, space("internal_volume", q("500", "ml"), "headspace_justification", why)), DocumentationMissing,
			[]string{"empty-space.pack_fill_level"}, "", nil},
		{"no justification", itemOn(on, sales, space("pack_fill_level", q("88", "%"))), DocumentationMissing,
			[]string{"empty-space.headspace_justification"}, "", nil},
		{"no empty-space entry", itemOn(on, sales), DocumentationMissing, []string{"empty-space"}, "", nil},
		{"grouped packaging", itemOn(on, classification(values("packaging_function", text("grouped")))), NotApplicable, nil, "rules.not_sales_packaging", nil},
		{"no classification", itemOn(on), InsufficientData, []string{"packaging-classification"}, "", nil},
		{"before 12 February 2028", itemOn(day("2028-02-11"), sales), NotYetApplicable, nil, "", nil},
	})
}

func TestR43EmptySpaceExemption(t *testing.T) {
	esrInForce := Acts{"esr_method": day("2026-12-01")}
	at := func(entries ...Entry) *Input { return withActs(itemOn(day("2030-01-01"), entries...), esrInForce) }
	claims := func(extra ...any) Entry {
		return classification(values(append([]any{"exemptions", list("24(5)")}, extra...)...))
	}
	basis := func(b string) Entry { return accepted("empty-space", values("exemption", text(b))) }
	checkDesign(t, "R43", []designCase{
		{"sales packaging used for e-commerce", at(claims(), basis("sales_packaging_used_for_ecommerce")), Pass, nil, "rules.exemption_applies",
			[]string{"24(5)", "sales_packaging_used_for_ecommerce"}},
		{"reusable in a re-use system", at(claims("reusable_in_system", yes), basis("reusable_in_reuse_system")), Pass, nil, "", nil},
		{"reusable, but not classified in a system", at(claims(), basis("reusable_in_reuse_system")), DocumentationMissing,
			[]string{"packaging-classification.reusable_in_system"}, "", nil},
		{"claimed without a basis", at(claims()), DocumentationMissing, []string{"empty-space.exemption"}, "", nil},
		{"not claimed", at(classification(values())), NotApplicable, nil, "rules.exemption_not_claimed", []string{"24(5)"}},
		{"no classification", at(), InsufficientData, []string{"packaging-classification"}, "", nil},
		{"the ESR act is pending", itemOn(day("2031-01-01"), claims()), NotYetApplicable, nil, "", nil},
	})
}
