package rules

import (
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/register"
)

// The label acts taken as in force in these tests: early enough that the
// fixed dates decide.
var labelActs = Acts{"harmonised_label_act": day("2026-06-01"), "content_label_act": day("2026-06-01"),
	"soc_digital_marking_method": day("2029-06-01")}

var (
	labelDay = day("2028-08-12")
	pl       = Market{ID: uuid.New(), Country: "PL"}
	de       = Market{ID: uuid.New(), Country: "DE"}
)

// labelledItem is the test jar on the date, with the label acts in force,
// on the given markets (Poland when none).
func labelledItem(on time.Time, markets []Market, entries ...Entry) *Input {
	in := itemOn(on, entries...)
	in.Acts = labelActs
	in.Markets = markets
	if markets == nil {
		in.Markets = []Market{pl}
	}
	return in
}

func label(kind string) register.Values {
	return register.Values{"type": register.TextValue(kind), "artwork": register.IDValue(uuid.New())}
}

// comms is a communications entry listing labels of the kinds, with the
// other values.
func comms(kinds []string, extra register.Values) Entry {
	var labels []register.Values
	for _, k := range kinds {
		labels = append(labels, label(k))
	}
	v := register.Values{"manufacturer_contact_marked": register.BoolValue(true), "labels": register.ObjectsValue(labels)}
	maps.Copy(v, extra)
	return accepted("communications", v)
}

func classified(function string, extra register.Values) Entry {
	v := register.Values{"packaging_function": register.TextValue(function), "reuse_type": register.TextValue("single_use")}
	maps.Copy(v, extra)
	return classification(v)
}

var (
	sales     = classified("sales", nil)
	materialL = comms([]string{"harmonised_material_label"}, nil)
)

func scheme(country string, from string, labelApplied bool) DepositScheme {
	return DepositScheme{ID: uuid.New(), Country: country, From: day(from), LabelApplied: labelApplied}
}

func TestMaterialLabel(t *testing.T) {
	noArtwork := accepted("communications", register.Values{"labels": register.ObjectsValue([]register.Values{{"type": register.TextValue("harmonised_material_label")}})})
	teaBag := classified("sales", register.Values{"art_9_format": register.TextValue("tea_coffee_bag")})
	labelText := accepted("compostability", register.Values{"format": register.TextValue("tea_coffee_bag"),
		"label_text": register.TextValue("Compostable in industrial facilities only; not for home composting; do not litter")})
	cases := []struct {
		name    string
		entries []Entry
		markets []Market
		schemes []DepositScheme
		want    string
		reason  string
		missing []string
	}{
		{name: "labelled sales packaging", entries: []Entry{sales, materialL}, want: Pass},
		{name: "no classification", entries: []Entry{materialL}, want: InsufficientData, missing: []string{"packaging-classification"}},
		{name: "no communications", entries: []Entry{sales}, want: InsufficientData, missing: []string{"communications"}},
		{name: "no label", entries: []Entry{sales, comms(nil, nil)}, want: Fail, reason: "rules.no_harmonised_label"},
		{name: "a label without artwork", entries: []Entry{sales, noArtwork}, want: Fail, reason: "rules.no_harmonised_label"},
		{name: "other labels only", entries: []Entry{sales, comms([]string{"epr_symbol", "other_mark"}, nil)}, want: Fail},
		{name: "transport packaging", entries: []Entry{classified("transport", nil)}, want: NotApplicable, reason: "rules.transport_packaging"},
		{name: "e-commerce packaging is not exempt", entries: []Entry{classified("ecommerce", nil), comms(nil, nil)}, want: Fail},
		{name: "Art. 12(11)", entries: []Entry{classified("sales", register.Values{"exemptions": register.EnumsValue([]string{"12(11)"})})},
			want: NotApplicable, reason: "rules.exempt_12_11"},
		{name: "deposit-return in every market", entries: []Entry{sales}, markets: []Market{pl, de},
			schemes: []DepositScheme{scheme("PL", "2028-01-01", true), scheme("DE", "2020-01-01", true)}, want: NotApplicable, reason: "rules.deposit_return_packaging"},
		{name: "deposit-return in one market of two", entries: []Entry{sales, comms(nil, nil)}, markets: []Market{pl, de},
			schemes: []DepositScheme{scheme("DE", "2020-01-01", true)}, want: Fail},
		{name: "a scheme not joined yet", entries: []Entry{sales, comms(nil, nil)}, schemes: []DepositScheme{scheme("PL", "2028-08-13", true)}, want: Fail},
		{name: "compostable without its label", entries: []Entry{teaBag, materialL}, want: Fail, reason: "rules.no_compostable_label"},
		{name: "compostable with a compostable label", entries: []Entry{teaBag, comms([]string{"harmonised_material_label", "compostable_label"}, nil)}, want: Pass},
		{name: "compostable with its label text", entries: []Entry{teaBag, materialL, labelText}, want: Pass},
	}
	for _, c := range cases {
		in := labelledItem(labelDay, c.markets, c.entries...)
		in.DepositSchemes = c.schemes
		res := outcome(t, "R25", in)
		assert.Equal(t, c.want, res.Outcome, c.name)
		if c.reason != "" {
			assert.Equal(t, c.reason, res.Reason, c.name)
		}
		assert.Equal(t, c.missing, res.Missing, c.name)
	}
}

func TestTheLabelRulesWaitForTheirActs(t *testing.T) {
	for _, code := range []string{"R25", "R28", "R29", "R31"} {
		in := labelledItem(day("2035-01-01"), nil, sales, materialL)
		in.Acts = Acts{}
		res := outcome(t, code, in)
		assert.Equal(t, NotYetApplicable, res.Outcome, "%s: the label act is pending", code)
		assert.True(t, res.Pending, code)
		assert.Equal(t, labelDay, res.AppliesFrom, "%s: from 12 August 2028 at the earliest", code)
	}
	assert.Equal(t, NotYetApplicable, outcome(t, "R25", labelledItem(day("2028-08-11"), nil, sales, materialL)).Outcome)
	assert.Equal(t, Pass, outcome(t, "R25", labelledItem(labelDay, nil, sales, materialL)).Outcome)

	late := labelledItem(day("2029-05-31"), nil, sales, materialL)
	late.Acts = Acts{"harmonised_label_act": day("2027-06-01")}
	assert.Equal(t, NotYetApplicable, outcome(t, "R25", late).Outcome, "24 months after a later act")
	late.On = day("2029-06-01")
	assert.Equal(t, Pass, outcome(t, "R25", late).Outcome)

	soc := outcome(t, "R26", &Input{On: day("2035-01-01"), Acts: Acts{}})
	assert.Equal(t, NotYetApplicable, soc.Outcome, "the SoC method act is pending: the start is UNVERIFIED")
	assert.True(t, soc.Pending)
	assert.Equal(t, day("2030-01-01"), soc.AppliesFrom)
}

func socEntry(component uuid.UUID, substances int) Entry {
	var list []register.Values
	for range substances {
		list = append(list, register.Values{"name": register.TextValue("Bisphenol A"), "concentration": q("12", "mg/kg")})
	}
	return chem(component, "1", register.Values{"substances_of_concern": register.ObjectsValue(list)})
}

func TestSubstancesOfConcernMarking(t *testing.T) {
	marked := comms(nil, register.Values{"data_carrier_url": register.TextValue("https://id.example/jar"), "soc_digital_marking": register.BoolValue(true)})
	carrierOnly := comms(nil, register.Values{"data_carrier_url": register.TextValue("https://id.example/jar")})
	on := day("2030-01-01")
	cases := []struct {
		name    string
		entries []Entry
		want    string
		missing []string
	}{
		{name: "no substance of concern", entries: []Entry{socEntry(body, 0), socEntry(closure, 0)}, want: NotApplicable},
		{name: "marked", entries: []Entry{socEntry(body, 2), socEntry(closure, 0), marked}, want: Pass},
		{name: "a component without its entry", entries: []Entry{socEntry(body, 0)}, want: InsufficientData,
			missing: []string{"chemical-safety@" + closure.String()}},
		{name: "a component without its entry, another with SoC, marked", entries: []Entry{socEntry(body, 1), marked}, want: InsufficientData,
			missing: []string{"chemical-safety@" + closure.String()}},
		{name: "no communications", entries: []Entry{socEntry(body, 1), socEntry(closure, 0)}, want: DocumentationMissing, missing: []string{"communications"}},
		{name: "a data carrier without the marking", entries: []Entry{socEntry(body, 1), socEntry(closure, 0), carrierOnly}, want: DocumentationMissing,
			missing: []string{"communications.soc_digital_marking"}},
		{name: "neither", entries: []Entry{socEntry(body, 1), socEntry(closure, 0), comms(nil, nil)}, want: DocumentationMissing,
			missing: []string{"communications.data_carrier_url", "communications.soc_digital_marking"}},
		{name: "Art. 12(11)", entries: []Entry{classified("sales", register.Values{"exemptions": register.EnumsValue([]string{"12(11)"})}), socEntry(body, 1)},
			want: NotApplicable},
	}
	for _, c := range cases {
		res := outcome(t, "R26", labelledItem(on, nil, c.entries...))
		assert.Equal(t, c.want, res.Outcome, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
	}
	assert.Equal(t, NotYetApplicable, outcome(t, "R26", labelledItem(day("2029-12-31"), nil, socEntry(body, 1))).Outcome)
}

func TestContentLabelsAreSubstantiated(t *testing.T) {
	recycled := func(value string) Fact {
		return Fact{Code: "RECYCLED_CONTENT_PCT", Component: &closure, Value: decimal.RequireFromString(value), Proposal: uuid.New()}
	}
	biobased := func(value string) Entry {
		return accepted("biobased", register.Values{"biobased_content": q(value, "%")})
	}
	rcLabel, bioLabel := comms([]string{"recycled_content_label"}, nil), comms([]string{"biobased_content_label"}, nil)
	cases := []struct {
		name    string
		entries []Entry
		facts   []Fact
		want    string
		missing []string
	}{
		{name: "no communications", want: InsufficientData, missing: []string{"communications"}},
		{name: "no content label", entries: []Entry{materialL}, want: NotApplicable},
		{name: "recycled content evidenced", entries: []Entry{rcLabel}, facts: []Fact{recycled("0.01")}, want: Pass},
		{name: "recycled content without evidence", entries: []Entry{rcLabel}, want: InsufficientData, missing: []string{"RECYCLED_CONTENT_PCT"}},
		{name: "a recycled-content label on none", entries: []Entry{rcLabel}, facts: []Fact{recycled("0")}, want: Fail},
		{name: "biobased content", entries: []Entry{bioLabel, biobased("42")}, want: Pass},
		{name: "biobased label on none", entries: []Entry{bioLabel, biobased("0")}, want: Fail},
		{name: "biobased label without its entry", entries: []Entry{bioLabel}, want: InsufficientData, missing: []string{"biobased"}},
		{name: "both, one unevidenced", entries: []Entry{comms([]string{"recycled_content_label", "biobased_content_label"}, nil), biobased("42")},
			want: InsufficientData, missing: []string{"RECYCLED_CONTENT_PCT"}},
	}
	for _, c := range cases {
		in := labelledItem(labelDay, nil, c.entries...)
		in.Facts = c.facts
		res := outcome(t, "R28", in)
		assert.Equal(t, c.want, res.Outcome, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
		if c.want == Pass && len(c.facts) > 0 {
			assert.Equal(t, []uuid.UUID{c.facts[0].Proposal}, res.Evidence, "%s: the evidence is cited", c.name)
		}
	}
}

// languages is a communications entry with the material label, its
// languages per market and whether the product is sold online.
func languages(online *bool, byMarket map[string][]string) Entry {
	var rows []register.Values
	for country, langs := range byMarket {
		rows = append(rows, register.Values{"country": register.TextValue(country), "label_languages": register.EnumsValue(langs)})
	}
	extra := register.Values{"languages_by_market": register.ObjectsValue(rows)}
	if online != nil {
		extra["sold_online"] = register.BoolValue(*online)
	}
	return comms([]string{"harmonised_material_label"}, extra)
}

func TestLabelLanguagesPerMarket(t *testing.T) {
	offline, online := false, true
	be, no := Market{ID: uuid.New(), Country: "BE"}, Market{ID: uuid.New(), Country: "NO"}
	infoOnline := languages(&online, map[string][]string{"PL": {"pl"}})
	infoOnline.Values["label_information_online"] = register.BoolValue(true)
	cases := []struct {
		name    string
		markets []Market
		entries []Entry
		want    map[string]string // outcome per country
		overall string
		missing []string
	}{
		{name: "Polish in Poland", entries: []Entry{sales, languages(&offline, map[string][]string{"PL": {"pl", "en"}})},
			want: map[string]string{"PL": Pass}, overall: Pass},
		{name: "English only in Poland", entries: []Entry{sales, languages(&offline, map[string][]string{"PL": {"en"}})},
			want: map[string]string{"PL": DocumentationMissing}, overall: DocumentationMissing},
		{name: "no languages for the market", entries: []Entry{sales, languages(&offline, map[string][]string{"DE": {"de"}})},
			want: map[string]string{"PL": InsufficientData}, overall: InsufficientData, missing: []string{"communications.languages_by_market@PL"}},
		{name: "Belgium in one of its languages", markets: []Market{be}, entries: []Entry{sales, languages(&offline, map[string][]string{"BE": {"fr"}})},
			want: map[string]string{"BE": NationalChoiceUnknown}, overall: NationalChoiceUnknown},
		{name: "Belgium in all three", markets: []Market{be}, entries: []Entry{sales, languages(&offline, map[string][]string{"BE": {"nl", "fr", "de"}})},
			want: map[string]string{"BE": Pass}, overall: Pass},
		{name: "a market outside the Union", markets: []Market{pl, no}, entries: []Entry{sales, languages(&offline, map[string][]string{"PL": {"pl"}})},
			want: map[string]string{"PL": Pass, "NO": NotApplicable}, overall: Pass},
		{name: "the worst market decides", markets: []Market{pl, de}, entries: []Entry{sales, languages(&offline, map[string][]string{"PL": {"pl"}, "DE": {"pl"}})},
			want: map[string]string{"PL": Pass, "DE": DocumentationMissing}, overall: DocumentationMissing},
		{name: "online sales not recorded", entries: []Entry{sales, languages(nil, map[string][]string{"PL": {"pl"}})},
			want: map[string]string{"PL": InsufficientData}, overall: InsufficientData, missing: []string{"communications.sold_online"}},
		{name: "sold online without the information online", entries: []Entry{sales, languages(&online, map[string][]string{"PL": {"pl"}})},
			want: map[string]string{"PL": DocumentationMissing}, overall: DocumentationMissing, missing: []string{"communications.label_information_online"}},
		{name: "sold online with it", entries: []Entry{sales, infoOnline}, want: map[string]string{"PL": Pass}, overall: Pass},
		{name: "e-commerce packaging is sold online", entries: []Entry{classified("ecommerce", nil), languages(&offline, map[string][]string{"PL": {"pl"}})},
			want: map[string]string{"PL": DocumentationMissing}, overall: DocumentationMissing, missing: []string{"communications.label_information_online"}},
		{name: "transport packaging without labels", entries: []Entry{classified("transport", nil), languages(&offline, map[string][]string{"PL": {"en"}})},
			want: map[string]string{"PL": NotApplicable}, overall: NotApplicable},
		{name: "transport packaging with a recycled-content label", entries: []Entry{classified("transport", nil),
			comms([]string{"recycled_content_label"}, register.Values{"sold_online": register.BoolValue(false)})},
			want: map[string]string{"PL": InsufficientData}, overall: InsufficientData, missing: []string{"communications.languages_by_market@PL"}},
		{name: "no classification", entries: []Entry{languages(&offline, map[string][]string{"PL": {"pl"}})},
			want: map[string]string{"PL": InsufficientData}, overall: InsufficientData, missing: []string{"packaging-classification"}},
	}
	for _, c := range cases {
		res := outcome(t, "R29", labelledItem(labelDay, c.markets, c.entries...))
		assert.Equal(t, c.overall, res.Outcome, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
		got := map[string]string{}
		for _, m := range res.Markets {
			got[m.Country] = m.Outcome
			assert.NotEqual(t, uuid.Nil, m.Market, c.name)
		}
		assert.Equal(t, c.want, got, c.name)
	}
	res := outcome(t, "R29", labelledItem(labelDay, []Market{}, sales, languages(&offline, nil)))
	assert.Equal(t, InsufficientData, res.Outcome, "a market rule needs markets")
	assert.Equal(t, []string{"markets"}, res.Missing)
}

func TestMisleadingMarks(t *testing.T) {
	checked := comms([]string{"other_mark"}, register.Values{"misleading_marks_checked": register.BoolValue(true)})
	assert.Equal(t, NotYetApplicable, outcome(t, "R30", itemOn(day("2026-08-11"), checked)).Outcome)
	cases := []struct {
		name    string
		entries []Entry
		want    string
		missing []string
	}{
		{name: "checked inventory", entries: []Entry{checked}, want: Pass},
		{name: "no communications", want: DocumentationMissing, missing: []string{"communications"}},
		{name: "no inventory", entries: []Entry{comms(nil, register.Values{"misleading_marks_checked": register.BoolValue(true)})},
			want: DocumentationMissing, missing: []string{"communications.labels"}},
		{name: "not checked", entries: []Entry{materialL}, want: DocumentationMissing, missing: []string{"communications.misleading_marks_checked"}},
		{name: "Art. 12(11)", entries: []Entry{classified("sales", register.Values{"exemptions": register.EnumsValue([]string{"12(11)"})})}, want: NotApplicable},
	}
	for _, c := range cases {
		res := outcome(t, "R30", itemOn(general, c.entries...))
		assert.Equal(t, c.want, res.Outcome, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
	}
}

func lot(made string, labelled bool, lastAvailable string) register.Values {
	v := register.Values{"lot": register.TextValue("LOT-" + made), "made_or_imported_on": register.TextValue(made),
		"harmonised_label": register.BoolValue(labelled)}
	if lastAvailable != "" {
		v["last_made_available_on"] = register.TextValue(lastAvailable)
	}
	return v
}

func TestSellOffWindow(t *testing.T) {
	lots := func(l ...register.Values) Entry {
		return comms([]string{"harmonised_material_label"}, register.Values{"lots": register.ObjectsValue(l)})
	}
	cases := []struct {
		name    string
		on      string
		entries []Entry
		want    string
		reason  string
		missing []string
	}{
		{name: "a labelled lot", on: "2032-01-01", entries: []Entry{sales, lots(lot("2029-01-10", true, ""))}, want: Pass},
		{name: "an old lot inside the window", on: "2031-08-11", entries: []Entry{sales, lots(lot("2028-08-11", false, ""), lot("2028-09-01", true, ""))},
			want: Pass, reason: "rules.sell_off_until"},
		{name: "an old lot on the window's end", on: "2031-08-12", entries: []Entry{sales, lots(lot("2028-08-11", false, ""))},
			want: Fail, reason: "rules.lot_past_sell_off"},
		{name: "an old lot sold out in time", on: "2032-01-01", entries: []Entry{sales, lots(lot("2028-08-11", false, "2031-08-11"))}, want: Pass},
		{name: "an old lot sold out too late", on: "2032-01-01", entries: []Entry{sales, lots(lot("2028-08-11", false, "2031-08-12"))},
			want: Fail, reason: "rules.lot_past_sell_off"},
		{name: "a new lot without the label", on: "2028-08-12", entries: []Entry{sales, lots(lot("2028-08-12", false, ""))},
			want: Fail, reason: "rules.unlabelled_lot_after_start"},
		{name: "no lots", on: "2029-01-01", entries: []Entry{sales, materialL}, want: InsufficientData, missing: []string{"communications.lots"}},
		{name: "no communications", on: "2029-01-01", entries: []Entry{sales}, want: InsufficientData, missing: []string{"communications"}},
		{name: "transport packaging", on: "2029-01-01", entries: []Entry{classified("transport", nil), lots(lot("2028-08-12", false, ""))},
			want: NotApplicable, reason: "rules.transport_packaging"},
	}
	for _, c := range cases {
		res := outcome(t, "R31", labelledItem(day(c.on), nil, c.entries...))
		assert.Equal(t, c.want, res.Outcome, c.name)
		assert.Equal(t, c.reason, res.Reason, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
	}
	res := outcome(t, "R31", labelledItem(day("2029-01-01"), nil, sales, lots(lot("2028-08-11", false, ""))))
	assert.Equal(t, []string{"2031-08-12"}, res.ReasonArgs, "3 years after the label applies")
}

func claims(list ...register.Values) Entry {
	return comms(nil, register.Values{"claims": register.ObjectsValue(list)})
}

func claim(exceeds *bool) register.Values {
	v := register.Values{"text": register.TextValue("50 per cent less plastic than our 2020 jar"), "scope": register.TextValue("unit"),
		"substantiation": register.IDValue(uuid.New())}
	if exceeds != nil {
		v["exceeds_legal_minimum"] = register.BoolValue(*exceeds)
	}
	return v
}

func TestEnvironmentalClaims(t *testing.T) {
	yes, no := true, false
	assert.Equal(t, NotYetApplicable, outcome(t, "R32", itemOn(day("2026-08-11"), claims(claim(&yes)))).Outcome)
	cases := []struct {
		name    string
		entries []Entry
		want    string
		missing []string
	}{
		{name: "a substantiated claim", entries: []Entry{claims(claim(&yes), claim(&yes))}, want: Pass},
		{name: "no claims", entries: []Entry{claims()}, want: NotApplicable},
		{name: "no communications", want: InsufficientData, missing: []string{"communications"}},
		{name: "not said to exceed the minimum", entries: []Entry{claims(claim(&yes), claim(nil), claim(nil))}, want: DocumentationMissing,
			missing: []string{"communications.claims.exceeds_legal_minimum"}},
		{name: "at the minimum", entries: []Entry{claims(claim(&yes), claim(&no))}, want: Fail},
	}
	for _, c := range cases {
		res := outcome(t, "R32", itemOn(general, c.entries...))
		assert.Equal(t, c.want, res.Outcome, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
	}
}

func bottle(capacity string, extra register.Values) Entry {
	v := register.Values{"sup_beverage_bottle": register.BoolValue(true), "predominant_material": register.TextValue("plastic")}
	if capacity != "" {
		v["capacity"] = q(capacity, "l")
	}
	maps.Copy(v, extra)
	return classified("sales", v)
}

func can(material string) Entry {
	return classified("sales", register.Values{"beverage_container": register.BoolValue(true), "predominant_material": register.TextValue(material),
		"capacity": q("0.33", "l")})
}

func TestDepositReturnPerMarket(t *testing.T) {
	on := day("2029-01-01")
	inPL := []DepositScheme{scheme("PL", "2025-10-01", true)}
	cases := []struct {
		name    string
		entries []Entry
		markets []Market
		schemes []DepositScheme
		want    map[string]string
		overall string
		missing []string
	}{
		{name: "a bottle in the Polish scheme", entries: []Entry{bottle("0.5", nil)}, schemes: inPL, want: map[string]string{"PL": Pass}, overall: Pass},
		{name: "3 litres", entries: []Entry{bottle("3", nil)}, schemes: inPL, want: map[string]string{"PL": Pass}, overall: Pass},
		{name: "above 3 litres", entries: []Entry{bottle("3.01", nil)}, want: map[string]string{"PL": NotApplicable}, overall: NotApplicable},
		{name: "no scheme", entries: []Entry{bottle("0.5", nil)}, want: map[string]string{"PL": InsufficientData}, overall: InsufficientData,
			missing: []string{"deposit-schemes@PL"}},
		{name: "a scheme in one market of two", entries: []Entry{bottle("0.5", nil)}, markets: []Market{pl, de}, schemes: inPL,
			want: map[string]string{"PL": Pass, "DE": InsufficientData}, overall: InsufficientData, missing: []string{"deposit-schemes@DE"}},
		{name: "the scheme's label not applied", entries: []Entry{bottle("0.5", nil)}, schemes: []DepositScheme{scheme("PL", "2025-10-01", false)},
			want: map[string]string{"PL": Fail}, overall: Fail},
		{name: "the label in the inventory", entries: []Entry{bottle("0.5", nil), comms([]string{"drs_label"}, nil)},
			schemes: []DepositScheme{scheme("PL", "2025-10-01", false)}, want: map[string]string{"PL": Pass}, overall: Pass},
		{name: "a scheme joined later", entries: []Entry{bottle("0.5", nil)}, schemes: []DepositScheme{scheme("PL", "2029-01-02", true)},
			want: map[string]string{"PL": InsufficientData}, overall: InsufficientData, missing: []string{"deposit-schemes@PL"}},
		{name: "under 0.1 litres without a scheme", entries: []Entry{bottle("0.09", nil)}, want: map[string]string{"PL": NationalChoiceUnknown},
			overall: NationalChoiceUnknown},
		{name: "0.1 litres without a scheme", entries: []Entry{bottle("0.1", nil)}, want: map[string]string{"PL": InsufficientData},
			overall: InsufficientData, missing: []string{"deposit-schemes@PL"}},
		{name: "an aluminium can", entries: []Entry{can("aluminium")}, schemes: inPL, want: map[string]string{"PL": Pass}, overall: Pass},
		{name: "a glass bottle", entries: []Entry{can("glass")}, want: map[string]string{"PL": NotApplicable}, overall: NotApplicable},
		{name: "reusable", entries: []Entry{classification(register.Values{"beverage_container": register.BoolValue(true),
			"predominant_material": register.TextValue("steel"), "reuse_type": register.TextValue("reusable"), "capacity": q("1", "l")})},
			want: map[string]string{"PL": NotApplicable}, overall: NotApplicable},
		{name: "wine or milk (Art. 50(4))", entries: []Entry{bottle("0.75", register.Values{"exemptions": register.EnumsValue([]string{"50(4)"})})},
			want: map[string]string{"PL": NotApplicable}, overall: NotApplicable},
		{name: "no capacity", entries: []Entry{bottle("", nil)}, want: map[string]string{"PL": InsufficientData}, overall: InsufficientData,
			missing: []string{"packaging-classification.capacity"}},
		{name: "no classification", want: map[string]string{"PL": InsufficientData}, overall: InsufficientData, missing: []string{"packaging-classification"}},
		{name: "outside the Union", entries: []Entry{bottle("0.5", nil)}, markets: []Market{{ID: uuid.New(), Country: "NO"}},
			want: map[string]string{"NO": NotApplicable}, overall: NotApplicable},
	}
	for _, c := range cases {
		in := labelledItem(on, c.markets, c.entries...)
		in.DepositSchemes = c.schemes
		res := outcome(t, "R62", in)
		assert.Equal(t, c.overall, res.Outcome, c.name)
		assert.Equal(t, c.missing, res.Missing, c.name)
		got := map[string]string{}
		for _, m := range res.Markets {
			got[m.Country] = m.Outcome
		}
		assert.Equal(t, c.want, got, c.name)
	}
	res := outcome(t, "R62", labelledItem(day("2028-12-31"), nil, bottle("0.5", nil)))
	assert.Equal(t, NotYetApplicable, res.Outcome)
	assert.False(t, res.Pending, "Art. 50 waits for no act")
}

func TestWorstOutcome(t *testing.T) {
	require.Equal(t, Fail, worse(Pass, Fail))
	require.Equal(t, InsufficientData, worse(InsufficientData, NationalChoiceUnknown))
	require.Equal(t, Pass, worse(NotApplicable, Pass))
}
