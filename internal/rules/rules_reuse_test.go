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

func reusableCrate(extra register.Values) Entry {
	v := register.Values{"reuse_type": register.TextValue("reusable"), "article_29_format": register.TextValue("crate")}
	maps.Copy(v, extra)
	return classification(v)
}

// criteria are the Art. 11(1) criteria, each met with its evidence,
// except those changed.
func criteria(change map[string]register.Values) register.Value {
	var out []register.Values
	for _, c := range register.ReusabilityCriteria {
		v := register.Values{"criterion": register.TextValue(c), "met": register.BoolValue(true), "evidence": register.IDValue(uuid.New())}
		if changed, ok := change[c]; ok {
			if changed == nil {
				continue
			}
			v = changed
		}
		out = append(out, v)
	}
	return register.ObjectsValue(out)
}

func reuseAssessment(extra register.Values) Entry {
	v := register.Values{"criteria": criteria(nil), "reuse_system_type": register.TextValue("closed_loop"),
		"system_operator": register.TextValue("Pula Sp. z o.o.")}
	maps.Copy(v, extra)
	return accepted("reuse-assessments", v)
}

func inMarkets(in *Input, markets ...Market) *Input { in.Markets = markets; return in }

func TestReusablePackagingMeetsTheCriteriaOfArticle11(t *testing.T) {
	on := day("2025-02-11")
	assert.Equal(t, NotYetApplicable, outcome(t, "R24", itemOn(day("2025-02-10"), reusableCrate(nil))).Outcome)
	res := outcome(t, "R24", itemOn(on))
	assert.Equal(t, InsufficientData, res.Outcome, "the scope needs the classification")
	assert.Equal(t, []string{"packaging-classification"}, res.Missing)
	res = outcome(t, "R24", itemOn(on, classification(register.Values{"reuse_type": register.TextValue("single_use")})))
	assert.Equal(t, NotApplicable, res.Outcome)
	assert.Equal(t, "rules.single_use_packaging", res.Reason)

	res = outcome(t, "R24", itemOn(on, reusableCrate(nil)))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"reuse-assessments"}, res.Missing)
	res = outcome(t, "R24", itemOn(on, reusableCrate(nil), reuseAssessment(nil)))
	assert.Equal(t, Pass, res.Outcome)
	assert.Len(t, res.Entries, 2, "the classification and the assessment are cited")

	unreviewed := reuseAssessment(nil)
	unreviewed.Accepted = false
	assert.Equal(t, DocumentationMissing, outcome(t, "R24", itemOn(on, reusableCrate(nil), unreviewed)).Outcome, "only an accepted assessment counts")

	cases := []struct {
		change  map[string]register.Values
		want    string
		missing []string
	}{
		{map[string]register.Values{"11(1)(i)": nil}, DocumentationMissing, []string{"reuse-assessments.criteria.11(1)(i)"}},
		{map[string]register.Values{"11(1)(c)": {"criterion": register.TextValue("11(1)(c)"), "met": register.BoolValue(true)}},
			DocumentationMissing, []string{"reuse-assessments.criteria.11(1)(c).evidence"}},
		{map[string]register.Values{"11(1)(f)": {"criterion": register.TextValue("11(1)(f)"), "met": register.BoolValue(false)}}, Fail, nil},
	}
	for _, c := range cases {
		res := outcome(t, "R24", itemOn(on, reusableCrate(nil), reuseAssessment(register.Values{"criteria": criteria(c.change)})))
		assert.Equal(t, c.want, res.Outcome, "%v", c.change)
		assert.Equal(t, c.missing, res.Missing, "%v", c.change)
	}
}

func TestReusablePackagingBearsItsLabelAndDataCarrier(t *testing.T) {
	label := func(types ...string) register.Value {
		var out []register.Values
		for _, l := range types {
			out = append(out, register.Values{"type": register.TextValue(l), "artwork": register.IDValue(uuid.New())})
		}
		return register.ObjectsValue(out)
	}
	labelled := accepted("communications", register.Values{"labels": label("reusable_label"), "data_carrier_url": register.TextValue("https://r.example/c/1")})

	pending := outcome(t, "R27", itemOn(day("2035-01-01"), reusableCrate(nil), reuseAssessment(nil), labelled))
	assert.Equal(t, NotYetApplicable, pending.Outcome, "the implementing act is not in force")
	assert.True(t, pending.Pending)
	assert.Equal(t, day("2029-02-12"), pending.AppliesFrom)

	late := Acts{"reusable_label_act": day("2027-01-01")}
	from, _ := rule(t, "R27").Start.From(late)
	assert.Equal(t, day("2029-07-01"), from, "30 months after the act is later than 12 February 2029")
	acts := Acts{"reusable_label_act": day("2026-01-01")}
	evaluate := func(on string, entries ...Entry) Result {
		in := itemOn(day(on), entries...)
		in.Acts = acts
		return outcome(t, "R27", in)
	}
	assert.Equal(t, NotYetApplicable, evaluate("2029-02-11", reusableCrate(nil), reuseAssessment(nil), labelled).Outcome)
	on := "2029-02-12"
	assert.Equal(t, Pass, evaluate(on, reusableCrate(nil), reuseAssessment(nil), labelled).Outcome)

	noCarrier := accepted("communications", register.Values{"labels": label("reusable_label", "epr_symbol")})
	res := evaluate(on, reusableCrate(nil), reuseAssessment(nil), noCarrier)
	assert.Equal(t, Fail, res.Outcome)
	assert.Equal(t, "rules.no_reuse_data_carrier", res.Reason)
	noLabel := accepted("communications", register.Values{"labels": label("epr_symbol"), "data_carrier_url": register.TextValue("https://r.example")})
	res = evaluate(on, reusableCrate(nil), reuseAssessment(nil), noLabel)
	assert.Equal(t, Fail, res.Outcome)
	assert.Equal(t, "rules.no_reusable_label", res.Reason)
	res = evaluate(on, reusableCrate(nil), reuseAssessment(nil))
	assert.Equal(t, InsufficientData, res.Outcome)
	assert.Equal(t, []string{"communications"}, res.Missing)

	openLoop := reuseAssessment(register.Values{"reuse_system_type": register.TextValue("open_loop")})
	delete(openLoop.Values, "system_operator")
	res = evaluate(on, reusableCrate(nil), openLoop, noLabel)
	assert.Equal(t, NotApplicable, res.Outcome, "an open loop without an operator is exempt")
	assert.Equal(t, "rules.open_loop_without_operator", res.Reason)
	operated := reuseAssessment(register.Values{"reuse_system_type": register.TextValue("open_loop")})
	assert.Equal(t, Fail, evaluate(on, reusableCrate(nil), operated, noLabel).Outcome, "an open loop with an operator is not")

	res = evaluate(on, reusableCrate(nil), labelled)
	assert.Equal(t, InsufficientData, res.Outcome, "nothing tells whether the system has an operator")
	assert.Equal(t, []string{"reuse-assessments"}, res.Missing)
	in := itemOn(day(on), reusableCrate(nil), noLabel)
	in.Acts, in.ReuseSystems = acts, []ReuseSystem{{ID: uuid.New(), Code: "POOL", Markets: []string{"PL"}}}
	assert.Equal(t, Fail, outcome(t, "R27", in).Outcome, "a recorded system names its operator")
	assert.Equal(t, NotApplicable, evaluate(on, classification(register.Values{"reuse_type": register.TextValue("single_use")})).Outcome)
}

func TestAReuseSystemCoversEachMarketOfReusablePackaging(t *testing.T) {
	dossier := accepted("conformity-dossiers", register.Values{"missing_elements": register.EnumsValue([]string{})})
	pool := ReuseSystem{ID: uuid.New(), Code: "POOL-PL", Markets: []string{"PL"}, ReconditioningSteps: []string{"cleaning"}}
	evaluate := func(code string, systems []ReuseSystem, markets []Market, entries ...Entry) Result {
		in := inMarkets(itemOn(general, entries...), markets...)
		in.ReuseSystems = systems
		return outcome(t, code, in)
	}

	res := evaluate("R45", []ReuseSystem{pool}, []Market{poland}, reusableCrate(nil), dossier)
	assert.Equal(t, Pass, res.Outcome)
	require.Len(t, res.Markets, 1)
	assert.Equal(t, MarketResult{Market: poland.ID, Country: "PL", Outcome: Pass, Entries: res.Entries}, res.Markets[0],
		"the classification, the dossier and the system are cited")
	assert.Contains(t, res.Entries, pool.ID)

	res = evaluate("R45", []ReuseSystem{pool}, []Market{poland, germany}, reusableCrate(nil), dossier)
	assert.Equal(t, DocumentationMissing, res.Outcome, "the worst market decides")
	assert.Equal(t, Pass, res.Markets[0].Outcome)
	assert.Equal(t, []string{"reuse-systems@DE"}, res.Markets[1].Missing)

	unconfirmed := pool
	unconfirmed.UnconfirmedParticipants = 1
	res = evaluate("R45", []ReuseSystem{unconfirmed}, []Market{poland}, reusableCrate(nil))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"conformity-dossiers", "reuse-systems.participants.confirmation@POOL-PL"}, res.Markets[0].Missing)

	assert.Equal(t, NotApplicable, evaluate("R45", nil, []Market{poland}, classification(register.Values{"reuse_type": register.TextValue("single_use")})).Outcome)
	res = evaluate("R45", []ReuseSystem{pool}, nil, reusableCrate(nil), dossier)
	assert.Equal(t, InsufficientData, res.Outcome)
	assert.Equal(t, []string{"markets"}, res.Missing)
	assert.Equal(t, NotYetApplicable, outcome(t, "R45", inMarkets(itemOn(day("2026-08-11"), reusableCrate(nil)), poland)).Outcome)

	assert.Equal(t, Pass, evaluate("R46", []ReuseSystem{pool}, []Market{poland}, reusableCrate(nil)).Outcome, "the system records its steps")
	bare := pool
	bare.ReconditioningSteps = nil
	res = evaluate("R46", []ReuseSystem{bare}, []Market{poland}, reusableCrate(nil), reuseAssessment(nil))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"reuse-assessments.reconditioning_steps"}, res.Markets[0].Missing)
	steps := reuseAssessment(register.Values{"reconditioning_steps": register.EnumsValue([]string{"condition_check", "cleaning"})})
	assert.Equal(t, Pass, evaluate("R46", []ReuseSystem{bare}, []Market{poland}, reusableCrate(nil), steps).Outcome, "or the re-use assessment")
	res = evaluate("R46", nil, []Market{poland}, reusableCrate(nil), steps)
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"reuse-systems@PL"}, res.Markets[0].Missing)
}

func TestArticle29_4ExemptionIsAClassification(t *testing.T) {
	on := day("2030-01-01")
	assert.Equal(t, NotYetApplicable, outcome(t, "R51", itemOn(day("2029-12-31"), reusableCrate(nil))).Outcome)
	res := outcome(t, "R51", itemOn(on, classification(register.Values{"exemptions": register.EnumsValue([]string{"6(11)", "29(4)"})})))
	assert.Equal(t, Pass, res.Outcome)
	assert.Equal(t, "rules.exempt_29_4", res.Reason)
	res = outcome(t, "R51", itemOn(on, reusableCrate(nil)))
	assert.Equal(t, NotApplicable, res.Outcome)
	assert.Equal(t, "rules.no_exemption_29_4", res.Reason)
	assert.Equal(t, []string{"packaging-classification"}, outcome(t, "R51", itemOn(on)).Missing)
}

func profile(country string, values register.Values) ProfileEntry {
	v := register.Values{"micro_enterprise": register.BoolValue(false)}
	maps.Copy(v, values)
	return ProfileEntry{ID: uuid.New(), Country: country, Values: v}
}

func flag(name string, value bool) register.Values {
	return register.Values{name: register.BoolValue(value)}
}

func share(country, format, reusable, singleUse string) ReuseShare {
	return ReuseShare{Country: country, Format: format, Reusable: decimal.RequireFromString(reusable), SingleUse: decimal.RequireFromString(singleUse)}
}

// targetsOn is an assessment on the date in the markets, with the
// organization's profile and the year's shares.
func targetsOn(on string, profiles []ProfileEntry, shares []ReuseShare, markets ...Market) *Input {
	in := inMarkets(itemOn(day(on)), markets...)
	in.Profile, in.ReuseShares = profiles, shares
	in.Acts = Acts{"reuse_equivalent_units_method": day("2027-01-01")}
	return in
}

func TestReuseTargetsAtBelowAndAboveTheirShares(t *testing.T) {
	const on = "2031-03-01" // measures 2030
	cases := []struct {
		rule    string
		profile register.Values
		shares  []ReuseShare
		want    string
	}{
		{"R49", flag("transport_packaging_user", true), []ReuseShare{share("PL", "pallet", "40", "60")}, Pass},
		{"R49", flag("transport_packaging_user", true), []ReuseShare{share("PL", "pallet", "3999", "6001")}, Fail},
		{"R49", flag("transport_packaging_user", true), []ReuseShare{share("PL", "pallet", "4001", "5999")}, Pass},
		{"R49", flag("transport_packaging_user", true), []ReuseShare{share("PL", "pallet", "50", "50"), share("PL", "crate", "30", "70")}, Pass},
		{"R49", flag("transport_packaging_user", true), []ReuseShare{share("PL", "crate", "39", "61"), share("PL", "grouped_box", "100", "0")}, Fail},
		{"R50", flag("intra_group_or_same_country_transport", true), []ReuseShare{share("PL", "pallet", "100", "0"), share("PL", "drum", "7", "0")}, Pass},
		{"R50", flag("intra_group_or_same_country_transport", true), []ReuseShare{share("PL", "pallet", "9999", "1")}, Fail},
		{"R52", flag("grouped_box_user", true), []ReuseShare{share("PL", "grouped_box", "10", "90")}, Pass},
		{"R52", flag("grouped_box_user", true), []ReuseShare{share("PL", "grouped_box", "999", "9001")}, Fail},
		{"R52", flag("grouped_box_user", true), []ReuseShare{share("PL", "grouped_box", "1001", "8999")}, Pass},
		{"R53", register.Values{"beverage_final_distributor": register.BoolValue(true), "sales_area": q("100.01", "m²")},
			[]ReuseShare{share("PL", "beverage_container", "10", "90")}, Pass},
		{"R53", register.Values{"beverage_final_distributor": register.BoolValue(true), "sales_area": q("2000", "m²")},
			[]ReuseShare{share("PL", "beverage_container", "999", "9001")}, Fail},
		{"R53", register.Values{"beverage_final_distributor": register.BoolValue(true), "sales_area": q("2000", "m²")},
			[]ReuseShare{share("PL", "beverage_container", "1001", "8999"), share("DE", "beverage_container", "0", "10")}, Pass},
	}
	for _, c := range cases {
		res := outcome(t, c.rule, targetsOn(on, []ProfileEntry{profile("PL", c.profile)}, c.shares, poland))
		assert.Equal(t, c.want, res.Outcome, "%s %v", c.rule, c.shares)
		require.Len(t, res.Markets, 1)
		assert.Equal(t, c.want, res.Markets[0].Outcome)
		assert.Equal(t, "2030", res.ReasonArgs[0], "the last closed year")
	}

	res := outcome(t, "R52", targetsOn(on, []ProfileEntry{profile("PL", flag("grouped_box_user", true))}, []ReuseShare{share("PL", "grouped_box", "999", "9001")}, poland))
	assert.Equal(t, "rules.reuse_share_below_target", res.Reason)
	assert.Equal(t, []string{"2030", "10", "PL 9.99"}, res.ReasonArgs)
	assert.Equal(t, "rules.reuse_share_below", res.Markets[0].Reason)
	assert.Len(t, res.Entries, 1, "the profile entry is cited")

	wraps := outcome(t, "R50", targetsOn(on, []ProfileEntry{profile("PL", flag("intra_group_or_same_country_transport", true))},
		[]ReuseShare{share("PL", "pallet", "100", "0"), share("PL", "pallet_wrap", "0", "5")}, poland))
	assert.Equal(t, Fail, wraps.Outcome, "the pallet-wrap exemption of delegated act 2026/429 is unverified: wraps count")
	assert.Equal(t, "rules.reuse_share_below_wraps_counted", wraps.Markets[0].Reason)
}

func TestAReuseTargetIsDecidedPerMarketFromTheProfile(t *testing.T) {
	const on = "2031-03-01"
	grouped := []ReuseShare{share("PL", "grouped_box", "20", "80"), share("DE", "grouped_box", "5", "95")}
	user := flag("grouped_box_user", true)

	res := outcome(t, "R52", targetsOn(on, []ProfileEntry{profile("PL", user), profile("DE", user)}, grouped, poland, germany))
	assert.Equal(t, Fail, res.Outcome)
	assert.Equal(t, []string{Pass, Fail}, []string{res.Markets[0].Outcome, res.Markets[1].Outcome})
	assert.Equal(t, []string{"2030", "10", "PL 20, DE 5"}, res.ReasonArgs)

	res = outcome(t, "R52", targetsOn(on, []ProfileEntry{profile("PL", user)}, grouped, poland, germany))
	assert.Equal(t, InsufficientData, res.Outcome, "no profile for Germany")
	assert.Equal(t, []string{"compliance-profile@DE"}, res.Markets[1].Missing)

	res = outcome(t, "R52", targetsOn(on, []ProfileEntry{profile("PL", user)}, nil, poland))
	assert.Equal(t, InsufficientData, res.Outcome, "no flows never pass")
	assert.Equal(t, []string{"flows@PL"}, res.Markets[0].Missing)

	micro := func(placedKg int64) ProfileEntry {
		p := profile("PL", register.Values{"micro_enterprise": register.BoolValue(true), "grouped_box_user": register.BoolValue(true)})
		if placedKg >= 0 {
			p.PlacedMassG = map[int]decimal.Decimal{2030: decimal.NewFromInt(placedKg * 1000)}
		}
		return p
	}
	res = outcome(t, "R52", targetsOn(on, []ProfileEntry{micro(1000)}, grouped, poland))
	assert.Equal(t, NotApplicable, res.Outcome, "a micro-enterprise that placed at most 1,000 kg is exempt (Art. 29(13))")
	assert.Equal(t, "rules.exempt_29_13", res.Reason)
	res = outcome(t, "R52", targetsOn(on, []ProfileEntry{micro(1001)}, grouped, poland))
	assert.NotEqual(t, NotApplicable, res.Outcome, "above 1,000 kg the target binds a micro-enterprise too")
	res = outcome(t, "R52", targetsOn(on, []ProfileEntry{micro(-1)}, grouped, poland))
	assert.Equal(t, []string{"flows@PL"}, res.Markets[0].Missing, "without the year's mass the exemption is unknown")
	res = outcome(t, "R52", targetsOn(on, []ProfileEntry{{ID: uuid.New(), Country: "PL", Values: user}}, grouped, poland))
	assert.Equal(t, []string{"compliance-profile.micro_enterprise@PL"}, res.Markets[0].Missing, "an unrecorded flag is not a no")

	for rule, scope := range map[string][2]string{
		"R49": {"transport_packaging_user", "rules.not_transport_packaging_user"},
		"R50": {"intra_group_or_same_country_transport", "rules.no_intra_group_transport"},
		"R52": {"grouped_box_user", "rules.not_grouped_box_user"},
		"R53": {"beverage_final_distributor", "rules.not_beverage_final_distributor"},
	} {
		res := outcome(t, rule, targetsOn(on, []ProfileEntry{profile("PL", flag(scope[0], false))}, grouped, poland))
		assert.Equal(t, NotApplicable, res.Outcome, rule)
		assert.Equal(t, scope[1], res.Reason, rule)
		res = outcome(t, rule, targetsOn(on, []ProfileEntry{profile("PL", nil)}, grouped, poland))
		assert.Equal(t, []string{"compliance-profile." + scope[0] + "@PL"}, res.Markets[0].Missing, rule)
	}

	distributor := func(area string) []ProfileEntry {
		v := flag("beverage_final_distributor", true)
		if area != "" {
			v["sales_area"] = q(area, "m²")
		}
		return []ProfileEntry{profile("PL", v)}
	}
	beverages := []ReuseShare{share("PL", "beverage_container", "1", "99")}
	res = outcome(t, "R53", targetsOn(on, distributor("100"), beverages, poland))
	assert.Equal(t, NotApplicable, res.Outcome, "100 m² or less is exempt")
	assert.Equal(t, "rules.sales_area_100", res.Reason)
	assert.Equal(t, Fail, outcome(t, "R53", targetsOn(on, distributor("100.01"), beverages, poland)).Outcome)
	assert.Equal(t, []string{"compliance-profile.sales_area@PL"}, outcome(t, "R53", targetsOn(on, distributor(""), beverages, poland)).Markets[0].Missing)
}

func TestReuseTargetsMeasureTheLastClosedYear(t *testing.T) {
	profiles := []ProfileEntry{profile("PL", flag("grouped_box_user", true))}
	grouped := []ReuseShare{share("PL", "grouped_box", "5", "95")}
	assert.Equal(t, NotYetApplicable, outcome(t, "R52", targetsOn("2029-12-31", profiles, grouped, poland)).Outcome)
	res := outcome(t, "R52", targetsOn("2030-12-31", profiles, grouped, poland))
	assert.Equal(t, NotApplicable, res.Outcome, "2030 is measured once it closes")
	assert.Equal(t, "rules.reuse_year_not_measured", res.Reason)
	assert.Equal(t, []string{"2029", "2030-01-01"}, res.ReasonArgs)
	assert.Equal(t, Fail, outcome(t, "R52", targetsOn("2031-01-01", profiles, grouped, poland)).Outcome)

	transport := []ProfileEntry{profile("PL", flag("transport_packaging_user", true))}
	pallets := []ReuseShare{share("PL", "pallet", "1", "99")}
	in := targetsOn("2035-01-01", transport, pallets, poland)
	in.Acts = Acts{}
	res = outcome(t, "R49", in)
	assert.Equal(t, NotYetApplicable, res.Outcome, "the Art. 30(3) method act is pending")
	assert.True(t, res.Pending)
	in = targetsOn("2030-08-31", transport, pallets, poland)
	in.Acts = Acts{"reuse_equivalent_units_method": day("2029-03-01")}
	res = outcome(t, "R49", in)
	assert.Equal(t, NotYetApplicable, res.Outcome, "18 months after the act: from 1 September 2030")
	in.On = day("2031-03-01")
	res = outcome(t, "R49", in)
	assert.Equal(t, NotApplicable, res.Outcome, "2030 does not start under the target")
	assert.Equal(t, []string{"2030", "2030-09-01"}, res.ReasonArgs)
	in.On = day("2032-01-01")
	assert.Equal(t, Fail, outcome(t, "R49", in).Outcome)
}

func TestTheEndeavourTargetsOf2040AreInformation(t *testing.T) {
	profiles := []ProfileEntry{profile("PL", flag("grouped_box_user", true))}
	res := outcome(t, "R52", targetsOn("2040-06-01", profiles, []ReuseShare{share("PL", "grouped_box", "20", "80")}, poland))
	assert.Equal(t, Pass, res.Outcome, "2039 knows no endeavour target")
	assert.Equal(t, "rules.reuse_share_met", res.Reason)
	res = outcome(t, "R52", targetsOn("2041-06-01", profiles, []ReuseShare{share("PL", "grouped_box", "20", "80")}, poland))
	assert.Equal(t, Pass, res.Outcome, "below 25 per cent is no failure")
	assert.Equal(t, "rules.reuse_share_below_endeavour", res.Reason)
	assert.Equal(t, []string{"2040", "10", "PL 20", "25"}, res.ReasonArgs)
	res = outcome(t, "R52", targetsOn("2041-06-01", profiles, []ReuseShare{share("PL", "grouped_box", "25", "75")}, poland))
	assert.Equal(t, "rules.reuse_share_met", res.Reason)
}

func TestAReuseTargetAppliesFromItsYearAndWaitsForItsAct(t *testing.T) {
	share := func(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
	grouped := ReuseTargets("grouped_box")[0]
	for _, c := range []struct {
		year  int
		share *decimal.Decimal
		want  string
	}{
		{2029, share("50"), TargetNotApplicable},
		{2030, share("10"), TargetMet},
		{2030, share("9.99"), TargetNotMet},
		{2031, nil, TargetNoData},
	} {
		status, _, _ := grouped.YearStatus(c.share, c.year, Acts{})
		assert.Equal(t, c.want, status, "%d %v", c.year, c.share)
	}

	transport := ReuseTargets("pallet")[0]
	status, _, provisional := transport.YearStatus(share("90"), 2031, Acts{})
	assert.Equal(t, TargetNotApplicable, status, "the Art. 30(3) act is not in force")
	assert.True(t, provisional)
	inForce := Acts{"reuse_equivalent_units_method": day("2029-03-01")}
	status, from, _ := transport.YearStatus(share("90"), 2030, inForce)
	assert.Equal(t, day("2030-09-01"), from, "18 months after the act, later than 1 January 2030")
	assert.Equal(t, TargetNotApplicable, status)
	status, _, _ = transport.YearStatus(share("40"), 2031, inForce)
	assert.Equal(t, TargetMet, status)
	assert.Equal(t, TargetEndeavour, ReuseTargets("beverage_container")[1].Kind)
	assert.Equal(t, transport.Start, rule(t, "R49").Start, "the rule and the statistics wait for the same act")

	assert.Nil(t, ReusableShare(decimal.Zero, decimal.Zero), "no units, no share")
	assert.Equal(t, "33.33", ReusableShare(decimal.NewFromInt(1), decimal.NewFromInt(2)).String())
	assert.False(t, ReadOn(ReuseStatistics, day("2029-12-31"), Acts{}), "no rule reads the statistics before 2030")
	assert.True(t, ReadOn(ReuseStatistics, day("2030-01-01"), Acts{}))
}

func TestTheReuseReportIsDueSixMonthsAfterTheYear(t *testing.T) {
	document := register.IDValue(uuid.New())
	reports := func(submitted string, withDocument bool) register.Values {
		r := register.Values{"year": register.IntValue(2030), "submitted_on": register.TextValue(submitted)}
		if withDocument {
			r["document"] = document
		}
		return register.Values{"grouped_box_user": register.BoolValue(true), "reuse_reports": register.ObjectsValue([]register.Values{r})}
	}
	evaluate := func(on string, v register.Values) Result {
		return outcome(t, "R55", targetsOn(on, []ProfileEntry{profile("PL", v)}, nil, poland))
	}
	assert.Equal(t, NotYetApplicable, evaluate("2030-12-31", reports("2031-06-30", true)).Outcome)
	res := evaluate("2031-06-30", nil)
	assert.Equal(t, NotApplicable, res.Outcome, "not due before the day after 30 June")
	assert.Equal(t, []string{"2030", "2031-06-30"}, res.ReasonArgs)

	res = evaluate("2031-07-01", reports("2031-06-30", true))
	assert.Equal(t, Pass, res.Outcome)
	assert.Equal(t, []string{"2030", "2031-06-30"}, res.ReasonArgs)
	res = evaluate("2031-07-01", reports("2031-07-01", true))
	assert.Equal(t, Fail, res.Outcome)
	assert.Equal(t, "rules.reuse_report_late", res.Reason)
	res = evaluate("2031-07-01", reports("2031-06-01", false))
	assert.Equal(t, DocumentationMissing, res.Outcome)
	assert.Equal(t, []string{"compliance-profile.reuse_reports.document@PL"}, res.Markets[0].Missing)
	res = evaluate("2032-07-01", reports("2031-06-01", true))
	assert.Equal(t, DocumentationMissing, res.Outcome, "the report of 2031 is missing")
	assert.Equal(t, []string{"compliance-profile.reuse_reports@PL"}, res.Markets[0].Missing)

	res = evaluate("2031-07-01", register.Values{"transport_packaging_user": register.BoolValue(false), "intra_group_or_same_country_transport": register.BoolValue(false),
		"grouped_box_user": register.BoolValue(false), "beverage_final_distributor": register.BoolValue(false)})
	assert.Equal(t, NotApplicable, res.Outcome)
	assert.Equal(t, "rules.not_bound_by_reuse_target", res.Reason)
	res = evaluate("2031-07-01", flag("transport_packaging_user", false))
	assert.Equal(t, InsufficientData, res.Outcome, "the other targets are undecided")
	assert.Len(t, res.Markets[0].Missing, 3)
	assert.Equal(t, []string{"compliance-profile@PL"}, outcome(t, "R55", targetsOn("2031-07-01", nil, nil, poland)).Markets[0].Missing)
}
