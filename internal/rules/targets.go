package rules

import (
	"slices"
	"strconv"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/register"
)

// The operator's obligations of Arts 28(5) and 29-33: refill space, the
// re-use targets and their report, HORECA duties. They bind the
// organization, not the item, and read its compliance profile and the
// year's flows and re-use statistics per market.

// ProfileEntry is the organization's accepted compliance-profile entry
// for one Member State: the facts about the operator that the operator
// rules read (declared by register.ComplianceProfile).
type ProfileEntry struct {
	ID      uuid.UUID
	Country string
	Values  register.Values
	// RefillStations counts the refill stations the organization records
	// in the country (R47, R48).
	RefillStations int
	// PlacedMassG is, for a micro-enterprise, the mass of packaging the
	// organization placed on the country's market in each calendar year,
	// from its flows (Art. 29(13), R54); nil for other operators.
	PlacedMassG map[int]decimal.Decimal
}

// profile is the accepted profile entry for a country.
func (in *Input) profile(country string) (ProfileEntry, bool) {
	i := slices.IndexFunc(in.Profile, func(p ProfileEntry) bool { return p.Country == country })
	if i < 0 {
		return ProfileEntry{}, false
	}
	return in.Profile[i], true
}

// The Art. 29(1) share is demonstrated from 1 January 2030 or 18 months
// after the Art. 30(3) method act enters into force, whichever is later
// (Art. 30(4)).
var reuseTargetDemonstration = Start{Fixed: day("2030-01-01"), Act: "reuse_equivalent_units_method", OffsetMonths: 18}

var targetRules = []Rule{
	{Code: "R48", Article: "Art. 28(5)", RuleSet: "reusable_packaging", Check: Information, Level: OperatorLevel, Start: from2030,
		Reads: []string{"compliance profile", "refill stations"}, eval: refillArea},
	{Code: "R49", Article: "Art. 29(1), 30(4)", RuleSet: "reuse_targets", Check: PassFail, Level: OperatorLevel, Start: reuseTargetDemonstration,
		Reads: []string{"compliance profile", "flows", ReuseStatistics, "packaging-classification"}, eval: transportShare.eval},
	{Code: "R50", Article: "Art. 29(2), 29(3)", RuleSet: "reuse_targets", Check: PassFail, Level: OperatorLevel, Start: from2030,
		Reads: []string{"compliance profile", "flows", ReuseStatistics, "packaging-classification"}, eval: intraGroupShare.eval},
	{Code: "R51", Article: "Art. 29(4)", RuleSet: "reuse_targets", Check: Classification, Start: from2030,
		Reads: []string{"packaging-classification"}, eval: reuseTargetExemption},
	{Code: "R52", Article: "Art. 29(5)", RuleSet: "reuse_targets", Check: PassFail, Level: OperatorLevel, Start: from2030,
		Reads: []string{"compliance profile", "flows", ReuseStatistics, "packaging-classification"}, eval: groupedBoxShare.eval},
	{Code: "R53", Article: "Art. 29(6), 29(7)", RuleSet: "reuse_targets", Check: PassFail, Level: OperatorLevel, Start: from2030,
		Reads: []string{"compliance profile", "flows", ReuseStatistics, "packaging-classification"}, eval: beverageShare.eval},
	{Code: "R54", Article: "Art. 29(10), 29(13)", RuleSet: "reuse_targets", Check: Classification, Level: OperatorLevel, Start: from2030,
		Reads: []string{"compliance profile", "flows"}, eval: article29Exemptions},
	{Code: "R55", Article: "Art. 31", RuleSet: "reuse_targets", Check: Documentation, Level: OperatorLevel, Start: Start{Fixed: day("2031-01-01")},
		Reads: []string{"compliance profile"}, eval: reuseReport},
	{Code: "R56", Article: "Art. 32", RuleSet: "horeca", Check: Documentation, Level: OperatorLevel, Start: Start{Fixed: day("2027-02-12")},
		Reads: []string{"compliance profile"}, eval: bringYourOwn},
	{Code: "R57", Article: "Art. 33", RuleSet: "horeca", Check: Documentation, Level: OperatorLevel, Start: from2028Feb,
		Reads: []string{"compliance profile", "re-use systems"}, eval: reuseOffer},
}

// operator evaluates an operator rule in each market from the country's
// accepted profile entry, which the market's result cites; a market
// without one cannot be evaluated.
func operator(in *Input, eval func(p ProfileEntry) MarketResult) Result {
	return byMarket(in, func(m Market) MarketResult {
		p, ok := in.profile(m.Country)
		if !ok {
			return MarketResult{Outcome: InsufficientData, Missing: []string{"compliance-profile@" + m.Country}}
		}
		mr := eval(p)
		mr.Entries = append(mr.Entries, p.ID)
		return mr
	})
}

// profileValue names a value of the country's profile entry in Missing.
func (p ProfileEntry) profileValue(field string) string {
	return "compliance-profile." + field + "@" + p.Country
}

// unknown is the market's result when the profile leaves a value out.
func (p ProfileEntry) unknown(field string) MarketResult {
	return MarketResult{Outcome: InsufficientData, Missing: []string{p.profileValue(field)}}
}

// flag is a yes/no value of the profile entry and whether it is known.
func (p ProfileEntry) flag(field string) (value, known bool) {
	return p.Values.Bool(field), p.Values.Has(field)
}

// scoped is the market's result when the profile's flag says the
// obligation does not bind the operator there (not applicable, with the
// reason) or does not say; nil when it binds.
func (p ProfileEntry) scoped(flag, reason string) *MarketResult {
	value, known := p.flag(flag)
	switch {
	case !known:
		out := p.unknown(flag)
		return &out
	case !value:
		return &MarketResult{Outcome: NotApplicable, Reason: reason}
	}
	return nil
}

// salesArea is a final distributor's sales area, or the market's result
// when the operator is none (not applicable, with notFinal) or the
// profile does not say.
func (p ProfileEntry) salesArea(notFinal string) (decimal.Decimal, *MarketResult) {
	if out := p.scoped("final_distributor", notFinal); out != nil {
		return decimal.Zero, out
	}
	area, ok := p.Values.Quantity("sales_area")
	if !ok {
		out := p.unknown("sales_area")
		return area, &out
	}
	return area, nil
}

// informational turns an information rule's result into information
// wherever it could not be shown met: an endeavour never fails nor
// leaves an assessment incomplete, it reports what is missing.
func informational(res Result) Result {
	convert := func(outcome, reason *string) {
		if CanFail(*outcome) {
			*outcome = Informational
			if *reason == "" {
				*reason = "rules.information_needs_data"
			}
		}
	}
	convert(&res.Outcome, &res.Reason)
	for i := range res.Markets {
		convert(&res.Markets[i].Outcome, &res.Markets[i].Reason)
	}
	return res
}

// Art. 28(5): a final distributor with a sales area above 400 m²
// endeavours to dedicate 10 per cent of it to refill stations.
var (
	refillSalesAreaAbove = decimal.NewFromInt(400)
	refillAreaShare      = decimal.NewFromInt(10) // per cent
)

// refillArea reports, in each market, the refill area a large final
// distributor endeavours to reach beside the one it records: information,
// never a pass or a failure.
func refillArea(in *Input) Result {
	return informational(operator(in, func(p ProfileEntry) MarketResult {
		area, out := p.salesArea("rules.not_final_distributor")
		switch {
		case out != nil:
			return *out
		case !area.GreaterThan(refillSalesAreaAbove):
			return MarketResult{Outcome: NotApplicable, Reason: "rules.sales_area_at_most_400", ReasonArgs: []string{area.String()}}
		}
		target := area.Mul(refillAreaShare).Div(hundred).Round(2).String()
		stations := itoa(p.RefillStations)
		refill, ok := p.Values.Quantity("refill_area")
		if !ok {
			return MarketResult{Outcome: Informational, Reason: "rules.refill_area_unrecorded", ReasonArgs: []string{area.String(), target, stations},
				Missing: []string{p.profileValue("refill_area")}}
		}
		return MarketResult{Outcome: Informational, Reason: "rules.refill_area_endeavour", ReasonArgs: []string{area.String(), target, refill.String(), stations}}
	}))
}

// The exemptions of Art. 29 (ppwr-facts §1.1 row R54): a micro-enterprise
// that made at most 1 000 kg of packaging available in the Member State
// in the year is exempt from every target (29(13)); a final distributor
// with a sales area of at most 100 m² from the beverage target of 29(6)
// (29(10)).
var (
	microEnterpriseMassG = decimal.NewFromInt(1_000_000)
	smallSalesAreaM2     = decimal.NewFromInt(100)
)

// article29Exemptions classifies the operator in each market under the
// exemptions of Art. 29: every target, the beverage target only, or
// none.
func article29Exemptions(in *Input) Result {
	year := ReuseYear(in.On)
	return operator(in, func(p ProfileEntry) MarketResult {
		if r := microExemption(p, year); r != nil {
			return *r
		}
		area, out := p.salesArea("rules.no_article_29_exemption")
		switch {
		case out != nil:
			return *out
		case !area.GreaterThan(smallSalesAreaM2):
			return MarketResult{Outcome: Pass, Reason: "rules.exempt_29_10", ReasonArgs: []string{area.String()}}
		}
		return MarketResult{Outcome: NotApplicable, Reason: "rules.no_article_29_exemption"}
	})
}

// microExemption is Art. 29(13)'s exemption from every Art. 29 target
// of a micro-enterprise that made at most 1,000 kg of packaging available
// in the Member State in the year: the market's result when the operator
// is one (exempt, or its mass unknown), nil when it is not exempt.
func microExemption(p ProfileEntry, year int) *MarketResult {
	if micro, _ := p.flag("micro_enterprise"); !micro {
		return nil
	}
	mass, ok := p.PlacedMassG[year]
	switch {
	case !ok:
		return &MarketResult{Outcome: InsufficientData, Missing: []string{"flows@" + p.Country}, Reason: "rules.micro_enterprise_mass_unknown",
			ReasonArgs: []string{itoa(year)}}
	case !mass.GreaterThan(microEnterpriseMassG):
		return &MarketResult{Outcome: Pass, Reason: "rules.exempt_29_13", ReasonArgs: []string{itoa(year), kilograms(mass)}}
	}
	return nil
}

// kilograms renders a mass in grams in kilograms.
func kilograms(g decimal.Decimal) string { return g.Div(decimal.NewFromInt(1000)).Round(3).String() }

// bringYourOwn checks, in each market, that a HORECA final distributor of
// take-away food or drinks lets customers bring their own container at no
// higher price (Art. 32), with its written policy.
func bringYourOwn(in *Input) Result {
	return operator(in, func(p ProfileEntry) MarketResult {
		if out := p.scoped("horeca_takeaway", "rules.not_horeca_takeaway"); out != nil {
			return *out
		}
		if out := p.offered("byo_container_offered", "rules.byo_not_offered", "byo_policy"); out != nil {
			return *out
		}
		return MarketResult{Outcome: Pass}
	})
}

// offered is the market's result unless the profile says the operator
// makes the offer its flag names, with the value that documents it: not
// said, a failure with the reason, or documentation missing; nil when
// the offer is made and documented.
func (p ProfileEntry) offered(flag, failReason, documentedBy string) *MarketResult {
	made, known := p.flag(flag)
	switch {
	case !known:
		out := p.unknown(flag)
		return &out
	case !made:
		return &MarketResult{Outcome: Fail, Reason: failReason}
	case !p.Values.Has(documentedBy):
		return &MarketResult{Outcome: DocumentationMissing, Missing: []string{p.profileValue(documentedBy)}}
	}
	return nil
}

// reuseOfferEndeavour: from 2030 a HORECA take-away operator endeavours
// to offer 10 per cent of its products in reusable packaging (Art. 33).
var reuseOfferEndeavour = day("2030-01-01")

// reuseOffer checks, in each market, that a HORECA take-away operator
// that is not a micro-enterprise offers its food and drinks in reusable
// packaging within a re-use system (Art. 33); the 10 per cent it
// endeavours to reach from 2030 is information in the reason.
func reuseOffer(in *Input) Result {
	return operator(in, func(p ProfileEntry) MarketResult {
		if out := p.scoped("horeca_takeaway", "rules.not_horeca_takeaway"); out != nil {
			return *out
		}
		if micro, _ := p.flag("micro_enterprise"); micro {
			return MarketResult{Outcome: NotApplicable, Reason: "rules.micro_enterprise_33"}
		}
		if out := p.offered("reuse_offer_takeaway", "rules.reuse_offer_missing", "takeaway_reuse_system"); out != nil {
			return *out
		}
		system := p.Values.String("takeaway_reuse_system")
		if in.On.Before(reuseOfferEndeavour) {
			return MarketResult{Outcome: Pass, Reason: "rules.reuse_offer_made", ReasonArgs: []string{system}}
		}
		return MarketResult{Outcome: Pass, Reason: "rules.reuse_offer_endeavour", ReasonArgs: []string{system}}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
