package rules

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/dictionaries"
	"ppwr/internal/register"
)

// Labelling and marking (Art. 12 and 14) and the deposit-return label
// (Art. 50 with 12(1)).

var (
	// harmonisedLabel is the date of the material label of Art. 12(1),
	// which R29 and R31 follow.
	harmonisedLabel = Start{Fixed: day("2028-08-12"), Act: "harmonised_label_act", OffsetMonths: 24}
)

var labellingRules = []Rule{
	{Code: "R25", Article: "Art. 12(1)", RuleSet: "labelling", Check: PassFail, Start: harmonisedLabel,
		Reads: []string{"packaging-classification", "communications", "compostability", "deposit schemes"}, eval: materialLabel},
	// The SoC marking applies once the Art. 12(7) method act does; its
	// start is UNVERIFIED (ppwr-facts §1.1), so the act stays pending.
	{Code: "R26", Article: "Art. 12(1) 2nd subpara, 12(7)", RuleSet: "labelling", Check: Documentation,
		Start: Start{Fixed: day("2030-01-01"), Act: "soc_digital_marking_method"},
		Reads: []string{"packaging-classification", "chemical-safety", "communications"}, eval: socMarking},
	{Code: "R28", Article: "Art. 12(4)", RuleSet: "labelling", Check: PassFail,
		Start: Start{Fixed: day("2028-08-12"), Act: "content_label_act", OffsetMonths: 24},
		Reads: []string{"packaging-classification", "communications", "RECYCLED_CONTENT_PCT", "biobased"}, eval: contentLabel},
	{Code: "R29", Article: "Art. 12(5)", RuleSet: "labelling", Check: Documentation, Level: MarketLevel, Start: harmonisedLabel,
		Reads: []string{"packaging-classification", "communications", "deposit schemes"}, eval: labelLanguages},
	{Code: "R30", Article: "Art. 12(8)", RuleSet: "labelling", Check: Documentation, Start: generalApplication,
		Reads: []string{"packaging-classification", "communications"}, eval: noMisleadingMarks},
	{Code: "R31", Article: "Art. 12(12)", RuleSet: "labelling", Check: PassFail, Start: harmonisedLabel,
		Reads: []string{"packaging-classification", "communications", "deposit schemes"}, eval: sellOff},
	{Code: "R32", Article: "Art. 14", RuleSet: "labelling", Check: Documentation, Start: generalApplication,
		Reads: []string{"communications"}, eval: environmentalClaims},
	{Code: "R62", Article: "Art. 50(1)-(2), 12(1) 4th subpara", RuleSet: "deposit_return", Check: Classification, Level: MarketLevel,
		Start: Start{Fixed: day("2029-01-01")},
		Reads: []string{"packaging-classification", "deposit schemes", "communications"}, eval: depositReturn},
}

// DepositScheme is an accepted deposit-scheme record naming the item: the
// item takes part in the deposit-return system of a Member State from a
// date.
type DepositScheme struct {
	ID           uuid.UUID
	Country      string
	LabelApplied bool
	From         time.Time
}

// depositScheme is the scheme the item takes part in in a country on the
// input's date.
func (in *Input) depositScheme(country string) (DepositScheme, bool) {
	i := slices.IndexFunc(in.DepositSchemes, func(s DepositScheme) bool { return s.Country == country && !in.On.Before(s.From) })
	if i < 0 {
		return DepositScheme{}, false
	}
	return in.DepositSchemes[i], true
}

// inDepositReturnEverywhere reports whether the item takes part in a
// deposit-return system in each of its markets (in one, at least): only
// then is it "packaging subject to a deposit and return system" that the
// material label of Art. 12(1) leaves out; elsewhere it needs the label.
func (in *Input) inDepositReturnEverywhere() bool {
	if !slices.ContainsFunc(in.DepositSchemes, func(s DepositScheme) bool { return !in.On.Before(s.From) }) {
		return false
	}
	for _, m := range in.Markets {
		if _, ok := in.depositScheme(m.Country); !ok {
			return false
		}
	}
	return true
}

// labelled reports whether the communications entry lists a label of the
// type with its artwork.
func labelled(e Entry, kind string) bool {
	return slices.ContainsFunc(e.Values.List("labels"), func(l register.Values) bool { return l.String("type") == kind && l.Has("artwork") })
}

// article12Exempt is the classification when it claims Art. 12(11):
// medicinal and medical-device packaging without room for the labels is
// outside the whole of Art. 12.
func article12Exempt(in *Input) (Entry, bool) {
	c, ok := in.classified()
	return c, ok && exempt(c, "12(11)")
}

// materialLabelScope is the classification when the material label of
// Art. 12(1) binds the item, or else the result saying why it does not
// (or that the classification is missing).
func materialLabelScope(in *Input) (Entry, *Result) {
	c, ok := in.classified()
	var out Result
	switch {
	case !ok:
		out = Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	case exempt(c, "12(11)"):
		out = notApplicable("rules.exempt_12_11", c)
	case c.Values.String("packaging_function") == "transport":
		out = notApplicable("rules.transport_packaging", c)
	case in.inDepositReturnEverywhere():
		out = notApplicable("rules.deposit_return_packaging", c)
	default:
		return c, nil
	}
	return c, &out
}

// materialLabelled starts a rule of the material label: the classification
// and communications entry it reads, cited by its verdict, or the result
// when the label does not bind the item or an entry is missing.
func materialLabelled(in *Input) (c, e Entry, v *verdict, out *Result) {
	c, out = materialLabelScope(in)
	if out != nil {
		return c, e, nil, out
	}
	e, ok := in.latest("communications")
	if !ok {
		return c, e, nil, &Result{Outcome: InsufficientData, Missing: []string{"communications"}, Entries: []uuid.UUID{c.ID}}
	}
	v = &verdict{}
	v.uses(c)
	v.uses(e)
	return c, e, v, nil
}

func materialLabel(in *Input) Result {
	c, e, v, out := materialLabelled(in)
	if out != nil {
		return *out
	}
	if !labelled(e, "harmonised_material_label") {
		v.fail("rules.no_harmonised_label")
	}
	// Art. 9(1) packaging also says it is compostable, not for home
	// composting and not to be discarded in nature: a compostable label,
	// or the label text of its compostability entry.
	if format := c.Values.String("art_9_format"); format != "" && !labelled(e, "compostable_label") {
		i := slices.IndexFunc(in.usable("compostability"), func(k Entry) bool {
			return k.Values.String("format") == format && k.Values.Has("label_text")
		})
		if i < 0 {
			v.fail("rules.no_compostable_label")
		} else {
			v.uses(in.usable("compostability")[i])
		}
	}
	return v.result()
}

func socMarking(in *Input) Result {
	if c, ok := article12Exempt(in); ok {
		return notApplicable("rules.exempt_12_11", c)
	}
	v := &verdict{}
	var read []Entry
	withSoC := false
	if len(in.Item.Components) == 0 {
		v.missing("components")
	}
	for _, part := range in.Item.Components {
		e, ok := in.forComponent("chemical-safety", part.ID)
		if !ok {
			v.missing("chemical-safety@" + part.ID.String())
			continue
		}
		read = append(read, e)
		if len(e.Values.List("substances_of_concern")) > 0 {
			withSoC = true
			v.uses(e)
		}
	}
	if !withSoC {
		if len(v.Missing) > 0 {
			return v.result()
		}
		return notApplicable("rules.no_substances_of_concern", read...)
	}
	var undocumented []string
	e, ok := in.latest("communications")
	if !ok {
		undocumented = append(undocumented, "communications")
	} else {
		v.uses(e)
		if !e.Values.Has("data_carrier_url") {
			undocumented = append(undocumented, "communications.data_carrier_url")
		}
		if !e.Values.Bool("soc_digital_marking") {
			undocumented = append(undocumented, "communications.soc_digital_marking")
		}
	}
	if len(undocumented) > 0 {
		v.Outcome, v.Missing = DocumentationMissing, append(v.Missing, undocumented...)
	}
	return v.result()
}

func contentLabel(in *Input) Result {
	if c, ok := article12Exempt(in); ok {
		return notApplicable("rules.exempt_12_11", c)
	}
	e, ok := in.latest("communications")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"communications"}}
	}
	recycled, biobased := labelled(e, "recycled_content_label"), labelled(e, "biobased_content_label")
	if !recycled && !biobased {
		return notApplicable("rules.no_content_label", e)
	}
	v := &verdict{}
	v.uses(e)
	if recycled {
		// The recycled content a label states is the accepted evidence
		// of Art. 7(8)'s method, per part.
		some := false
		for _, f := range in.Facts {
			if f.Code == "RECYCLED_CONTENT_PCT" {
				v.Evidence = append(v.Evidence, f.Proposal)
				some = some || f.Value.IsPositive()
			}
		}
		switch {
		case len(v.Evidence) == 0:
			v.missing("RECYCLED_CONTENT_PCT")
		case !some:
			v.fail("rules.recycled_content_label_unsubstantiated")
		}
	}
	if biobased {
		b, ok := in.latest("biobased")
		content, measured := b.Values.Quantity("biobased_content")
		switch {
		case !ok:
			v.missing("biobased")
		case !measured:
			v.uses(b)
			v.missing("biobased.biobased_content")
		case !content.IsPositive():
			v.uses(b)
			v.fail("rules.biobased_content_label_unsubstantiated")
		default:
			v.uses(b)
		}
	}
	return v.result()
}

// article12Labels are the labels of Art. 12(2) and 12(4), which Art.
// 12(5) governs as it does the material label.
var article12Labels = []string{"reusable_label", "recycled_content_label", "biobased_content_label"}

func labelLanguages(in *Input) Result {
	c, out := materialLabelScope(in)
	e, ok := in.latest("communications")
	// Transport and deposit-return packaging bear no material label, but
	// may bear another label of Art. 12 whose languages count.
	otherLabel := ok && slices.ContainsFunc(article12Labels, func(l string) bool { return labelled(e, l) })
	if out != nil && (out.Outcome != NotApplicable || exempt(c, "12(11)") || !otherLabel) {
		return everyMarket(in, *out)
	}
	if !ok {
		return everyMarket(in, Result{Outcome: InsufficientData, Missing: []string{"communications"}, Entries: []uuid.UUID{c.ID}})
	}
	online := onlineInformation(c, e)
	byCountry := map[string][]string{}
	for _, m := range e.Values.List("languages_by_market") {
		byCountry[m.String("country")] = m.Strings("label_languages")
	}
	return byMarket(in, func(m Market) MarketResult {
		res := MarketResult{Entries: []uuid.UUID{e.ID}}
		official, known := register.OfficialLanguages[m.Country]
		given, recorded := byCountry[m.Country]
		switch {
		case !dictionaries.Default().IsMemberState(m.Country):
			return MarketResult{Outcome: NotApplicable, Reason: "rules.not_member_state"}
		case !known:
			res.Outcome, res.Reason = InsufficientData, "rules.official_languages_unknown"
		case !recorded:
			res.Outcome, res.Missing = InsufficientData, []string{"communications.languages_by_market@" + m.Country}
		default:
			covered := 0
			for _, l := range official {
				if slices.Contains(given, l) {
					covered++
				}
			}
			switch covered {
			case len(official):
				res.Outcome = Pass
			case 0:
				res.Outcome, res.Reason = DocumentationMissing, "rules.label_language_missing"
			default:
				// A Member State of several official languages may accept
				// some of them; which, no verified source says.
				res.Outcome, res.Reason = NationalChoiceUnknown, "rules.label_languages_partial"
			}
		}
		if worse(online.Outcome, res.Outcome) != res.Outcome {
			res.Outcome, res.Reason = online.Outcome, online.Reason
		}
		res.Missing = append(res.Missing, online.Missing...)
		return res
	})
}

// onlineInformation checks that the labels' information is available
// before purchase when the product is sold online (Art. 12(5)); e-commerce
// packaging is sold online by definition.
func onlineInformation(c, e Entry) Result {
	online, known := e.Values.Bool("sold_online"), e.Values.Has("sold_online")
	if c.Values.String("packaging_function") == "ecommerce" {
		online, known = true, true
	}
	switch {
	case !known:
		return Result{Outcome: InsufficientData, Missing: []string{"communications.sold_online"}}
	case online && !e.Values.Bool("label_information_online"):
		return Result{Outcome: DocumentationMissing, Reason: "rules.label_information_not_online", Missing: []string{"communications.label_information_online"}}
	}
	return Result{Outcome: Pass}
}

func noMisleadingMarks(in *Input) Result {
	if c, ok := article12Exempt(in); ok {
		return notApplicable("rules.exempt_12_11", c)
	}
	return documented(in, "communications", func(e Entry) []string {
		var out []string
		if len(e.Values.List("labels")) == 0 {
			out = append(out, "communications.labels")
		}
		if !e.Values.Bool("misleading_marks_checked") {
			out = append(out, "communications.misleading_marks_checked")
		}
		return out
	})
}

// sellOffYears is how long packaging made or imported before a labelling
// requirement applies may still be made available (Art. 12(12)).
const sellOffYears = 3

// sellOff checks the lots still made available against the window of Art.
// 12(12) after the material label applies: a lot without the label must
// have been made or imported before that date, and is made available no
// later than 3 years after it.
func sellOff(in *Input) Result {
	_, e, v, out := materialLabelled(in)
	if out != nil {
		return *out
	}
	lots := e.Values.List("lots")
	if len(lots) == 0 {
		v.missing("communications.lots")
		return v.result()
	}
	from, _ := harmonisedLabel.From(in.Acts)
	end := from.AddDate(sellOffYears, 0, 0)
	inWindow := false
	for _, lot := range lots {
		made, _ := lot.Date("made_or_imported_on")
		last, sold := lot.Date("last_made_available_on")
		switch {
		case lot.Bool("harmonised_label"):
		case !made.Before(from):
			v.fail("rules.unlabelled_lot_after_start")
		case in.On.Before(end):
			inWindow = true
		case !sold || !last.Before(end):
			v.fail("rules.lot_past_sell_off")
		}
	}
	res := v.result()
	if res.Outcome == Pass && inWindow {
		res.Reason, res.ReasonArgs = "rules.sell_off_until", []string{end.Format(time.DateOnly)}
	}
	return res
}

func environmentalClaims(in *Input) Result {
	e, ok := in.latest("communications")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"communications"}}
	}
	claims := e.Values.List("claims")
	if len(claims) == 0 {
		return notApplicable("rules.no_environmental_claims", e)
	}
	v := &verdict{}
	v.uses(e)
	for _, claim := range claims {
		for _, field := range []string{"scope", "substantiation", "exceeds_legal_minimum"} {
			if !claim.Has(field) && !slices.Contains(v.Missing, "communications.claims."+field) {
				v.missing("communications.claims." + field)
			}
		}
		if claim.Has("exceeds_legal_minimum") && !claim.Bool("exceeds_legal_minimum") {
			v.fail("rules.claim_not_beyond_minimum")
		}
	}
	if len(v.Missing) > 0 {
		v.Outcome = DocumentationMissing
	}
	return v.result()
}

// Capacities of Art. 50: the deposit-return formats hold up to 3 litres,
// and a Member State may leave out those under 0.1 litres (50(4) 2nd
// subpara).
var (
	depositReturnCapacity = decimal.NewFromInt(3)
	smallContainer        = decimal.RequireFromString("0.1")
)

// depositReturnFormat is the capacity of a format of Art. 50(1), or the
// result saying why the item is none.
func depositReturnFormat(c Entry) (decimal.Decimal, *Result) {
	metal := slices.Contains([]string{"steel", "aluminium"}, c.Values.String("predominant_material"))
	capacity, ok := c.Values.Quantity("capacity")
	var out Result
	switch {
	case c.Values.String("reuse_type") == "reusable":
		out = notApplicable("rules.not_single_use", c)
	case !c.Values.Bool("sup_beverage_bottle") && !(c.Values.Bool("beverage_container") && metal):
		out = notApplicable("rules.not_deposit_return_format", c)
	case exempt(c, "50(4)"):
		out = notApplicable("rules.exempt_50_4", c)
	case !ok:
		out = Result{Outcome: InsufficientData, Missing: []string{"packaging-classification.capacity"}, Entries: []uuid.UUID{c.ID}}
	case capacity.GreaterThan(depositReturnCapacity):
		out = notApplicable("rules.above_3_litres", c)
	default:
		return capacity, nil
	}
	return capacity, &out
}

// depositReturn classifies the item per market: a format of Art. 50(1)
// that takes part in the market's deposit-return system and bears its
// label. Art. 50 binds the Member States, which must have such systems
// from 2029 unless the Commission exempts them (50(5)); without a recorded
// scheme the item's participation is unknown, and recording the scheme
// closes it.
func depositReturn(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return everyMarket(in, Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}})
	}
	capacity, out := depositReturnFormat(c)
	if out != nil {
		return everyMarket(in, *out)
	}
	e, ok := in.latest("communications")
	drsLabel := ok && labelled(e, "drs_label")
	return byMarket(in, func(m Market) MarketResult {
		res := MarketResult{Entries: []uuid.UUID{c.ID}}
		s, ok := in.depositScheme(m.Country)
		switch {
		case !dictionaries.Default().IsMemberState(m.Country):
			return MarketResult{Outcome: NotApplicable, Reason: "rules.not_member_state"}
		case !ok && capacity.LessThan(smallContainer):
			res.Outcome, res.Reason = NationalChoiceUnknown, "rules.small_container_option"
		case !ok:
			res.Outcome, res.Reason, res.Missing = InsufficientData, "rules.no_deposit_scheme", []string{"deposit-schemes@" + m.Country}
		case s.LabelApplied || drsLabel:
			res.Outcome = Pass
		default:
			res.Outcome, res.Reason = Fail, "rules.no_drs_label"
		}
		if drsLabel {
			res.Entries = append(res.Entries, e.ID)
		}
		return res
	})
}
