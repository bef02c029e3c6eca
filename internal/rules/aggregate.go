package rules

import "strings"

// R01 is the aggregate of the item's own rules: only packaging that meets
// the Regulation may be placed on the market (Art. 4(1), 15(1), 18(1)).
// The operator's obligations bind the organization, not the packaging,
// and information never passes or fails, so neither counts.

var aggregateRules = []Rule{
	{Code: "R01", Article: "Art. 4(1), 15(1), 18(1)", RuleSet: "placing_on_market", Check: Aggregate, Start: generalApplication,
		Reads: []string{"every rule of the item"}},
}

// aggregate is R01's outcome over the results of rules: a failure of any
// item or market rule fails it; a rule that cannot be shown met, or one
// not assessed, leaves it open, naming the rules.
func aggregate(rules []Rule, results []Result) Result {
	var failed, open, skipped []string
	for i, r := range rules {
		if r.Check == Aggregate || r.Check == Information || r.Level == OperatorLevel {
			continue
		}
		switch o := results[i].Outcome; {
		case o == Fail:
			failed = append(failed, r.Code)
		case CanFail(o):
			open = append(open, r.Code)
		case o == NotAssessed:
			skipped = append(skipped, r.Code)
		}
	}
	switch {
	case len(failed) > 0:
		return Result{Outcome: Fail, Reason: "rules.aggregate_failed", ReasonArgs: []string{strings.Join(failed, ", ")}}
	case len(open) > 0:
		return Result{Outcome: InsufficientData, Reason: "rules.aggregate_open", ReasonArgs: []string{strings.Join(open, ", ")}, Missing: open}
	case len(skipped) > 0:
		return Result{Outcome: NotAssessed, Reason: "rules.aggregate_partial", ReasonArgs: []string{strings.Join(skipped, ", ")}}
	}
	return Result{Outcome: Pass}
}
