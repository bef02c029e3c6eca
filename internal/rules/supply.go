package rules

// Duties toward authorities and along the supply chain: documentation on
// request (R38), supplier information (R39), traceability (R40), EPR
// reporting (R59) and the platforms' and fulfilment providers' checks
// (R61).

var supplyRules = []Rule{
	{Code: "R38", Article: "Art. 15(10), 17(2)(c)-(d), 18(8)", RuleSet: "economic_operators", Check: PassFail, Start: generalApplication,
		Reads: []string{"authority requests"}},
	{Code: "R39", Article: "Art. 16", RuleSet: "supply_chain", Check: Documentation, Start: generalApplication,
		Reads: []string{"supplier requests", "documents"}},
	{Code: "R40", Article: "Art. 22", RuleSet: "supply_chain", Check: Documentation, Start: generalApplication,
		Reads: []string{"flows", "packaging-classification"}},
	{Code: "R59", Article: "Art. 44(7), 44(8)", RuleSet: "economic_operators", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"role-duties", "EPR reports"}},
	{Code: "R61", Article: "Art. 45(4)-(8)", RuleSet: "economic_operators", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"role-duties"}},
}
