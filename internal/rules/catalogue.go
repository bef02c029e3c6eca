package rules

import (
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/register"
)

// Dates of application (ppwr-facts §6.2).
var (
	generalApplication = Start{Fixed: day("2026-08-12")}
	from2030           = Start{Fixed: day("2030-01-01")}
)

// Limits of Art. 5(4) and 5(5), Annex II Table 3 and Art. 24(1).
var (
	heavyMetalsLimit    = decimal.NewFromInt(100) // mg/kg, sum of Pb, Cd, Hg, Cr(VI)
	pfasIndividualLimit = decimal.NewFromInt(25)  // ppb, fail at or above
	pfasSumLimit        = decimal.NewFromInt(250) // ppb, fail at or above
	pfasTotalLimit      = decimal.NewFromInt(50)  // ppm, fail at or above
	fluorineProofAbove  = decimal.NewFromInt(50)  // mg/kg total fluorine
	esrLimit            = decimal.NewFromInt(50)  // %
)

// All are the 62 rules of the master table (ppwr-facts §1.1), in its
// order.
var All = catalogue(registerRules, aggregateRules, designRules, labellingRules, reuseRules, targetRules, supplyRules)

// catalogue joins the chapters in the master table's order; a rule whose
// level is not given is the item's.
func catalogue(chapters ...[]Rule) []Rule {
	var all []Rule
	for _, c := range chapters {
		for _, r := range c {
			if r.Level == "" {
				r.Level = ItemLevel
			}
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b Rule) int { return strings.Compare(a.Code, b.Code) })
	return all
}

// registerRules are the rules read from the item's registers and
// evidence alone.
var registerRules = []Rule{
	{Code: "R03", Article: "Art. 5(4)", RuleSet: "substances_heavy_metals", Check: PassFail, Start: generalApplication,
		Reads: []string{"chemical-safety"}, eval: heavyMetals},
	{Code: "R04", Article: "Art. 5(5)(a)", RuleSet: "substances_food_contact_pfas", Check: PassFail, Start: generalApplication,
		Reads: []string{"packaging-classification", "chemical-safety"}, eval: pfas("pfas_max_individual", pfasIndividualLimit)},
	{Code: "R05", Article: "Art. 5(5)(b)", RuleSet: "substances_food_contact_pfas", Check: PassFail, Start: generalApplication,
		Reads: []string{"packaging-classification", "chemical-safety"}, eval: pfas("pfas_sum_targeted", pfasSumLimit)},
	{Code: "R06", Article: "Art. 5(5)(c)", RuleSet: "substances_food_contact_pfas", Check: PassFail, Start: generalApplication,
		Reads: []string{"packaging-classification", "chemical-safety"}, eval: pfasTotal},
	{Code: "R08", Article: "Art. 6(1), 6(2)(a), 6(3)", RuleSet: "recyclability_grades", Check: GradedCheck,
		Start: Start{Fixed: day("2030-01-01"), Act: "dfr_delegated_acts", OffsetMonths: 24},
		Reads: []string{"packaging-classification", "recyclability"}, eval: recyclabilityGrade(false)},
	{Code: "R09", Article: "Art. 6(3)", RuleSet: "recyclability_grades_2038", Check: GradedCheck, Start: Start{Fixed: day("2038-01-01")},
		Reads: []string{"packaging-classification", "recyclability"}, eval: recyclabilityGrade(true)},
	{Code: "R14", Article: "Art. 7(1), 7(4)-(5)", RuleSet: "recycled_content_plastic", Check: PassFail,
		Start: Start{Fixed: day("2030-01-01"), Act: "recycled_content_method", OffsetMonths: 36},
		Reads: []string{"packaging-classification", "RECYCLED_CONTENT_PCT"}, eval: recycledContent(pcr2030)},
	{Code: "R19", Article: "Art. 9(1)", RuleSet: "compostability", Check: PassFail, Start: Start{Fixed: day("2028-02-12")},
		Reads: []string{"packaging-classification", "compostability"}, eval: compostable},
	{Code: "R33", Article: "Art. 15(2), 38, Annex VII", RuleSet: "conformity_documentation", Check: Documentation, Start: generalApplication,
		Reads: []string{"conformity-dossiers"}, eval: dossier},
	{Code: "R34", Article: "Art. 15(2), 39, Annex VIII", RuleSet: "conformity_documentation", Check: Documentation, Start: generalApplication,
		Reads: []string{"eu-declarations"}, eval: declaration},
	{Code: "R35", Article: "Art. 15(3), Annex VII pt 4", RuleSet: "conformity_documentation", Check: PassFail, Start: generalApplication,
		Reads: []string{"conformity-dossiers", "eu-declarations"}, eval: retention},
	{Code: "R36", Article: "Art. 15(5)", RuleSet: "marking", Check: PassFail, Start: generalApplication,
		Reads: []string{"communications"}, eval: identifierMarked},
	{Code: "R37", Article: "Art. 15(6), 18(3)", RuleSet: "marking", Check: PassFail, Start: generalApplication,
		Reads: []string{"communications", "role-duties"}, eval: contactMarked},
	{Code: "R41", Article: "Art. 24(1), 24(3)", RuleSet: "minimisation_empty_space", Check: PassFail,
		Start: Start{Fixed: day("2030-01-01"), Act: "esr_method", OffsetMonths: 36},
		Reads: []string{"packaging-classification", "empty-space"}, eval: emptySpaceRatio},
	{Code: "R44", Article: "Art. 25, Annex V", RuleSet: "restricted_formats", Check: PassFail, Start: from2030,
		Reads: []string{"restricted-formats"}, eval: restrictedFormat},
	{Code: "R58", Article: "Art. 44(2), 44(4)", RuleSet: "economic_operators", Check: PassFail, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"role-duties"}, eval: eprRegistration},
	// A Commission proposal (COM(2025) 982) would suspend Art. 45(3); its
	// adoption is unverified, so the rule applies from the general date.
	{Code: "R60", Article: "Art. 45(3)", RuleSet: "economic_operators", Check: PassFail, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"role-duties"}, eval: eprRepresentative},
}

// classified is the item's accepted classification, which decides which
// rules are in scope.
func (in *Input) classified() (Entry, bool) { return in.latest("packaging-classification") }

// exempt reports whether the classification claims an exemption.
func exempt(c Entry, article string) bool {
	return slices.Contains(c.Values.Strings("exemptions"), article)
}

// perComponent runs check on the newest usable entry of reg for every
// component of the item; a component without one is missing data.
func perComponent(in *Input, reg string, check func(v *verdict, e Entry)) Result {
	v := &verdict{}
	v.eachComponent(in, reg, check)
	return v.result()
}

func (v *verdict) eachComponent(in *Input, reg string, check func(v *verdict, e Entry)) {
	if len(in.Item.Components) == 0 {
		v.missing("components")
	}
	for _, c := range in.Item.Components {
		e, ok := in.forComponent(reg, c.ID)
		if !ok {
			v.missing(reg + "@" + c.ID.String())
			continue
		}
		v.uses(e)
		check(v, e)
	}
}

func heavyMetals(in *Input) Result {
	return perComponent(in, "chemical-safety", func(v *verdict, e Entry) {
		sum, ok := e.Values.Quantity("heavy_metals_sum")
		switch {
		case !ok:
			v.missing("chemical-safety.heavy_metals_sum")
		case sum.GreaterThan(heavyMetalsLimit) && e.Values.Has("derogation"):
			// Art. 70(3) keeps the derogations of Decisions 2001/171/EC and
			// 2009/292/EC until they are repealed.
			v.Reason = "rules.derogation"
		case sum.GreaterThan(heavyMetalsLimit):
			v.fail("rules.heavy_metals_above_limit")
		}
	})
}

// foodContact says whether the PFAS limits apply: the accepted
// classification decides; without one, the catalogue item's status.
func foodContact(in *Input) (bool, []Entry) {
	if c, ok := in.classified(); ok {
		return c.Values.Bool("food_contact"), []Entry{c}
	}
	return in.Item.FoodContact, nil
}

func pfas(field string, limit decimal.Decimal) func(in *Input) Result {
	return func(in *Input) Result {
		if fc, used := foodContact(in); !fc {
			return notApplicable("rules.not_food_contact", used...)
		}
		return perComponent(in, "chemical-safety", func(v *verdict, e Entry) {
			value, ok := e.Values.Quantity(field)
			switch {
			case !ok:
				v.missing("chemical-safety." + field)
			case value.GreaterThanOrEqual(limit):
				v.fail("rules.pfas_at_or_above_limit")
			}
		})
	}
}

func pfasTotal(in *Input) Result {
	res := pfas("pfas_total", pfasTotalLimit)(in)
	if res.Outcome != Pass {
		return res
	}
	for _, c := range in.Item.Components {
		e, _ := in.forComponent("chemical-safety", c.ID)
		if f, ok := e.Values.Quantity("total_fluorine"); ok && f.GreaterThan(fluorineProofAbove) && !e.Values.Has("fluorine_proof") {
			res.Outcome = DocumentationMissing
			res.Missing = append(res.Missing, "chemical-safety.fluorine_proof@"+c.ID.String())
		}
	}
	return res
}

func recyclabilityGrade(onlyAB bool) func(in *Input) Result {
	return func(in *Input) Result {
		if c, ok := in.classified(); ok && exempt(c, "6(11)") {
			return notApplicable("rules.exempt_6_11", c)
		}
		e, ok := in.latest("recyclability")
		if !ok {
			return Result{Outcome: InsufficientData, Missing: []string{"recyclability"}}
		}
		if e.Values.Has("exemption") {
			return notApplicable("rules.exempt_6_11", e)
		}
		grade := e.Values.String("grade")
		res := Result{Outcome: Graded, Grade: grade, Entries: []uuid.UUID{e.ID}}
		switch {
		case grade == "":
			res.Outcome, res.Missing = InsufficientData, []string{"recyclability.dfr_score"}
		case grade == "non_recyclable":
			res.Outcome, res.Reason = Fail, "rules.not_recyclable"
		case onlyAB && grade == "C":
			res.Outcome, res.Reason = Fail, "rules.grade_c_from_2038"
		}
		return res
	}
}

// documented passes when an accepted, current entry of reg exists and
// lists nothing missing.
func documented(in *Input, reg string, missing func(Entry) []string) Result {
	e, ok := in.latest(reg)
	if !ok {
		return Result{Outcome: DocumentationMissing, Missing: []string{reg}}
	}
	res := Result{Outcome: Pass, Entries: []uuid.UUID{e.ID}}
	if m := missing(e); len(m) > 0 {
		res.Outcome, res.Missing = DocumentationMissing, m
	}
	return res
}

func dossier(in *Input) Result {
	return documented(in, "conformity-dossiers", func(e Entry) []string {
		var out []string
		for _, m := range e.Values.Strings("missing_elements") {
			out = append(out, "conformity-dossiers."+m)
		}
		return out
	})
}

func declaration(in *Input) Result {
	return documented(in, "eu-declarations", func(Entry) []string { return nil })
}

func identifierMarked(in *Input) Result {
	e, ok := in.latest("communications")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"communications"}}
	}
	if !e.Values.Has("identifier") {
		return Result{Outcome: Fail, Reason: "rules.no_identifier", Entries: []uuid.UUID{e.ID}}
	}
	return Result{Outcome: Pass, Entries: []uuid.UUID{e.ID}}
}

func contactMarked(in *Input) Result {
	e, ok := in.latest("communications")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"communications"}}
	}
	v := &verdict{}
	v.uses(e)
	if !e.Values.Bool("manufacturer_contact_marked") {
		v.fail("rules.no_manufacturer_contact")
	}
	for _, duty := range in.usable("role-duties") {
		if slices.Contains(duty.Values.Strings("economic_roles"), "importer") {
			v.uses(duty)
			if !e.Values.Bool("importer_contact_marked") {
				v.fail("rules.no_importer_contact")
			}
		}
	}
	return v.result()
}

func emptySpaceRatio(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	if !slices.Contains([]string{"grouped", "transport", "ecommerce"}, c.Values.String("packaging_function")) {
		return notApplicable("rules.not_grouped_transport_ecommerce", c)
	}
	if exempt(c, "24(5)") {
		return notApplicable("rules.exempt_24_5", c)
	}
	e, ok := in.latest("empty-space")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"empty-space"}}
	}
	if e.Values.Has("exemption") {
		return notApplicable("rules.exempt_24_5", c, e)
	}
	ratio, ok := e.Values.Quantity("empty_space_ratio")
	res := Result{Outcome: Pass, Entries: []uuid.UUID{c.ID, e.ID}}
	switch {
	case !ok:
		res.Outcome, res.Missing = InsufficientData, []string{"empty-space.empty_space_ratio"}
	case ratio.GreaterThan(esrLimit):
		res.Outcome, res.Reason = Fail, "rules.esr_above_limit"
	}
	return res
}

// restrictedUses are the Annex V uses of single-use plastic packaging.
var restrictedUses = []string{"point_of_sale_grouping", "fresh_fruit_vegetables", "horeca_on_premises", "horeca_portion_packs"}

// freshProduceLimit: Annex V point 2 covers pre-packed quantities below
// 1.5 kg.
var freshProduceLimit = decimal.NewFromInt(1500)

func restrictedFormat(in *Input) Result {
	e, ok := in.latest("restricted-formats")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"restricted-formats"}}
	}
	used := []uuid.UUID{e.ID}
	if e.Values.Bool("exemption_claimed") {
		return Result{Outcome: NotApplicable, Reason: "rules.annex_v_exemption", Entries: used}
	}
	use := e.Values.String("use_context")
	restricted := false
	switch {
	case use == "accommodation":
		restricted = e.Values.Bool("single_use")
	case use == "very_lightweight_carrier_bag":
		restricted = true
	case slices.Contains(restrictedUses, use):
		restricted = e.Values.Bool("plastic") && e.Values.Bool("single_use")
		if mass, ok := e.Values.Quantity("pre_packed_mass"); use == "fresh_fruit_vegetables" && ok && !mass.LessThan(freshProduceLimit) {
			restricted = false
		}
	}
	if restricted {
		return Result{Outcome: Fail, Reason: "rules.annex_v_format", Entries: used}
	}
	return Result{Outcome: Pass, Entries: used}
}

func eprRegistration(in *Input) Result {
	return perMarket(in, "rules.not_epr_producer",
		func(v register.Values) bool { return v.Bool("epr_producer") },
		func(v register.Values) bool { return v.Has("epr_registration_number") }, "rules.epr_not_registered")
}

func eprRepresentative(in *Input) Result {
	return perMarket(in, "rules.no_direct_sales_abroad",
		func(v register.Values) bool { return v.Bool("direct_sales_from_other_member_state") },
		func(v register.Values) bool { return v.Has("epr_authorised_representative") }, "rules.no_epr_representative")
}

// perMarket checks the newest role-duties entry of each market: where
// applies holds, met must hold too; where it holds in no market, the rule
// does not apply.
func perMarket(in *Input, notApplicableReason string, applies, met func(register.Values) bool, failReason string) Result {
	duties := in.usable("role-duties")
	if len(duties) == 0 {
		return Result{Outcome: InsufficientData, Missing: []string{"role-duties"}}
	}
	v := &verdict{}
	inScope := false
	seen := map[uuid.UUID]bool{}
	for _, d := range duties {
		market, _ := d.Values.ID("scenario")
		if seen[market] {
			continue // an older entry of the same market
		}
		seen[market] = true
		v.uses(d)
		if applies(d.Values) {
			inScope = true
			if !met(d.Values) {
				v.fail(failReason)
			}
		}
	}
	if !inScope {
		return notApplicable(notApplicableReason, duties...)
	}
	return v.result()
}

// pcrMinimums are the minimum post-consumer recycled contents of plastic
// parts by category (ppwr-facts §1.2), in per cent.
type pcrMinimums struct {
	contactSensitivePET   decimal.Decimal // RC_A
	contactSensitiveOther decimal.Decimal // RC_B
	beverageBottle        decimal.Decimal // RC_C
	other                 decimal.Decimal // RC_D
}

var (
	pcr2030 = pcrMinimums{decimal.NewFromInt(30), decimal.NewFromInt(10), decimal.NewFromInt(30), decimal.NewFromInt(35)} // Art. 7(1)
	pcr2040 = pcrMinimums{decimal.NewFromInt(50), decimal.NewFromInt(25), decimal.NewFromInt(65), decimal.NewFromInt(65)} // Art. 7(2)
	// minorPartShare: a plastic part under 5 % of the unit's mass has no
	// minimum (Art. 7(5)).
	minorPartShare = decimal.NewFromInt(5)
)

// of is the minimum of a plastic part, by the category the
// classification gives the packaging and the part's polymer.
func (m pcrMinimums) of(c Entry, material string) decimal.Decimal {
	switch {
	case c.Values.Bool("sup_beverage_bottle"):
		return m.beverageBottle
	case c.Values.Bool("contact_sensitive") && material == "PLASTIC_PET":
		return m.contactSensitivePET
	case c.Values.Bool("contact_sensitive"):
		return m.contactSensitiveOther
	}
	return m.other
}

// pcrParts are the classification and the plastic parts a minimum
// recycled content applies to, those of at least 5 % of the unit's mass;
// without such parts to read, the result says why.
func pcrParts(in *Input) (Entry, []Component, *Result) {
	c, ok := in.classified()
	if !ok {
		return c, nil, &Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	if exempt(c, "7(4)") || exempt(c, "7(5)") {
		res := notApplicable("rules.exempt_7_4", c)
		return c, nil, &res
	}
	parts, plastic := plasticParts(in)
	if !plastic {
		res := notApplicable("rules.no_plastic_part", c)
		return c, nil, &res
	}
	return c, parts, nil
}

// plasticParts are the item's plastic parts of at least 5 % of the
// unit's mass (Art. 7(5)), and whether it has any plastic part.
func plasticParts(in *Input) (parts []Component, plastic bool) {
	for _, part := range in.Item.Components {
		if !strings.HasPrefix(part.Material, "PLASTIC") {
			continue
		}
		plastic = true
		if !in.Item.MassG.IsPositive() || !part.MassG.Mul(hundred).Div(in.Item.MassG).LessThan(minorPartShare) {
			parts = append(parts, part)
		}
	}
	return parts, plastic
}

func recycledContent(minimum pcrMinimums) func(in *Input) Result {
	return func(in *Input) Result {
		c, parts, res := pcrParts(in)
		if res != nil {
			return *res
		}
		v := &verdict{}
		v.uses(c)
		v.recycledContent(in, parts, func(part Component, pct decimal.Decimal) {
			if pct.LessThan(minimum.of(c, part.Material)) {
				v.fail("rules.recycled_content_below_minimum")
			}
		})
		return v.result()
	}
}

// recycledContent cites each part's accepted recycled content and checks
// it; a part without one is missing data.
func (v *verdict) recycledContent(in *Input, parts []Component, check func(part Component, pct decimal.Decimal)) {
	for _, part := range parts {
		fact, ok := in.fact("RECYCLED_CONTENT_PCT", part.ID)
		if !ok {
			v.missing("RECYCLED_CONTENT_PCT@" + part.ID.String())
			continue
		}
		v.Evidence = append(v.Evidence, fact.Proposal)
		check(part, fact.Value)
	}
}

var hundred = decimal.NewFromInt(100)

func compostable(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	format := c.Values.String("art_9_format")
	if format == "" {
		return notApplicable("rules.not_art_9_format", c)
	}
	for _, e := range in.usable("compostability") {
		if e.Values.String("format") == format {
			return Result{Outcome: Pass, Entries: []uuid.UUID{c.ID, e.ID}}
		}
	}
	return Result{Outcome: DocumentationMissing, Missing: []string{"compostability"}, Entries: []uuid.UUID{c.ID}}
}

// retention says until when the technical documentation and the EU
// declaration must be kept: the later retention end of the two.
func retention(in *Input) Result {
	v := &verdict{}
	until := ""
	for _, reg := range []string{"conformity-dossiers", "eu-declarations"} {
		e, ok := in.latest(reg)
		if !ok {
			v.missing(reg)
			continue
		}
		v.uses(e)
		until = max(until, e.Values.String("retention_until"))
	}
	if len(v.Missing) > 0 {
		v.Outcome = DocumentationMissing
		return v.result()
	}
	res := v.result()
	res.Reason, res.ReasonArgs = "rules.retain_until", []string{until}
	return res
}
