package catalog

import (
	"strings"

	"github.com/shopspring/decimal"

	"ppwr/internal/input"
)

// Unit conversion. Quantities are kept in the item's stock unit; a request
// may also state a quantity in kilograms, which the item's mass per stock
// unit converts. Nothing else converts: a metre of tape is not a piece.

// UnitKG is the unit every item converts to through its mass.
const UnitKG = "kg"

// ConversionScale is the number of decimal places a converted quantity
// keeps: the decimals a request may send.
const ConversionScale = input.DecimalFractionDigits

// UnitConversion says how many of the item's stock units one Unit is.
type UnitConversion struct {
	Unit          string          `json:"unit"`
	StockUnitsPer decimal.Decimal `json:"stock_units_per_unit"`
}

// Conversions are the units an item's quantities may be stated in.
func (i *CatalogItem) Conversions() []UnitConversion {
	out := []UnitConversion{{Unit: i.StockUnit, StockUnitsPer: decimal.NewFromInt(1)}}
	if i.StockUnit != UnitKG {
		out = append(out, UnitConversion{Unit: UnitKG, StockUnitsPer: decimal.NewFromInt(1000).DivRound(i.MassG, ConversionScale)})
	}
	return out
}

// ToStockUnit converts quantity in unit to the item's stock unit; false
// when the item cannot convert from unit.
func (i *CatalogItem) ToStockUnit(quantity decimal.Decimal, unit string) (decimal.Decimal, bool) {
	switch unit {
	case i.StockUnit:
		return quantity, true
	case UnitKG:
		return quantity.Mul(decimal.NewFromInt(1000)).DivRound(i.MassG, ConversionScale), true
	}
	return decimal.Decimal{}, false
}

// UnitConverts fails field, which holds unit, when the item cannot
// convert unit to its stock unit, naming the units it can; "" is no unit
// to check.
func UnitConverts(errs *input.Errors, field string, item *CatalogItem, unit string) {
	if unit == "" || errs.Has(field) {
		return
	}
	if _, ok := item.ToStockUnit(decimal.Zero, unit); !ok {
		units := make([]string, 0, 2)
		for _, c := range item.Conversions() {
			units = append(units, c.Unit)
		}
		errs.Fail(field, "field.unit_not_convertible", strings.Join(units, ", "))
	}
}

// MassOf is the mass in grams of quantity stock units of the item.
func (i *CatalogItem) MassOf(quantity decimal.Decimal) decimal.Decimal { return quantity.Mul(i.MassG) }
