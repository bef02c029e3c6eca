package rules

// Labelling and marking (Art. 12 and 14) and the deposit-return label
// (Art. 50 with 12(1)).

var (
	// harmonisedLabel is the date of the material label of Art. 12(1),
	// which R29 and R31 follow.
	harmonisedLabel = Start{Fixed: day("2028-08-12"), Act: "harmonised_label_act", OffsetMonths: 24}
)

var labellingRules = []Rule{
	{Code: "R25", Article: "Art. 12(1)", RuleSet: "labelling", Check: PassFail, Start: harmonisedLabel,
		Reads: []string{"packaging-classification", "communications", "deposit schemes"}},
	// The SoC marking applies once the Art. 12(7) method act does; its
	// start is UNVERIFIED (ppwr-facts §1.1), so the act stays pending.
	{Code: "R26", Article: "Art. 12(1) 2nd subpara, 12(7)", RuleSet: "labelling", Check: Documentation,
		Start: Start{Fixed: day("2030-01-01"), Act: "soc_digital_marking_method"},
		Reads: []string{"chemical-safety", "communications"}},
	{Code: "R28", Article: "Art. 12(4)", RuleSet: "labelling", Check: PassFail,
		Start: Start{Fixed: day("2028-08-12"), Act: "content_label_act", OffsetMonths: 24},
		Reads: []string{"communications", "RECYCLED_CONTENT_PCT", "biobased"}},
	{Code: "R29", Article: "Art. 12(5)", RuleSet: "labelling", Check: Documentation, Level: MarketLevel, Start: harmonisedLabel,
		Reads: []string{"communications"}},
	{Code: "R30", Article: "Art. 12(8)", RuleSet: "labelling", Check: Documentation, Start: generalApplication,
		Reads: []string{"communications"}},
	{Code: "R31", Article: "Art. 12(12)", RuleSet: "labelling", Check: PassFail, Start: harmonisedLabel,
		Reads: []string{"communications", "lots"}},
	{Code: "R32", Article: "Art. 14", RuleSet: "labelling", Check: Documentation, Start: generalApplication,
		Reads: []string{"communications"}},
	{Code: "R62", Article: "Art. 50(1)-(2), 12(1) 4th subpara", RuleSet: "deposit_return", Check: Classification, Level: MarketLevel,
		Start: Start{Fixed: day("2029-01-01")},
		Reads: []string{"packaging-classification", "deposit schemes", "communications"}},
}
