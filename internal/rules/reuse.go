package rules

import (
	"slices"

	"github.com/google/uuid"

	"ppwr/internal/register"
)

// Reusable packaging: the criteria of Art. 11, its label (Art. 12(2)-(3)),
// the re-use systems of Arts 26-27 and refill (Art. 28(1)-(4)).

var reuseRules = []Rule{
	{Code: "R24", Article: "Art. 11(1)", RuleSet: "reusable_packaging", Check: Documentation, Start: Start{Fixed: day("2025-02-11")},
		Reads: []string{"packaging-classification", "reuse-assessments"}, eval: reusabilityCriteria},
	{Code: "R27", Article: "Art. 12(2), 12(3)", RuleSet: "labelling", Check: PassFail,
		Start: Start{Fixed: day("2029-02-12"), Act: "reusable_label_act", OffsetMonths: 30},
		Reads: []string{"packaging-classification", "reuse-assessments", "re-use systems", "communications"}, eval: reusableLabel},
	{Code: "R45", Article: "Art. 26", RuleSet: "reusable_packaging", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"packaging-classification", "re-use systems", "conformity-dossiers"}, eval: reuseSystemInPlace},
	{Code: "R46", Article: "Art. 27", RuleSet: "reusable_packaging", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"packaging-classification", "re-use systems", "reuse-assessments"}, eval: reuseSystemTakenPart},
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

// ReuseSystem is a re-use system of the organization that lists the item
// (a record of api/ppwr reuse-systems, which always names its operator
// and return incentive).
type ReuseSystem struct {
	ID                  uuid.UUID
	Code                string
	Markets             []string // countries
	ReconditioningSteps []string
	// UnconfirmedParticipants have no written confirmation (Art. 26)
	// recorded.
	UnconfirmedParticipants int
}

// reusable is the scope of the reusable-packaging rules: the accepted
// classification says the packaging is reusable. The result is set when
// the rule does not apply or cannot tell.
func reusable(in *Input) (Entry, *Result) {
	c, ok := in.classified()
	switch {
	case !ok:
		return c, &Result{Outcome: InsufficientData, Missing: []string{"packaging-classification"}}
	case c.Values.String("reuse_type") != "reusable":
		res := notApplicable("rules.single_use_packaging", c)
		return c, &res
	}
	return c, nil
}

// reusabilityCriteria: reusable packaging meets every criterion of Art.
// 11(1), each with its evidence. A criterion recorded as not met fails;
// one not recorded, or without evidence, is documentation missing.
func reusabilityCriteria(in *Input) Result {
	c, res := reusable(in)
	if res != nil {
		return *res
	}
	a, ok := in.latest("reuse-assessments")
	if !ok {
		return Result{Outcome: DocumentationMissing, Missing: []string{"reuse-assessments"}, Entries: []uuid.UUID{c.ID}}
	}
	res = &Result{Outcome: Pass, Entries: []uuid.UUID{c.ID, a.ID}}
	criteria := a.Values.List("criteria")
	for _, name := range register.ReusabilityCriteria {
		i := slices.IndexFunc(criteria, func(x register.Values) bool { return x.String("criterion") == name })
		switch {
		case i < 0:
			res.Missing = append(res.Missing, "reuse-assessments.criteria."+name)
		case !criteria[i].Bool("met"):
			res.Outcome, res.Reason = Fail, "rules.reusability_criterion_not_met"
		case !criteria[i].Has("evidence"):
			res.Missing = append(res.Missing, "reuse-assessments.criteria."+name+".evidence")
		}
	}
	if res.Outcome == Pass && len(res.Missing) > 0 {
		res.Outcome = DocumentationMissing
	}
	return *res
}

// inSystem reports whether the reusable packaging circulates in a system
// with an operator, which Art. 12(2)-(3) labelling requires: the re-use
// assessment says so; without one, a recorded system (which always names
// its operator) does. ok is false when nothing tells.
func inSystem(in *Input) (withOperator bool, used []uuid.UUID, ok bool) {
	if a, found := in.latest("reuse-assessments"); found {
		open := a.Values.String("reuse_system_type") == "open_loop" && a.Values.String("system_operator") == ""
		return !open, []uuid.UUID{a.ID}, true
	}
	return len(in.ReuseSystems) > 0, nil, len(in.ReuseSystems) > 0
}

// reusableLabel: reusable packaging in a system with an operator bears
// the reusable label and a data carrier giving the system's information.
func reusableLabel(in *Input) Result {
	c, res := reusable(in)
	if res != nil {
		return *res
	}
	withOperator, used, ok := inSystem(in)
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"reuse-assessments"}, Entries: []uuid.UUID{c.ID}}
	}
	used = append([]uuid.UUID{c.ID}, used...)
	if !withOperator {
		return Result{Outcome: NotApplicable, Reason: "rules.open_loop_without_operator", Entries: used}
	}
	e, ok := in.latest("communications")
	if !ok {
		return Result{Outcome: InsufficientData, Missing: []string{"communications"}, Entries: used}
	}
	res = &Result{Outcome: Pass, Entries: append(used, e.ID)}
	switch {
	case !slices.ContainsFunc(e.Values.List("labels"), func(l register.Values) bool { return l.String("type") == "reusable_label" }):
		res.Outcome, res.Reason = Fail, "rules.no_reusable_label"
	case e.Values.String("data_carrier_url") == "":
		res.Outcome, res.Reason = Fail, "rules.no_reuse_data_carrier"
	}
	return *res
}

// systemsIn are the item's re-use systems covering a market.
func systemsIn(in *Input, country string) []ReuseSystem {
	var out []ReuseSystem
	for _, s := range in.ReuseSystems {
		if slices.Contains(s.Markets, country) {
			out = append(out, s)
		}
	}
	return out
}

// inReuseSystem evaluates reusable packaging in each market: its
// documentation is missing without a re-use system of the item covering
// the market, and where check, given the market's systems, names more.
// read are the entries the rule reads besides the classification.
func inReuseSystem(in *Input, read []Entry, check func(systems []ReuseSystem) []string) Result {
	c, res := reusable(in)
	if res != nil {
		return *res
	}
	return byMarket(in, func(m Market) MarketResult {
		mr := MarketResult{Outcome: Pass, Entries: []uuid.UUID{c.ID}}
		for _, e := range read {
			mr.Entries = append(mr.Entries, e.ID)
		}
		systems := systemsIn(in, m.Country)
		if len(systems) == 0 {
			mr.Missing = append(mr.Missing, "reuse-systems@"+m.Country)
		}
		for _, s := range systems {
			mr.Entries = append(mr.Entries, s.ID)
		}
		if mr.Missing = append(mr.Missing, check(systems)...); len(mr.Missing) > 0 {
			mr.Outcome = DocumentationMissing
		}
		return mr
	})
}

// reuseSystemInPlace: where reusable packaging is first made available,
// a re-use system with a return incentive exists (a system record always
// has one), its participants' written confirmations are recorded, and
// the technical documentation describes it (Art. 26).
func reuseSystemInPlace(in *Input) Result {
	var read []Entry
	var missing []string
	if dossier, ok := in.latest("conformity-dossiers"); ok {
		read = append(read, dossier)
	} else {
		missing = append(missing, "conformity-dossiers")
	}
	return inReuseSystem(in, read, func(systems []ReuseSystem) []string {
		out := slices.Clone(missing)
		for _, s := range systems {
			if s.UnconfirmedParticipants > 0 {
				out = append(out, "reuse-systems.participants.confirmation@"+s.Code)
			}
		}
		return out
	})
}

// reuseSystemTakenPart: users of reusable packaging take part in a re-use
// system in the market and recondition the packaging before it is used
// again (Art. 27, Annex VI Part B): the steps are recorded by the item's
// re-use assessment or by the system.
func reuseSystemTakenPart(in *Input) Result {
	var read []Entry
	assessedSteps := false
	if a, ok := in.latest("reuse-assessments"); ok {
		read, assessedSteps = append(read, a), len(a.Values.Strings("reconditioning_steps")) > 0
	}
	return inReuseSystem(in, read, func(systems []ReuseSystem) []string {
		if assessedSteps || slices.ContainsFunc(systems, func(s ReuseSystem) bool { return len(s.ReconditioningSteps) > 0 }) {
			return nil
		}
		return []string{"reuse-assessments.reconditioning_steps"}
	})
}
