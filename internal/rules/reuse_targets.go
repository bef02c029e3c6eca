package rules

import (
	"time"

	"github.com/shopspring/decimal"
)

// The re-use targets of Art. 29: the re-use statistics and the target
// rules measure a year's share against them alike.

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
