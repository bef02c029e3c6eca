package input

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// Quantity is a measured amount in a unit.
type Quantity struct {
	Value decimal.Decimal
	Unit  string
}

// MarshalJSON writes the amount as a decimal string beside its unit, the
// form clients send.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"value": q.Value.String(), "unit": q.Unit})
}

// Unit is a canonical unit with the units accepted for it, each with the
// factor that converts an amount in it to the canonical unit.
type Unit struct {
	Canonical string
	Accepted  map[string]decimal.Decimal
}

// Names are the accepted unit names, sorted.
func (u Unit) Names() []string { return slices.Sorted(maps.Keys(u.Accepted)) }

// QuantityRule is the rule of a quantity field.
type QuantityRule struct {
	Required bool
	Unit     Unit
	Desc     Msg
}

// Quantity binds a quantity sent as {"value": "12.5", "unit": "mg/kg"} and
// converts it to the rule's canonical unit: the stored amount never
// depends on the unit a client chose. A unit that cannot be converted is
// refused under "<name>.unit".
func (f *Fields) Quantity(name string, dst *Opt[Quantity], r QuantityRule) {
	var value Opt[decimal.Decimal]
	var unit Opt[string]
	declare := func(q *Fields) {
		q.Decimal("value", &value, Decimal{Required: true})
		q.Enum("unit", &unit, Enum{Required: true, Values: r.Unit.Names()})
	}
	if !f.Binding() {
		f.Object(name, Object{Required: r.Required, Desc: r.Desc}, declare)
		return
	}
	_, sent, null := f.src.lookup(name)
	*dst = Opt[Quantity]{Sent: sent, Null: null}
	failed := len(f.errs.fields)
	if !f.Object(name, Object{Required: r.Required}, declare) || len(f.errs.fields) > failed {
		return
	}
	unit.Value = strings.TrimSpace(unit.Value)
	dst.Value = Quantity{Value: value.Value.Mul(r.Unit.Accepted[unit.Value]), Unit: r.Unit.Canonical}
}
