package rules

import (
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/i18n"
	"ppwr/internal/register"
)

// The operator's obligations read the organization's compliance profile
// in each market of the assessment.

var (
	poland  = Market{ID: uuid.New(), Country: "PL"}
	germany = Market{ID: uuid.New(), Country: "DE"}
)

func m2(value string) register.Value { return q(value, "m2") }

// profileIn is an accepted profile entry of a country: not a
// micro-enterprise unless the values say so.
func profileIn(country string, v register.Values) ProfileEntry {
	values := register.Values{"country": register.TextValue(country), "micro_enterprise": no}
	maps.Copy(values, v)
	return ProfileEntry{ID: uuid.New(), Country: country, Values: values}
}

// operatorOn is an assessment on the date in the Polish market (and any
// other given) with the profile entries.
func operatorOn(on time.Time, markets []Market, profile ...ProfileEntry) *Input {
	if markets == nil {
		markets = []Market{poland}
	}
	return &Input{On: on, Acts: Acts{}, Markets: markets, Profile: profile}
}

// operatorCase is one market's profile and what the rule answers there.
type operatorCase struct {
	name    string
	profile *ProfileEntry // nil: the country has no accepted entry
	outcome string
	reason  string
	args    []string
	missing []string
}

// check runs each case alone in the Polish market and checks the
// market's result, the rule's overall outcome (the only market's) and
// that every reason is a message in both languages.
func check(t *testing.T, code string, on time.Time, cases []operatorCase) {
	t.Helper()
	for _, c := range cases {
		var profile []ProfileEntry
		if c.profile != nil {
			profile = []ProfileEntry{*c.profile}
		}
		res := outcome(t, code, operatorOn(on, nil, profile...))
		require.Len(t, res.Markets, 1, c.name)
		m := res.Markets[0]
		assert.Equal(t, c.outcome, m.Outcome, "%s: %s", code, c.name)
		assert.Equal(t, c.outcome, res.Outcome, "%s: %s: the rule's outcome is its only market's", code, c.name)
		assert.Equal(t, c.reason, m.Reason, "%s: %s", code, c.name)
		if c.args != nil {
			assert.Equal(t, c.args, m.ReasonArgs, "%s: %s", code, c.name)
		}
		assert.Equal(t, c.missing, m.Missing, "%s: %s", code, c.name)
		assert.Equal(t, poland.ID, m.Market)
		assert.Equal(t, "PL", m.Country)
		if c.profile != nil {
			assert.Equal(t, []uuid.UUID{c.profile.ID}, m.Entries, "%s: %s: the market cites the profile entry it read", code, c.name)
		}
		if m.Reason != "" {
			for _, l := range []i18n.Locale{i18n.EN, i18n.PL} {
				assert.True(t, i18n.Has(l, m.Reason), "%s has no %s message", m.Reason, l)
			}
		}
	}
}

func entry(country string, v register.Values) *ProfileEntry { p := profileIn(country, v); return &p }

func withStations(p *ProfileEntry, n int) *ProfileEntry { p.RefillStations = n; return p }

func TestR47RefillNeedsStationsAndItsRulesTold(t *testing.T) {
	on := day("2026-08-12")
	assert.Equal(t, NotYetApplicable, outcome(t, "R47", operatorOn(day("2026-08-11"), nil)).Outcome)
	offered := register.Values{"refill_offered": yes, "refill_rules_published": yes}
	check(t, "R47", on, []operatorCase{
		{name: "no profile", outcome: InsufficientData, missing: []string{"compliance-profile@PL"}},
		{name: "refill not said", profile: withStations(entry("PL", nil), 1), outcome: InsufficientData,
			missing: []string{"compliance-profile.refill_offered@PL"}},
		{name: "no refill offered", profile: entry("PL", register.Values{"refill_offered": no}), outcome: NotApplicable, reason: "rules.no_refill_offered"},
		{name: "documented", profile: withStations(entry("PL", offered), 2), outcome: Pass, reason: "rules.refill_documented", args: []string{"2"}},
		{name: "no station", profile: entry("PL", offered), outcome: DocumentationMissing, reason: "rules.refill_undocumented",
			missing: []string{"refill-stations@PL"}},
		{name: "rules not told", profile: withStations(entry("PL", register.Values{"refill_offered": yes, "refill_rules_published": no}), 1),
			outcome: DocumentationMissing, reason: "rules.refill_undocumented", missing: []string{"compliance-profile.refill_rules_published@PL"}},
		{name: "nothing recorded", profile: entry("PL", register.Values{"refill_offered": yes}), outcome: DocumentationMissing,
			reason: "rules.refill_undocumented", missing: []string{"refill-stations@PL", "compliance-profile.refill_rules_published@PL"}},
	})
}

func TestR48ReportsTheRefillAreaEndeavourAsInformation(t *testing.T) {
	on := day("2030-01-01")
	assert.Equal(t, NotYetApplicable, outcome(t, "R48", operatorOn(day("2029-12-31"), nil)).Outcome)
	store := func(area string, extra register.Values) *ProfileEntry {
		v := register.Values{"final_distributor": yes, "sales_area": m2(area)}
		maps.Copy(v, extra)
		return withStations(entry("PL", v), 3)
	}
	check(t, "R48", on, []operatorCase{
		{name: "no profile: information, never incomplete", outcome: Informational, reason: "rules.information_needs_data",
			missing: []string{"compliance-profile@PL"}},
		{name: "role not said", profile: entry("PL", nil), outcome: Informational, reason: "rules.information_needs_data",
			missing: []string{"compliance-profile.final_distributor@PL"}},
		{name: "not a final distributor", profile: entry("PL", register.Values{"final_distributor": no}), outcome: NotApplicable,
			reason: "rules.not_final_distributor"},
		{name: "area not said", profile: entry("PL", register.Values{"final_distributor": yes}), outcome: Informational,
			reason: "rules.information_needs_data", missing: []string{"compliance-profile.sales_area@PL"}},
		{name: "just below", profile: store("399.99", nil), outcome: NotApplicable, reason: "rules.sales_area_at_most_400", args: []string{"399.99"}},
		{name: "at 400 m²", profile: store("400", nil), outcome: NotApplicable, reason: "rules.sales_area_at_most_400", args: []string{"400"}},
		{name: "just above", profile: store("400.01", register.Values{"refill_area": m2("12")}), outcome: Informational,
			reason: "rules.refill_area_endeavour", args: []string{"400.01", "40", "12", "3"}},
		{name: "refill area short of 10 per cent, still information", profile: store("1250", register.Values{"refill_area": m2("5")}),
			outcome: Informational, reason: "rules.refill_area_endeavour", args: []string{"1250", "125", "5", "3"}},
		{name: "refill area not recorded", profile: store("1250", nil), outcome: Informational, reason: "rules.refill_area_unrecorded",
			args: []string{"1250", "125", "3"}, missing: []string{"compliance-profile.refill_area@PL"}},
	})
	assert.False(t, CanFail(outcome(t, "R48", operatorOn(on, nil)).Outcome), "an endeavour never counts toward the status")
}

func TestR54ClassifiesTheExemptionsOfArticle29(t *testing.T) {
	on := day("2031-03-01") // the year classified is 2030, the last closed one
	assert.Equal(t, NotYetApplicable, outcome(t, "R54", operatorOn(day("2029-12-31"), nil)).Outcome)
	micro := func(grams string) *ProfileEntry {
		p := entry("PL", register.Values{"micro_enterprise": yes, "final_distributor": no})
		p.PlacedMassG = map[int]decimal.Decimal{2029: decimal.NewFromInt(1), 2030: decimal.RequireFromString(grams)}
		return p
	}
	shop := func(area string) *ProfileEntry {
		return entry("PL", register.Values{"final_distributor": yes, "sales_area": m2(area)})
	}
	largeMicroShop := shop("50")
	largeMicroShop.Values["micro_enterprise"] = yes
	largeMicroShop.PlacedMassG = map[int]decimal.Decimal{2030: decimal.NewFromInt(2_000_000)}
	check(t, "R54", on, []operatorCase{
		{name: "no profile", outcome: InsufficientData, missing: []string{"compliance-profile@PL"}},
		{name: "micro just below 1 000 kg", profile: micro("999999"), outcome: Pass, reason: "rules.exempt_29_13", args: []string{"2030", "999.999"}},
		{name: "micro at 1 000 kg", profile: micro("1000000"), outcome: Pass, reason: "rules.exempt_29_13", args: []string{"2030", "1000"}},
		{name: "micro just above 1 000 kg", profile: micro("1000000.01"), outcome: NotApplicable, reason: "rules.no_article_29_exemption"},
		{name: "micro without the year's flows", profile: entry("PL", register.Values{"micro_enterprise": yes}), outcome: InsufficientData,
			reason: "rules.micro_enterprise_mass_unknown", args: []string{"2030"}, missing: []string{"flows@PL"}},
		{name: "role not said", profile: entry("PL", nil), outcome: InsufficientData, missing: []string{"compliance-profile.final_distributor@PL"}},
		{name: "not a final distributor", profile: entry("PL", register.Values{"final_distributor": no}), outcome: NotApplicable,
			reason: "rules.no_article_29_exemption"},
		{name: "area not said", profile: entry("PL", register.Values{"final_distributor": yes}), outcome: InsufficientData,
			missing: []string{"compliance-profile.sales_area@PL"}},
		{name: "just below 100 m²", profile: shop("99.99"), outcome: Pass, reason: "rules.exempt_29_10", args: []string{"99.99"}},
		{name: "at 100 m²", profile: shop("100"), outcome: Pass, reason: "rules.exempt_29_10", args: []string{"100"}},
		{name: "just above 100 m²", profile: shop("100.01"), outcome: NotApplicable, reason: "rules.no_article_29_exemption"},
		{name: "micro above 1 000 kg with a small shop", profile: largeMicroShop, outcome: Pass, reason: "rules.exempt_29_10", args: []string{"50"}},
	})
	assert.Equal(t, 2030, ReuseYear(on))
}

// horeca is the Polish profile of a HORECA final distributor of take-away
// food or drinks.
func horeca(extra register.Values) *ProfileEntry {
	v := register.Values{"final_distributor": yes, "horeca_takeaway": yes}
	maps.Copy(v, extra)
	return entry("PL", v)
}

func TestR56BringYourOwnContainer(t *testing.T) {
	on := day("2027-02-12")
	assert.Equal(t, NotYetApplicable, outcome(t, "R56", operatorOn(day("2027-02-11"), nil)).Outcome)
	check(t, "R56", on, []operatorCase{
		{name: "no profile", outcome: InsufficientData, missing: []string{"compliance-profile@PL"}},
		{name: "sector not said", profile: entry("PL", nil), outcome: InsufficientData, missing: []string{"compliance-profile.horeca_takeaway@PL"}},
		{name: "not HORECA take-away", profile: entry("PL", register.Values{"horeca_takeaway": no}), outcome: NotApplicable, reason: "rules.not_horeca_takeaway"},
		{name: "offer not said", profile: horeca(nil), outcome: InsufficientData, missing: []string{"compliance-profile.byo_container_offered@PL"}},
		{name: "not offered", profile: horeca(register.Values{"byo_container_offered": no}), outcome: Fail, reason: "rules.byo_not_offered"},
		{name: "offered without its policy", profile: horeca(register.Values{"byo_container_offered": yes}), outcome: DocumentationMissing,
			missing: []string{"compliance-profile.byo_policy@PL"}},
		{name: "offered with its policy", profile: horeca(register.Values{"byo_container_offered": yes, "byo_policy": register.IDValue(uuid.New())}),
			outcome: Pass},
	})
}

func TestR57ReuseOfferForTakeAway(t *testing.T) {
	on := day("2028-02-12")
	assert.Equal(t, NotYetApplicable, outcome(t, "R57", operatorOn(day("2028-02-11"), nil)).Outcome)
	offering := horeca(register.Values{"reuse_offer_takeaway": yes, "takeaway_reuse_system": register.TextValue("KUBEK-PL")})
	check(t, "R57", on, []operatorCase{
		{name: "no profile", outcome: InsufficientData, missing: []string{"compliance-profile@PL"}},
		{name: "not HORECA take-away", profile: entry("PL", register.Values{"horeca_takeaway": no}), outcome: NotApplicable, reason: "rules.not_horeca_takeaway"},
		{name: "micro-enterprise", profile: horeca(register.Values{"micro_enterprise": yes, "reuse_offer_takeaway": no}), outcome: NotApplicable,
			reason: "rules.micro_enterprise_33"},
		{name: "offer not said", profile: horeca(nil), outcome: InsufficientData, missing: []string{"compliance-profile.reuse_offer_takeaway@PL"}},
		{name: "no offer", profile: horeca(register.Values{"reuse_offer_takeaway": no}), outcome: Fail, reason: "rules.reuse_offer_missing"},
		{name: "offer without its system", profile: horeca(register.Values{"reuse_offer_takeaway": yes}), outcome: DocumentationMissing,
			missing: []string{"compliance-profile.takeaway_reuse_system@PL"}},
		{name: "offer within a system", profile: offering, outcome: Pass, reason: "rules.reuse_offer_made", args: []string{"KUBEK-PL"}},
	})
	check(t, "R57", day("2030-01-01"), []operatorCase{
		{name: "the 10 per cent endeavour from 2030 is information in the reason", profile: offering, outcome: Pass,
			reason: "rules.reuse_offer_endeavour", args: []string{"KUBEK-PL"}},
	})
}

// An operator rule answers in each market of the assessment from that
// country's profile entry; its outcome is the worst of the markets'.
func TestOperatorRulesAnswerPerMarketAndTheWorstCounts(t *testing.T) {
	on := day("2027-02-12")
	pl := profileIn("PL", register.Values{"horeca_takeaway": yes, "final_distributor": yes, "byo_container_offered": yes,
		"byo_policy": register.IDValue(uuid.New())})
	de := profileIn("DE", register.Values{"horeca_takeaway": no})
	both := []Market{poland, germany}

	res := outcome(t, "R56", operatorOn(on, both, pl, de))
	assert.Equal(t, Pass, res.Outcome, "met in Poland, not applicable in Germany")
	require.Len(t, res.Markets, 2)
	assert.Equal(t, []string{Pass, NotApplicable}, []string{res.Markets[0].Outcome, res.Markets[1].Outcome})
	assert.Equal(t, []uuid.UUID{pl.ID, de.ID}, res.Entries)

	res = outcome(t, "R56", operatorOn(on, both, pl))
	assert.Equal(t, InsufficientData, res.Outcome, "Germany has no accepted profile entry")
	assert.Equal(t, germany.ID, res.Markets[1].Market)
	assert.Equal(t, []string{"compliance-profile@DE"}, res.Markets[1].Missing)

	de.Values["horeca_takeaway"] = yes
	de.Values["final_distributor"] = yes
	de.Values["byo_container_offered"] = no
	res = outcome(t, "R56", operatorOn(on, both, pl, de))
	assert.Equal(t, Fail, res.Outcome, "a failure in one market fails the rule")
	assert.Equal(t, "rules.byo_not_offered", res.Reason, "with the failing market's reason")

	res = outcome(t, "R56", &Input{On: on, Acts: Acts{}, Profile: []ProfileEntry{pl}})
	assert.Equal(t, InsufficientData, res.Outcome, "an assessment without a market cannot say whose obligation it is")
	assert.Equal(t, []string{"markets"}, res.Missing)
}
