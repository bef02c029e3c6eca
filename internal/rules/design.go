package rules

// Design rules beyond those read from one register: substances of
// concern, the recyclability details of Art. 6, recycled content from
// 2040 and its documentation, biobased plastic, the national options and
// designs of Art. 9, and minimisation (Arts 10 and 24(4)-(5)).

var (
	from2028Feb = Start{Fixed: day("2028-02-12")}
	// withR08 and withR14 are the dates of the rules whose exemptions
	// and details R11-R13 and R16 decide.
	withR08 = Start{Fixed: day("2030-01-01"), Act: "dfr_delegated_acts", OffsetMonths: 24}
	withR14 = Start{Fixed: day("2030-01-01"), Act: "recycled_content_method", OffsetMonths: 36}
)

var designRules = []Rule{
	{Code: "R02", Article: "Art. 5(1), 5(2)", RuleSet: "substances_of_concern", Check: Documentation, Start: generalApplication,
		Reads: []string{"chemical-safety"}},
	{Code: "R07", Article: "Art. 5(6)", RuleSet: "conformity_documentation", Check: Documentation, Start: generalApplication,
		Reads: []string{"conformity-dossiers", "chemical-safety"}},
	{Code: "R10", Article: "Art. 6(2)(b), Annex II Table 3", RuleSet: "recyclability_at_scale", Check: GradedCheck,
		Start: Start{Fixed: day("2035-01-01"), Act: "recycled_at_scale_method", OffsetMonths: 60},
		Reads: []string{"packaging-classification", "recyclability"}},
	{Code: "R11", Article: "Art. 6(9)", RuleSet: "recyclability_grades", Check: Documentation, Start: withR08,
		Reads: []string{"recyclability"}},
	{Code: "R12", Article: "Art. 6(10)", RuleSet: "recyclability_grades", Check: Documentation, Start: from2030,
		Reads: []string{"packaging-classification", "recyclability"}},
	{Code: "R13", Article: "Art. 6(11)", RuleSet: "recyclability_grades", Check: Classification, Start: withR08,
		Reads: []string{"packaging-classification", "recyclability"}},
	{Code: "R15", Article: "Art. 7(2)", RuleSet: "recycled_content_plastic_2040", Check: PassFail, Start: Start{Fixed: day("2040-01-01")},
		Reads: []string{"packaging-classification", "RECYCLED_CONTENT_PCT"}},
	{Code: "R16", Article: "Art. 7(4), 7(5)", RuleSet: "recycled_content_plastic", Check: Classification, Start: withR14,
		Reads: []string{"packaging-classification"}},
	{Code: "R17", Article: "Art. 7(6), 7(11)", RuleSet: "recycled_content_plastic", Check: Documentation,
		Start: Start{Fixed: day("2029-01-01"), Act: "recycled_content_method", OffsetMonths: 24},
		Reads: []string{"packaging-classification", "RECYCLED_CONTENT_PCT", "conformity-dossiers"}},
	{Code: "R18", Article: "Art. 8", RuleSet: "biobased_plastic", Check: Information, Start: generalApplication,
		Reads: []string{"biobased"}},
	{Code: "R20", Article: "Art. 9(2)", RuleSet: "national_options", Check: Classification, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"packaging-classification", "national options"}},
	{Code: "R21", Article: "Art. 9(3)", RuleSet: "compostability", Check: Documentation, Start: from2028Feb,
		Reads: []string{"packaging-classification", "recyclability"}},
	{Code: "R22", Article: "Art. 10(1), Annex IV", RuleSet: "minimisation", Check: Documentation, Start: from2030,
		Reads: []string{"minimization"}},
	// Art. 10(2) gives no date of its own, so it follows the general date;
	// some guides read it with Art. 10(1) (2030): ppwr-facts §7 leaves the
	// reading UNVERIFIED.
	{Code: "R23", Article: "Art. 10(2)", RuleSet: "minimisation", Check: PassFail, Start: generalApplication,
		Reads: []string{"minimization"}},
	{Code: "R42", Article: "Art. 24(4)", RuleSet: "minimisation_empty_space", Check: Documentation, Start: from2028Feb,
		Reads: []string{"packaging-classification", "empty-space"}},
	{Code: "R43", Article: "Art. 24(5)", RuleSet: "minimisation_empty_space", Check: Classification,
		Start: Start{Fixed: day("2030-01-01"), Act: "esr_method", OffsetMonths: 36},
		Reads: []string{"packaging-classification", "empty-space"}},
}
