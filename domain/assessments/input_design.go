package assessments

import "ppwr/internal/rules"

// designInput loads what the design chapter reads beyond the item's
// registers: the verified Member State choices of Art. 9(2), declared
// with the rules rather than stored.
func designInput(in *rules.Input) {
	in.NationalChoices = rules.KnownNationalChoices()
}
