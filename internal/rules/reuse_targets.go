package rules

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/register"
)

// The re-use targets of Art. 29 (R49-R53) and their report (R55). They
// bind the operator in each Member State, so each market of the
// assessment is measured on its own: the compliance profile says whether
// the operator is bound there, and the year's flows in that country give
// the share. The share is the one the re-use statistics compute
// (GET /ppwr/reuse-statistics), split by the flows' country; the domain
// loads it, and ReusableShare and YearStatus are the computation both
// use.

// ReuseStatistics names, in Reads, the year's re-use statistics per
// Member State; the domain loads them only when a rule reading them
// applies on the date.
const ReuseStatistics = "reuse statistics"

// ReuseShare is what the re-use statistics count of one Art. 29 format in
// one Member State in the year the targets measure: units in pieces of
// the flows of reusable and of single-use packaging, exempt items apart.
type ReuseShare struct {
	Country   string
	Format    string
	Reusable  decimal.Decimal
	SingleUse decimal.Decimal
}

// ReuseYear is the year the re-use targets measure on a date: the last
// closed calendar year. A target is annual (Art. 29-30) and a running
// year's share shows nothing yet; the report of Art. 31 is made of closed
// years too.
func ReuseYear(on time.Time) int { return on.Year() - 1 }

// ReadOn reports whether a rule reading what applies on the date (after
// the act it waits for, if any, is in force): the domain loads an input
// that costs a query over the organization only then.
func ReadOn(what string, on time.Time, acts Acts) bool {
	return slices.ContainsFunc(All, func(r Rule) bool {
		from, pending := r.Start.From(acts)
		return slices.Contains(r.Reads, what) && !pending && !on.Before(from)
	})
}

// Kinds of re-use target.
const (
	TargetBinding = "binding"
	// TargetEndeavour: the operator shall endeavour to reach it; it is
	// information, never a failure.
	TargetEndeavour = "endeavour"
)

// Statuses of a year's share against a target.
const (
	TargetMet           = "met"
	TargetNotMet        = "not_met"
	TargetNotApplicable = "not_applicable" // the year is before the target applies
	TargetNoData        = "no_data"
)

// TargetStatuses are every status, for the API's enumeration.
var TargetStatuses = []string{TargetMet, TargetNotMet, TargetNotApplicable, TargetNoData}

// ReuseTarget is a share Art. 29 sets, with the date it applies from.
type ReuseTarget struct {
	Article string
	Percent decimal.Decimal
	Kind    string
	Start   Start
}

// The formats of Art. 29(5) and 29(6); every other Art. 29 format is a
// transport format of Art. 29(1).
const (
	groupedBox        = "grouped_box"
	beverageContainer = "beverage_container"
)

var from2040 = Start{Fixed: day("2040-01-01")}

// The Art. 29 targets (ppwr-facts §1.1 rows R49, R50, R52, R53).
var (
	transportTargets = []ReuseTarget{
		{Article: "Art. 29(1), Art. 30(4)", Percent: decimal.NewFromInt(40), Kind: TargetBinding, Start: reuseTargetDemonstration},
		{Article: "Art. 29(1)", Percent: decimal.NewFromInt(70), Kind: TargetEndeavour, Start: from2040},
	}
	groupedBoxTargets = []ReuseTarget{
		{Article: "Art. 29(5)", Percent: decimal.NewFromInt(10), Kind: TargetBinding, Start: from2030},
		{Article: "Art. 29(5)", Percent: decimal.NewFromInt(25), Kind: TargetEndeavour, Start: from2040},
	}
	beverageTargets = []ReuseTarget{
		{Article: "Art. 29(6)", Percent: decimal.NewFromInt(10), Kind: TargetBinding, Start: from2030},
		{Article: "Art. 29(6)", Percent: decimal.NewFromInt(40), Kind: TargetEndeavour, Start: from2040},
	}
	// intraGroupTargets: the transport formats moved between the
	// operator's own or linked sites, or delivered to another operator in
	// the same Member State, are all reusable (Art. 29(2)-(3)).
	intraGroupTargets = []ReuseTarget{
		{Article: "Art. 29(2), 29(3)", Percent: decimal.NewFromInt(100), Kind: TargetBinding, Start: from2030},
	}
)

// ReuseTargets are the targets of an Art. 29 format: those of 29(1) for a
// transport format, of 29(5) for grouped boxes, of 29(6) for beverage
// containers.
func ReuseTargets(format string) []ReuseTarget {
	switch format {
	case groupedBox:
		return groupedBoxTargets
	case beverageContainer:
		return beverageTargets
	}
	return transportTargets
}

// ReusableShare is the reusable share of the units counted, in per cent
// to two decimals; nil when none is counted.
func ReusableShare(reusable, singleUse decimal.Decimal) *decimal.Decimal {
	total := reusable.Add(singleUse)
	if !total.IsPositive() {
		return nil
	}
	share := reusable.Mul(hundred).Div(total).Round(2)
	return &share
}

// YearStatus places a year's share against the target, with the date the
// target applies from and whether that date waits for a pending act. The
// targets are annual, so a year is measured only when the target applies
// from its first day; a start that waits for a pending act is
// not_applicable.
func (t ReuseTarget) YearStatus(share *decimal.Decimal, year int, acts Acts) (status string, from time.Time, provisional bool) {
	from, provisional = t.Start.From(acts)
	switch {
	case provisional || time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Before(from):
		return TargetNotApplicable, from, provisional
	case share == nil:
		return TargetNoData, from, provisional
	case share.GreaterThanOrEqual(t.Percent):
		return TargetMet, from, provisional
	}
	return TargetNotMet, from, provisional
}

// scope decides from the operator's profile entry in a country whether a
// re-use target binds it there: the reason it does not, or the profile
// values missing to decide.
type scope func(p register.Values) (exemptReason string, missing []string)

// flagged binds the operators whose profile sets the flag.
func flagged(flag, reason string) scope {
	return func(p register.Values) (string, []string) {
		switch {
		case !p.Has(flag):
			return "", []string{flag}
		case !p.Bool(flag):
			return reason, nil
		}
		return "", nil
	}
}

// smallSalesArea: a final distributor with a sales area of at most 100 m²
// is exempt from Art. 29(6) (ppwr-facts §1.1 row R54).
var smallSalesArea = decimal.NewFromInt(100)

func beverageDistributor(p register.Values) (string, []string) {
	if reason, missing := flagged("beverage_final_distributor", "rules.not_beverage_final_distributor")(p); reason != "" || missing != nil {
		return reason, missing
	}
	area, ok := p.Quantity("sales_area")
	switch {
	case !ok:
		return "", []string{"sales_area"}
	case area.LessThanOrEqual(smallSalesArea):
		return "rules.sales_area_100", nil
	}
	return "", nil
}

// bound reads the country's profile entry for a target: the market's
// result when the target does not bind the operator there or cannot be
// decided, nil when it binds. A micro-enterprise is bound by none
// (Art. 29(13); R54 classifies the exemption).
func bound(in *Input, country string, s scope) (ProfileEntry, *MarketResult) {
	p, ok := in.profile(country)
	if !ok {
		return p, &MarketResult{Outcome: InsufficientData, Missing: []string{"compliance-profile@" + country}}
	}
	used := []uuid.UUID{p.ID}
	if !p.Values.Has("micro_enterprise") {
		return p, &MarketResult{Outcome: InsufficientData, Missing: []string{"compliance-profile.micro_enterprise@" + country}, Entries: used}
	}
	if r := microExemption(p, ReuseYear(in.On)); r != nil {
		r.Entries = used
		if r.Outcome == Pass { // exempt: the target does not bind it
			r.Outcome = NotApplicable
		}
		return p, r
	}
	reason, missing := s(p.Values)
	switch {
	case missing != nil:
		named := make([]string, len(missing))
		for i, v := range missing {
			named[i] = "compliance-profile." + v + "@" + country
		}
		return p, &MarketResult{Outcome: InsufficientData, Missing: named, Entries: used}
	case reason != "":
		return p, &MarketResult{Outcome: NotApplicable, Reason: reason, Entries: used}
	}
	return p, nil
}

// transportFormats are the formats of Art. 29(1).
func transportFormats() []string {
	return slices.DeleteFunc(slices.Clone(register.Article29Formats), func(f string) bool { return f == groupedBox || f == beverageContainer })
}

// palletWrapsAndStraps are the transport formats a delegated act
// (2026/429, known from a secondary source only: ppwr-facts §1.7, §7)
// would exempt from Art. 29(2)-(3). Unverified, so they are counted, and
// a shortfall in them says so.
var palletWrapsAndStraps = []string{"pallet_wrap", "strap"}

// shareTarget is a re-use target measured over formats in each market:
// the share of all of them together ("of such packaging in total", Art.
// 29(1)) in the year ReuseYear gives, against the binding target, the
// endeavour target being information.
type shareTarget struct {
	scope   scope
	formats []string
	targets []ReuseTarget // the binding one first
	// belowReason is the market's reason when the share falls short.
	belowReason func(units map[string]ReuseShare) string
}

func (t shareTarget) eval(in *Input) Result {
	year := ReuseYear(in.On)
	if status, from, _ := t.targets[0].YearStatus(nil, year, in.Acts); status == TargetNotApplicable {
		return Result{Outcome: NotApplicable, Reason: "rules.reuse_year_not_measured", ReasonArgs: []string{strconv.Itoa(year), from.Format(time.DateOnly)}}
	}
	var shares []string
	endeavourShort := false
	res := byMarket(in, func(m Market) MarketResult {
		p, decided := bound(in, m.Country, t.scope)
		if decided != nil {
			return *decided
		}
		used := []uuid.UUID{p.ID}
		units := map[string]ReuseShare{}
		var reusable, singleUse decimal.Decimal
		for _, s := range in.ReuseShares {
			if s.Country == m.Country && slices.Contains(t.formats, s.Format) {
				units[s.Format] = s
				reusable, singleUse = reusable.Add(s.Reusable), singleUse.Add(s.SingleUse)
			}
		}
		share := ReusableShare(reusable, singleUse)
		status, _, _ := t.targets[0].YearStatus(share, year, in.Acts)
		if status == TargetNoData {
			return MarketResult{Outcome: InsufficientData, Missing: []string{"flows@" + m.Country}, Entries: used}
		}
		shares = append(shares, m.Country+" "+share.String())
		for _, e := range t.targets[1:] {
			if s, _, _ := e.YearStatus(share, year, in.Acts); s == TargetNotMet {
				endeavourShort = true
			}
		}
		if status == TargetNotMet {
			return MarketResult{Outcome: Fail, Reason: t.belowReason(units), Entries: used}
		}
		return MarketResult{Outcome: Pass, Entries: used}
	})
	args := []string{strconv.Itoa(year), t.targets[0].Percent.String(), strings.Join(shares, ", ")}
	switch {
	case res.Outcome == Fail:
		res.Reason, res.ReasonArgs = "rules.reuse_share_below_target", args
	case res.Outcome == Pass && endeavourShort:
		res.Reason, res.ReasonArgs = "rules.reuse_share_below_endeavour", append(args, t.targets[1].Percent.String())
	case res.Outcome == Pass:
		res.Reason, res.ReasonArgs = "rules.reuse_share_met", args
	}
	return res
}

func below(reason string) func(map[string]ReuseShare) string {
	return func(map[string]ReuseShare) string { return reason }
}

// The four targets, each with its scope.
var (
	transportShare = shareTarget{scope: flagged("transport_packaging_user", "rules.not_transport_packaging_user"),
		formats: transportFormats(), targets: transportTargets, belowReason: below("rules.reuse_share_below")}
	intraGroupShare = shareTarget{scope: flagged("intra_group_or_same_country_transport", "rules.no_intra_group_transport"),
		formats: transportFormats(), targets: intraGroupTargets, belowReason: func(units map[string]ReuseShare) string {
			for _, f := range palletWrapsAndStraps {
				if units[f].SingleUse.IsPositive() {
					return "rules.reuse_share_below_wraps_counted"
				}
			}
			return "rules.reuse_share_below"
		}}
	groupedBoxShare = shareTarget{scope: flagged("grouped_box_user", "rules.not_grouped_box_user"),
		formats: []string{groupedBox}, targets: groupedBoxTargets, belowReason: below("rules.reuse_share_below")}
	beverageShare = shareTarget{scope: beverageDistributor,
		formats: []string{beverageContainer}, targets: beverageTargets, belowReason: below("rules.reuse_share_below")}
)

// reuseTargetExemption classifies the item under Art. 29(4): the
// packaging it lists is outside the transport targets.
func reuseTargetExemption(in *Input) Result {
	c, ok := in.classified()
	switch {
	case !ok:
		return Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	case exempt(c, "29(4)"):
		return Result{Outcome: Pass, Reason: "rules.exempt_29_4", Entries: []uuid.UUID{c.ID}}
	}
	return notApplicable("rules.no_exemption_29_4", c)
}

// The year's re-use data is reported within six months of its end (Art.
// 31); 2030 is the first year (ppwr-facts §6.2).
const (
	reportMonths    = 6
	firstReportYear = 2030
)

// reportDue is the last day a year's report is due by.
func reportDue(year int) time.Time {
	// Day 0 of a month is the last day of the month before.
	return time.Date(year+1, time.January+reportMonths, 0, 0, 0, 0, 0, time.UTC)
}

// reuseReport checks, in each market where a re-use target binds the
// operator, the report of the last year whose due date has passed.
func reuseReport(in *Input) Result {
	year := in.On.Year() - 1
	if !in.On.After(reportDue(year)) {
		year--
	}
	if year < firstReportYear {
		return Result{Outcome: NotApplicable, Reason: "rules.reuse_report_not_due",
			ReasonArgs: []string{strconv.Itoa(firstReportYear), reportDue(firstReportYear).Format(time.DateOnly)}}
	}
	due := reportDue(year)
	res := byMarket(in, func(m Market) MarketResult {
		p, decided := bound(in, m.Country, anyTarget)
		if decided != nil {
			return *decided
		}
		mr := MarketResult{Entries: []uuid.UUID{p.ID}}
		i := slices.IndexFunc(p.Values.List("reuse_reports"), func(r register.Values) bool { y, ok := r.Int("year"); return ok && y == year })
		if i < 0 {
			mr.Outcome, mr.Reason, mr.Missing = DocumentationMissing, "rules.reuse_report_missing", []string{"compliance-profile.reuse_reports@" + m.Country}
			return mr
		}
		report := p.Values.List("reuse_reports")[i]
		submitted, ok := report.Date("submitted_on")
		switch {
		case !ok:
			mr.Outcome, mr.Missing = DocumentationMissing, []string{"compliance-profile.reuse_reports.submitted_on@" + m.Country}
		case submitted.After(due):
			mr.Outcome, mr.Reason = Fail, "rules.reuse_report_late"
		case !report.Has("document"):
			mr.Outcome, mr.Missing = DocumentationMissing, []string{"compliance-profile.reuse_reports.document@" + m.Country}
		default:
			mr.Outcome = Pass
		}
		return mr
	})
	if res.Outcome == Pass {
		res.Reason, res.ReasonArgs = "rules.reuse_report_made", []string{strconv.Itoa(year), due.Format(time.DateOnly)}
	}
	return res
}

// anyTarget binds the operator when one of the re-use targets does; it
// needs only the values that decide.
func anyTarget(p register.Values) (string, []string) {
	var missing []string
	for _, t := range []shareTarget{transportShare, intraGroupShare, groupedBoxShare, beverageShare} {
		reason, lacks := t.scope(p)
		if reason == "" && lacks == nil {
			return "", nil
		}
		missing = append(missing, lacks...)
	}
	if missing != nil {
		return "", missing
	}
	return "rules.not_bound_by_reuse_target", nil
}
