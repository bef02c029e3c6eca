package register

import (
	"github.com/shopspring/decimal"

	"ppwr/internal/input"
)

// unit declares a canonical unit and the units accepted for it, as pairs
// of a name and the factor to the canonical unit.
func unit(canonical string, pairs ...string) input.Unit {
	u := input.Unit{Canonical: canonical, Accepted: map[string]decimal.Decimal{canonical: decimal.NewFromInt(1)}}
	for i := 0; i < len(pairs); i += 2 {
		u.Accepted[pairs[i]] = decimal.RequireFromString(pairs[i+1])
	}
	return u
}

// The units of register values. Concentrations follow the units of Art.
// 5(4) and 5(5): heavy metals in mg/kg, individual and summed PFAS in ppb
// (µg/kg), total PFAS in ppm (mg/kg).
var (
	MgPerKg     = unit("mg/kg", "ppm", "1")
	PPB         = unit("ppb", "µg/kg", "1", "ppm", "1000", "mg/kg", "1000")
	PPM         = unit("ppm", "mg/kg", "1", "ppb", "0.001", "µg/kg", "0.001")
	Percent     = unit("%")
	Millimetres = unit("mm", "cm", "10", "m", "1000")
	Millilitres = unit("ml", "cm3", "1", "l", "1000", "dm3", "1000")
	Grams       = unit("g", "kg", "1000")
	Micrometres = unit("µm", "mm", "1000")
	Litres      = unit("l", "ml", "0.001", "dm3", "1")
	// SquareMetres measure sales areas (Art. 28(5), 29(10)).
	SquareMetres = unit("m2", "m²", "1")
)
