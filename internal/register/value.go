package register

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/input"
)

// Value is one value of an entry, of exactly one kind; nil is a value not
// sent (or not derivable). The interface is sealed: only the constructors
// below make one, so a rule never meets a value the declarations cannot
// produce. Each kind is a Go type whose JSON encoding is the stored one,
// so marshalling Values writes the same JSON a client sends and the
// answers repeat.
type Value interface{ value() }

type (
	textValue     string // Text, Enum and Date (YYYY-MM-DD)
	boolValue     bool
	intValue      int
	quantityValue struct{ input.Quantity }
	idValue       struct{ uuid.UUID } // Component, Document and Scenario
	enumsValue    []string
	objectsValue  []Values
)

func (textValue) value()     {}
func (boolValue) value()     {}
func (intValue) value()      {}
func (quantityValue) value() {}
func (idValue) value()       {}
func (enumsValue) value()    {}
func (objectsValue) value()  {}

// TextValue is a text, enumeration or date (YYYY-MM-DD) value.
func TextValue(s string) Value { return textValue(s) }

// BoolValue is a boolean value.
func BoolValue(b bool) Value { return boolValue(b) }

// IntValue is an integer value.
func IntValue(n int) Value { return intValue(n) }

// QuantityValue is an amount in the canonical unit of its field.
func QuantityValue(amount decimal.Decimal, unit string) Value {
	return quantityValue{input.Quantity{Value: amount, Unit: unit}}
}

// IDValue is a reference to a component, a document version or a market
// scenario.
func IDValue(id uuid.UUID) Value { return idValue{id} }

// EnumsValue is a list of enumeration values.
func EnumsValue(list []string) Value { return enumsValue(list) }

// ObjectsValue is a list of objects.
func ObjectsValue(list []Values) Value { return objectsValue(list) }

// Values are an entry's values by field name.
type Values map[string]Value

// Quantity is a quantity value in its canonical unit.
func (v Values) Quantity(name string) (decimal.Decimal, bool) {
	q, ok := v[name].(quantityValue)
	return q.Value, ok
}

// Bool is a boolean value, false when absent.
func (v Values) Bool(name string) bool { b, _ := v[name].(boolValue); return bool(b) }

// String is a text, enumeration or date value, "" when absent.
func (v Values) String(name string) string { s, _ := v[name].(textValue); return string(s) }

// Int is an integer value.
func (v Values) Int(name string) (int, bool) { n, ok := v[name].(intValue); return int(n), ok }

// Date is a date value.
func (v Values) Date(name string) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, v.String(name))
	return d, err == nil
}

// ID is a reference value.
func (v Values) ID(name string) (uuid.UUID, bool) { id, ok := v[name].(idValue); return id.UUID, ok }

// Strings is an Enums value, nil when absent.
func (v Values) Strings(name string) []string { l, _ := v[name].(enumsValue); return l }

// List is an Objects value.
func (v Values) List(name string) []Values { l, _ := v[name].(objectsValue); return l }

// Has reports whether a value was sent (or derived).
func (v Values) Has(name string) bool { return v[name] != nil }
