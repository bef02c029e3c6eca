package rules

import (
	"slices"

	"github.com/google/uuid"

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
		Reads: []string{"compliance profile", "refill stations"}},
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
		Reads: []string{"compliance profile", "flows"}},
	{Code: "R55", Article: "Art. 31", RuleSet: "reuse_targets", Check: Documentation, Level: OperatorLevel, Start: Start{Fixed: day("2031-01-01")},
		Reads: []string{"compliance profile"}, eval: reuseReport},
	{Code: "R56", Article: "Art. 32", RuleSet: "horeca", Check: Documentation, Level: OperatorLevel, Start: Start{Fixed: day("2027-02-12")},
		Reads: []string{"compliance profile"}},
	{Code: "R57", Article: "Art. 33", RuleSet: "horeca", Check: Documentation, Level: OperatorLevel, Start: from2028Feb,
		Reads: []string{"compliance profile", "re-use systems"}},
}
