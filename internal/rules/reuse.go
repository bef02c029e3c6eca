package rules

// Reusable packaging: the criteria of Art. 11, its label (Art. 12(2)-(3)),
// the re-use systems of Arts 26-27 and refill (Art. 28(1)-(4)).

var reuseRules = []Rule{
	{Code: "R24", Article: "Art. 11(1)", RuleSet: "reusable_packaging", Check: Documentation, Start: Start{Fixed: day("2025-02-11")},
		Reads: []string{"packaging-classification", "reuse-assessments"}},
	{Code: "R27", Article: "Art. 12(2), 12(3)", RuleSet: "labelling", Check: PassFail,
		Start: Start{Fixed: day("2029-02-12"), Act: "reusable_label_act", OffsetMonths: 30},
		Reads: []string{"packaging-classification", "reuse-assessments", "communications"}},
	{Code: "R45", Article: "Art. 26", RuleSet: "reusable_packaging", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"packaging-classification", "re-use systems", "conformity-dossiers"}},
	{Code: "R46", Article: "Art. 27", RuleSet: "reusable_packaging", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"packaging-classification", "re-use systems", "reuse-assessments", "reuse-units"}},
	{Code: "R47", Article: "Art. 28(1)-(4)", RuleSet: "reusable_packaging", Check: Documentation, Level: OperatorLevel, Start: generalApplication,
		Reads: []string{"compliance profile", "refill stations"}, eval: refill},
}

// refill checks, in each market where the operator's profile says it
// offers refill, that a refill station is recorded in the country (each
// station states its rules for refill, Art. 28(1)-(4)) and that the
// operator informs end users of those rules.
func refill(in *Input) Result {
	return operator(in, func(p ProfileEntry) MarketResult {
		if out := p.scoped("refill_offered", "rules.no_refill_offered"); out != nil {
			return *out
		}
		var missing []string
		if p.RefillStations == 0 {
			missing = append(missing, "refill-stations@"+p.Country)
		}
		if !p.Values.Bool("refill_rules_published") {
			missing = append(missing, p.profileValue("refill_rules_published"))
		}
		if len(missing) > 0 {
			return MarketResult{Outcome: DocumentationMissing, Reason: "rules.refill_undocumented", Missing: missing}
		}
		return MarketResult{Outcome: Pass, Reason: "rules.refill_documented", ReasonArgs: []string{itoa(p.RefillStations)}}
	})
}
