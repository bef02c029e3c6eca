package rules

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/register"
)

// Design rules beyond those read from one register: substances of
// concern, the recyclability details of Art. 6, recycled content from
// 2040 and its documentation, biobased plastic, the national options and
// designs of Art. 9, and minimisation (Arts 10 and 24(4)-(5)).

var (
	from2028Feb = Start{Fixed: day("2028-02-12")}
	// withR08 and withR14 are the dates of the rules whose exemptions
	// and details R11-R13 and R16 decide.
	withR08 = Start{Fixed: day("2030-01-01"), Act: "dfr_delegated_acts", OffsetMonths: 24}
	withR14 = Start{Fixed: day("2030-01-01"), Act: "recycled_content_method", OffsetMonths: 36}
)

var designRules = []Rule{
	{Code: "R02", Article: "Art. 5(1), 5(2)", RuleSet: "substances_of_concern", Check: Documentation, Start: generalApplication,
		Reads: []string{"chemical-safety"}, eval: substancesListed},
	{Code: "R07", Article: "Art. 5(6)", RuleSet: "conformity_documentation", Check: Documentation, Start: generalApplication,
		Reads: []string{"conformity-dossiers", "chemical-safety"}, eval: substancesInDossier},
	{Code: "R10", Article: "Art. 6(2)(b), Annex II Table 3", RuleSet: "recyclability_at_scale", Check: GradedCheck,
		Start: Start{Fixed: day("2035-01-01"), Act: "recycled_at_scale_method", OffsetMonths: 60},
		Reads: []string{"packaging-classification", "recyclability"}, eval: recycledAtScale},
	{Code: "R11", Article: "Art. 6(9)", RuleSet: "recyclability_grades", Check: Documentation, Start: withR08,
		Reads: []string{"packaging-classification", "recyclability"}, eval: componentsAssessed},
	{Code: "R12", Article: "Art. 6(10)", RuleSet: "recyclability_grades", Check: Documentation, Start: from2030,
		Reads: []string{"packaging-classification", "recyclability"}, eval: innovativeDerogation},
	{Code: "R13", Article: "Art. 6(11)", RuleSet: "recyclability_grades", Check: Classification, Start: withR08,
		Reads: []string{"packaging-classification", "recyclability"}, eval: recyclabilityExemption},
	{Code: "R15", Article: "Art. 7(2)", RuleSet: "recycled_content_plastic_2040", Check: PassFail, Start: Start{Fixed: day("2040-01-01")},
		Reads: []string{"packaging-classification", "RECYCLED_CONTENT_PCT"}, eval: recycledContent(pcr2040)},
	{Code: "R16", Article: "Art. 7(4), 7(5)", RuleSet: "recycled_content_plastic", Check: Classification, Start: withR14,
		Reads: []string{"packaging-classification"}, eval: recycledContentExemption},
	{Code: "R17", Article: "Art. 7(6), 7(11)", RuleSet: "recycled_content_plastic", Check: Documentation,
		Start: Start{Fixed: day("2029-01-01"), Act: "recycled_content_method", OffsetMonths: 24},
		Reads: []string{"packaging-classification", "RECYCLED_CONTENT_PCT", "conformity-dossiers"}, eval: recycledContentDocumented},
	{Code: "R18", Article: "Art. 8", RuleSet: "biobased_plastic", Check: Information, Start: generalApplication,
		Reads: []string{"biobased"}, eval: biobasedContent},
	{Code: "R20", Article: "Art. 9(2)", RuleSet: "national_options", Check: Classification, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"packaging-classification", "national options", "compostability"}, eval: nationalOption},
	{Code: "R21", Article: "Art. 9(3)", RuleSet: "compostability", Check: Documentation, Start: from2028Feb,
		Reads: []string{"packaging-classification", "recyclability"}, eval: materialRecycling},
	{Code: "R22", Article: "Art. 10(1), Annex IV", RuleSet: "minimisation", Check: Documentation, Start: from2030,
		Reads: []string{"minimization"}, eval: minimalMassAndVolume},
	// Art. 10(2) gives no date of its own, so it follows the general date;
	// some guides read it with Art. 10(1) (2030): ppwr-facts §7 leaves the
	// reading UNVERIFIED.
	{Code: "R23", Article: "Art. 10(2)", RuleSet: "minimisation", Check: PassFail, Start: generalApplication,
		Reads: []string{"minimization"}, eval: noVolumeInflation},
	{Code: "R42", Article: "Art. 24(4)", RuleSet: "minimisation_empty_space", Check: Documentation, Start: from2028Feb,
		Reads: []string{"packaging-classification", "empty-space"}, eval: salesPackagingEmptySpace},
	{Code: "R43", Article: "Art. 24(5)", RuleSet: "minimisation_empty_space", Check: Classification,
		Start: Start{Fixed: day("2030-01-01"), Act: "esr_method", OffsetMonths: 36},
		Reads: []string{"packaging-classification", "empty-space"}, eval: emptySpaceExemption},
}

// documentation is a documentation rule's result: what it cannot read is
// documentation missing.
func documentation(res Result) Result {
	if res.Outcome == InsufficientData {
		res.Outcome = DocumentationMissing
	}
	return res
}

// inDossier checks that the item's conformity dossier holds an element
// marked complete.
func (v *verdict) inDossier(in *Input, element string) {
	e, ok := in.latest("conformity-dossiers")
	if !ok {
		v.missing("conformity-dossiers")
		return
	}
	v.uses(e)
	if !slices.ContainsFunc(e.Values.List("elements"), func(el register.Values) bool {
		return el.String("element") == element && el.Bool("complete")
	}) {
		v.missing("conformity-dossiers." + element)
	}
}

// substancesListed: Art. 5(1) sets no limit, so the documentation shows
// the substances of concern of each component, or states there are none.
func substancesListed(in *Input) Result {
	return documentation(perComponent(in, "chemical-safety", func(v *verdict, e Entry) {
		if len(e.Values.List("substances_of_concern")) == 0 && !e.Values.Bool("no_substances_of_concern") {
			id, _ := e.Values.ID("component")
			v.missing("chemical-safety.substances_of_concern@" + id.String())
		}
	}))
}

// substancesInDossier: the technical documentation holds the Art. 5(4)-(5)
// results (its TD-5(6) element), and they exist for every component.
func substancesInDossier(in *Input) Result {
	v := &verdict{}
	v.inDossier(in, "TD-5(6)")
	v.eachComponent(in, "chemical-safety", func(*verdict, Entry) {})
	return documentation(v.result())
}

// recycledAtScale grades the packaging as R08 does and, from 2035, also
// requires it recycled at scale (Annex II Table 3). Only whether it is is
// recorded: the per-category thresholds of Art. 3(1)(39) are measured
// under the pending Art. 6(5) acts.
func recycledAtScale(in *Input) Result {
	res := recyclabilityGrade(false)(in)
	e, ok := in.latest("recyclability")
	if !ok || res.Outcome == NotApplicable || res.Outcome == Fail {
		return res
	}
	switch {
	case !e.Values.Has("recycled_at_scale"):
		res.Outcome, res.Missing = InsufficientData, append(res.Missing, "recyclability.recycled_at_scale")
	case !e.Values.Bool("recycled_at_scale"):
		res.Outcome, res.Reason = Fail, "rules.not_recycled_at_scale"
	}
	return res
}

// recyclabilityEntry is the newest recyclability entry when Art. 6
// applies to the item, or the result saying why it does not.
func recyclabilityEntry(in *Input) (Entry, *Result) {
	c, classified := in.classified()
	e, ok := in.latest("recyclability")
	switch {
	case classified && exempt(c, "6(11)"):
		res := notApplicable("rules.exempt_6_11", c)
		return e, &res
	case !ok:
		return e, &Result{Outcome: DocumentationMissing, Missing: []string{"recyclability"}}
	case e.Values.Has("exemption"):
		res := notApplicable("rules.exempt_6_11", e)
		return e, &res
	}
	return e, nil
}

// componentsAssessed: the unit's score covers its integrated components
// and each separate component has its own (Art. 6(9)). A separate
// component that is itself not recyclable must not hinder the recycling
// of the main body, which its Table 4 assessment shows.
func componentsAssessed(in *Input) Result {
	e, res := recyclabilityEntry(in)
	if res != nil {
		return *res
	}
	v := &verdict{}
	v.uses(e)
	if !e.Values.Has("dfr_score") {
		v.missing("recyclability.dfr_score")
	}
	assessed := map[uuid.UUID]bool{}
	for _, p := range e.Values.List("table_4_parameters") {
		if id, ok := p.ID("component"); ok {
			assessed[id] = true
		}
	}
	for _, s := range e.Values.List("separate_components") {
		score, _ := s.Quantity("dfr_score")
		id, _ := s.ID("component")
		if register.Grade(score) == "non_recyclable" && !assessed[id] {
			v.missing("recyclability.table_4_parameters@" + id.String())
		}
	}
	return documentation(v.result())
}

// innovativeYears: the Art. 6(10) derogation lasts until 5 years after
// the end of the year the packaging was first placed on the market.
const innovativeYears = 5

func innovativeDerogation(in *Input) Result {
	c, classified := in.classified()
	e, assessed := in.latest("recyclability")
	if !classified && !assessed {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	v := &verdict{}
	for _, used := range []Entry{c, e} {
		if used.ID != uuid.Nil {
			v.uses(used)
		}
	}
	if !c.Values.Bool("innovative") && !e.Values.Bool("innovative") {
		v.Outcome, v.Reason = NotApplicable, "rules.not_innovative"
		return v.result()
	}
	if !assessed {
		v.missing("recyclability")
		return documentation(v.result())
	}
	if !e.Values.Has("innovative_notification") {
		v.missing("recyclability.innovative_notification")
	}
	first, ok := e.Values.Date("first_placed_on")
	if !ok {
		v.missing("recyclability.first_placed_on")
		return documentation(v.result())
	}
	until := time.Date(first.Year()+innovativeYears, time.December, 31, 0, 0, 0, 0, time.UTC)
	v.ReasonArgs = []string{until.Format(time.DateOnly)}
	if in.On.After(until) {
		v.fail("rules.innovative_derogation_ended")
	} else {
		v.Reason = "rules.innovative_derogation_until"
	}
	return documentation(v.result())
}

// exemption reports an exemption of the classification's list: not
// claimed, or claimed with the basis the register that evidences it
// records (a claim without one is documentation missing).
func exemption(article string, claimed bool, basis, where string, used ...Entry) Result {
	res := Result{Outcome: Pass, Reason: "rules.exemption_applies", ReasonArgs: []string{article, basis}}
	for _, e := range used {
		if e.ID != uuid.Nil {
			res.Entries = append(res.Entries, e.ID)
		}
	}
	switch {
	case !claimed:
		res.Outcome, res.Reason, res.ReasonArgs = NotApplicable, "rules.exemption_not_claimed", []string{article}
	case basis == "":
		res.Outcome, res.Reason, res.ReasonArgs, res.Missing = DocumentationMissing, "", nil, []string{where}
	}
	return res
}

// registerExemption is an exemption the classification claims, or the
// register whose exemption field names its basis does; with the
// classification and the basis.
func registerExemption(in *Input, article, reg string) (Entry, string, Result) {
	c, ok := in.classified()
	if !ok {
		return c, "", Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	e, _ := in.latest(reg)
	basis := e.Values.String("exemption")
	return c, basis, exemption(article, exempt(c, article) || basis != "", basis, reg+".exemption", c, e)
}

// recyclabilityExemption (R13): the classification or the recyclability
// entry claims Art. 6(11); the recyclability entry names which.
func recyclabilityExemption(in *Input) Result {
	_, _, res := registerExemption(in, "6(11)", "recyclability")
	return res
}

// recycledContentExemption (R16): Art. 7(4) needs its basis in the
// classification; Art. 7(5) claimed for the whole item holds only when
// every plastic part is under 5 % of the unit's mass.
func recycledContentExemption(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	parts, plastic := plasticParts(in)
	switch {
	case !plastic:
		return notApplicable("rules.no_plastic_part", c)
	case exempt(c, "7(4)"):
		return exemption("7(4)", true, c.Values.String("recycled_content_exemption"), "packaging-classification.recycled_content_exemption", c)
	case exempt(c, "7(5)") && len(parts) > 0:
		return Result{Outcome: Fail, Reason: "rules.plastic_part_not_minor", Entries: []uuid.UUID{c.ID}}
	case exempt(c, "7(5)"):
		return exemption("7(5)", true, "plastic_parts_under_5_per_cent", "", c)
	}
	return exemption("7(4)-(5)", false, "", "", c)
}

// recycledContentDocumented (R17): each plastic part R14 measures has its
// accepted recycled-content evidence, and the technical documentation
// holds the recycled-content calculation (its TD-7(6) element).
func recycledContentDocumented(in *Input) Result {
	c, parts, res := pcrParts(in)
	if res != nil {
		return *res
	}
	if len(parts) == 0 {
		return notApplicable("rules.plastic_parts_all_minor", c)
	}
	v := &verdict{}
	v.uses(c)
	v.recycledContent(in, parts, func(Component, decimal.Decimal) {})
	v.inDossier(in, "TD-7(6)")
	return documentation(v.result())
}

// biobasedContent (R18): Art. 8 only asks the Commission for a review, so
// the rule reports what the biobased entry says.
func biobasedContent(in *Input) Result {
	e, ok := in.latest("biobased")
	if !ok {
		return Result{Outcome: Informational, Reason: "rules.no_biobased_entry"}
	}
	content, _ := e.Values.Quantity("biobased_content")
	return Result{Outcome: Informational, Reason: "rules.biobased_content", Entries: []uuid.UUID{e.ID},
		ReasonArgs: []string{content.String(), e.Values.String("measurement_method")}}
}

// NationalChoice is a Member State's verified choice under Art. 9(2)
// about one format.
type NationalChoice struct {
	Country             string `json:"country"`
	Format              string `json:"format"`
	CompostableRequired bool   `json:"compostable_required"`
	Source              string `json:"source"`
}

//go:embed national_options.json
var nationalOptionsJSON []byte

var nationalChoices = func() []NationalChoice {
	var doc struct {
		Choices []NationalChoice `json:"choices"`
	}
	if err := json.Unmarshal(nationalOptionsJSON, &doc); err != nil {
		panic(fmt.Sprintf("rules: national_options.json: %v", err))
	}
	return doc.Choices
}()

// KnownNationalChoices are the Member State choices of
// national_options.json, empty until one is verified.
func KnownNationalChoices() []NationalChoice { return slices.Clone(nationalChoices) }

// nationalOptionFormat is the Art. 9(2) format the classification makes
// the item, "" for none.
func nationalOptionFormat(c Entry) string {
	bag := c.Values.String("carrier_bag_class")
	switch {
	case c.Values.Bool("non_metal_machine_pod"):
		return "non_metal_machine_pod"
	case c.Values.String("predominant_material") == "plastic" && (bag == "very_lightweight" || bag == "lightweight"):
		return bag + "_plastic_carrier_bag"
	}
	return ""
}

// nationalOption (R20): in each market, a format a Member State may
// require to be compostable answers that Member State's verified choice;
// without one, the choice is unknown, which never passes.
func nationalOption(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	format := nationalOptionFormat(c)
	if format == "" {
		return notApplicable("rules.not_national_option_format", c)
	}
	certified := slices.IndexFunc(in.usable("compostability"), func(e Entry) bool { return e.Values.String("format") == "member_state_mandated" })
	res := byMarket(in, func(m Market) MarketResult {
		mr := MarketResult{Outcome: NationalChoiceUnknown, Reason: "rules.national_choice_unknown"}
		i := slices.IndexFunc(in.NationalChoices, func(n NationalChoice) bool { return n.Country == m.Country && n.Format == format })
		switch {
		case i < 0:
		case !in.NationalChoices[i].CompostableRequired:
			mr.Outcome, mr.Reason = NotApplicable, "rules.national_choice_not_required"
		case certified < 0:
			mr.Outcome, mr.Reason, mr.Missing = DocumentationMissing, "", []string{"compostability"}
		default:
			mr.Outcome, mr.Reason, mr.Entries = Pass, "", []uuid.UUID{in.usable("compostability")[certified].ID}
		}
		return mr
	})
	res.Entries = appendNew([]uuid.UUID{c.ID}, res.Entries...)
	return res
}

// materialRecycling (R21): packaging outside the Art. 9(1) formats,
// biodegradable plastic (Annex II category 19) included, allows material
// recycling, which its design-for-recycling score shows. The formats of
// Art. 9(2) stay in scope: whether a Member State requires them
// compostable is unknown (R20).
func materialRecycling(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	if c.Values.String("art_9_format") != "" {
		return notApplicable("rules.art_9_1_format", c)
	}
	e, ok := in.latest("recyclability")
	if !ok {
		return Result{Outcome: DocumentationMissing, Missing: []string{"recyclability"}, Entries: []uuid.UUID{c.ID}}
	}
	res := Result{Outcome: Pass, Entries: []uuid.UUID{c.ID, e.ID}}
	switch e.Values.String("grade") {
	case "":
		res.Outcome, res.Missing = DocumentationMissing, []string{"recyclability.dfr_score"}
	case "non_recyclable":
		res.Outcome, res.Reason = Fail, "rules.not_designed_for_material_recycling"
	}
	return res
}

// minimalMassAndVolume (R22): the Annex IV assessment names the criteria
// that limit reduction and the minimum mass, and the packaging is not
// heavier (or, where both volumes are given, larger) than that minimum
// allows with the batch variation.
func minimalMassAndVolume(in *Input) Result {
	e, ok := in.latest("minimization")
	if !ok {
		return Result{Outcome: DocumentationMissing, Missing: []string{"minimization"}}
	}
	v := &verdict{}
	v.uses(e)
	if len(e.Values.List("criteria")) == 0 {
		v.missing("minimization.criteria")
	}
	variation, _ := e.Values.Quantity("batch_variation")
	if !e.Values.Has("minimum_mass") {
		v.missing("minimization.minimum_mass")
	} else if limit, above := aboveMinimum(e.Values, "mass", "minimum_mass", variation); above {
		v.fail("rules.mass_above_minimum")
		v.ReasonArgs = []string{limit.String()}
	}
	if limit, above := aboveMinimum(e.Values, "volume", "minimum_volume", variation); above {
		v.fail("rules.volume_above_minimum")
		v.ReasonArgs = []string{limit.String()}
	}
	return documentation(v.result())
}

// aboveMinimum reports whether a value exceeds its justified minimum
// plus the batch variation (in per cent of the minimum), with that limit;
// false unless both are given.
func aboveMinimum(v register.Values, value, minimum string, variation decimal.Decimal) (decimal.Decimal, bool) {
	actual, ok := v.Quantity(value)
	lowest, ok2 := v.Quantity(minimum)
	if !ok || !ok2 {
		return decimal.Zero, false
	}
	limit := lowest.Add(lowest.Mul(variation).Div(hundred))
	return limit, actual.GreaterThan(limit)
}

// noVolumeInflation (R23): double walls, false bottoms and unnecessary
// layers stand only under an exception of Art. 10(2), with its evidence.
func noVolumeInflation(in *Input) Result {
	e, ok := in.latest("minimization")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"minimization"}}
	}
	res := Result{Outcome: Pass, Entries: []uuid.UUID{e.ID}}
	exception := e.Values.String("exception")
	switch {
	case !e.Values.Bool("double_walls") && !e.Values.Bool("false_bottoms") && !e.Values.Bool("unnecessary_layers"):
	case exception == "":
		res.Outcome, res.Reason = Fail, "rules.volume_inflated"
	case !e.Values.Has("exception_evidence"):
		res.Outcome, res.Missing = DocumentationMissing, []string{"minimization.exception_evidence"}
	default:
		res.Reason, res.ReasonArgs = "rules.volume_feature_exception", []string{exception}
	}
	return res
}

// salesPackagingEmptySpace (R42): sales packaging records its empty space
// (the pack-fill level at filling, or its internal and product volumes)
// and why what remains is needed.
func salesPackagingEmptySpace(in *Input) Result {
	c, ok := in.classified()
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	}
	if c.Values.String("packaging_function") != "sales" {
		return notApplicable("rules.not_sales_packaging", c)
	}
	v := &verdict{}
	v.uses(c)
	e, ok := in.latest("empty-space")
	if !ok {
		v.missing("empty-space")
		return documentation(v.result())
	}
	v.uses(e)
	if !e.Values.Has("pack_fill_level") && !(e.Values.Has("internal_volume") && e.Values.Has("product_volume")) {
		v.missing("empty-space.pack_fill_level")
	}
	if !e.Values.Has("headspace_justification") {
		v.missing("empty-space.headspace_justification")
	}
	return documentation(v.result())
}

// emptySpaceExemption (R43): the classification or the empty-space entry
// claims Art. 24(5); the empty-space entry names which, and reusable
// packaging in a re-use system is classified as such.
func emptySpaceExemption(in *Input) Result {
	c, basis, res := registerExemption(in, "24(5)", "empty-space")
	if res.Outcome == Pass && basis == "reusable_in_reuse_system" && !c.Values.Bool("reusable_in_system") {
		res.Outcome, res.Reason, res.ReasonArgs, res.Missing = DocumentationMissing, "", nil, []string{"packaging-classification.reusable_in_system"}
	}
	return res
}
