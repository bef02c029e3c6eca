package rules

import "slices"

// Market and operator rules decide per market of the assessment.

// severity orders outcomes from the least to the most serious: a market
// where the rule applies and is met outweighs one where it does not
// apply, and one that cannot be shown met outweighs both. A market or
// operator rule's overall outcome is its most serious market's.
var severity = []string{NotAssessed, NotApplicable, NotYetApplicable, Informational, Pass, Graded, NationalChoiceUnknown,
	DocumentationMissing, InsufficientData, Fail}

// worse is the more serious of two outcomes.
func worse(a, b string) string {
	if slices.Index(severity, a) > slices.Index(severity, b) {
		return a
	}
	return b
}

// byMarket evaluates each market of the input: the overall outcome and
// reason are the worst market's, with every market's missing inputs and
// entries.
func byMarket(in *Input, each func(m Market) MarketResult) Result {
	if len(in.Markets) == 0 {
		return Result{Outcome: InsufficientData, Missing: []string{"markets"}}
	}
	res := Result{Outcome: NotApplicable}
	for _, m := range in.Markets {
		r := each(m)
		r.Market, r.Country = m.ID, m.Country
		if worse(r.Outcome, res.Outcome) != res.Outcome || len(res.Markets) == 0 {
			res.Outcome, res.Reason, res.ReasonArgs = r.Outcome, r.Reason, r.ReasonArgs
		}
		res.Markets = append(res.Markets, r)
		res.Missing = appendNew(res.Missing, r.Missing...)
		res.Entries = appendNew(res.Entries, r.Entries...)
	}
	return res
}

// everyMarket gives each market the item's own outcome: the rule did not
// need to look at the markets to decide.
func everyMarket(in *Input, r Result) Result {
	return byMarket(in, func(Market) MarketResult {
		return MarketResult{Outcome: r.Outcome, Reason: r.Reason, Missing: r.Missing, Entries: r.Entries}
	})
}

func appendNew[T comparable](list []T, items ...T) []T {
	for _, x := range items {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}
