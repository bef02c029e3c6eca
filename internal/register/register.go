// Package register declares the PPWR technical registers: for each one its
// slug, the articles of Regulation (EU) 2025/40 it evidences, and the typed
// values an entry carries (fields, units, enumerations, required-ness,
// cross-field rules and the values the service derives itself). One
// declaration gives the routes, the binding and validation of a create
// body, the request and response schemas of the OpenAPI document and the
// labels of each field; adding a register is adding a declaration.
//
// The package is pure: rules that need the database (a component of the
// item, an approved document) are checked by the domain commands, from the
// references the declaration finds in the values.
package register

import (
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/input"
)

// Kind is the type of a value.
type Kind int

// Kinds of values.
const (
	Text      Kind = iota + 1
	Enum           // one of Values
	Bool           //
	Int            // 0..Max
	Date           // YYYY-MM-DD
	Quantity       // a decimal with its unit
	Component      // a component of the entry's item
	Document       // an approved document version of the organization
	Scenario       // an active market scenario of the entry's item
	Enums          // a list of values of Values
	Objects        // a list of objects of Fields
)

// Field is one value of an entry.
type Field struct {
	Name     string
	Kind     Kind
	Required bool
	Values   []string   // Enum, Enums
	Unit     input.Unit // Quantity
	Max      int        // Text: characters; Int: largest value; Objects: entries
	Min      int        // Int: smallest value
	Fields   []Field    // Objects: the fields of each entry
	// FalseKey, for a Bool, refuses false with its message: a statement
	// the law requires to be made.
	FalseKey string
	// Prefill is the evidence code whose accepted value on the item stands
	// in for a quantity the client leaves out; the field is then required
	// only when no such evidence exists.
	Prefill string
}

// Derived is a value the service computes from the others; a client never
// sends it.
type Derived struct {
	Name   string
	Kind   Kind // Quantity, Enum, Enums, Bool or Date
	Unit   string
	Values []string
	// Compute returns nil when what was sent does not allow the value.
	Compute func(v Values, s Subject) Value
}

// field declares the derived value as a field, so that the answer schema
// and decoding treat it as one.
func (d Derived) field() Field {
	return Field{Name: d.Name, Kind: d.Kind, Values: d.Values, Unit: input.Unit{Canonical: d.Unit}}
}

// Subject is what a rule may need to know of the entry's item.
type Subject struct {
	FoodContact bool
	Reusable    bool
}

// Fail records a message about a value, by its name under values.
type Fail func(field, key string, args ...any)

// Rule is a cross-field rule that the document cannot state: one that
// needs the item (Subject) or compares values.
type Rule func(v Values, s Subject, fail Fail)

// Requirement is a value required because of another value's presence
// or value. It is declared with the fields, so it is both the binder's
// check and the document's (input.Fields.RequiredWhen and its kin).
type Requirement func(f *input.Fields)

// Register is one register's declaration.
type Register struct {
	Slug     string
	Articles []string
	// Reviewable registers take internal review decisions; reuse-units does
	// not (the spec gives it no review operation).
	Reviewable bool
	Fields     []Field
	Derived    []Derived
	Requires   []Requirement
	Rules      []Rule
}

// Label is the message key of a field's label and description.
func Label(name string) input.Msg { return input.Msg("register.field." + name) }

// Declare binds the values of a create body into v (or describes them):
// each field by its kind. A prefilled field is optional here; the domain
// command requires it once no evidence stood in for it.
func (r *Register) Declare(f *input.Fields, v Values) {
	declareFields(f, r.Fields, v)
	for _, require := range r.Requires {
		require(f)
	}
}

func declareFields(f *input.Fields, fields []Field, v Values) {
	for _, fd := range fields {
		declareField(f, fd, v)
	}
}

func declareField(f *input.Fields, fd Field, v Values) {
	required := fd.Required && fd.Prefill == ""
	desc := Label(fd.Name)
	keep := func(sent bool, value Value) {
		if sent {
			v[fd.Name] = value
		}
	}
	switch fd.Kind {
	case Text:
		var o input.Opt[string]
		f.Text(fd.Name, &o, input.Text{Required: required, NotBlank: true, Nullable: !required, Max: fd.Max, Desc: desc})
		keep(o.Set() && !f.Has(fd.Name), TextValue(o.Value))
	case Enum:
		var o input.Opt[string]
		f.Enum(fd.Name, &o, input.Enum{Required: required, Values: fd.Values, Desc: desc})
		keep(o.Set() && o.Value != "", TextValue(o.Value))
	case Bool:
		var o input.Opt[bool]
		f.Bool(fd.Name, &o, input.Bool{Required: required, Desc: desc, FalseKey: fd.FalseKey})
		keep(o.Set() && !f.Has(fd.Name), BoolValue(o.Value))
	case Int:
		var o input.Opt[int]
		f.Int(fd.Name, &o, input.Int{Required: required, Min: fd.Min, Max: fd.Max, Desc: desc})
		keep(o.Set() && !f.Has(fd.Name), IntValue(o.Value))
	case Date:
		var o input.Opt[time.Time]
		f.Date(fd.Name, &o, input.Date{Required: required, Desc: desc})
		keep(o.Set() && !f.Has(fd.Name), TextValue(o.Value.Format(time.DateOnly)))
	case Quantity:
		var o input.Opt[input.Quantity]
		f.Quantity(fd.Name, &o, input.QuantityRule{Required: required, Unit: fd.Unit, Desc: desc})
		if o.Set() && fd.Unit.Canonical == "%" && o.Value.Value.GreaterThan(decimal.NewFromInt(100)) {
			f.Fail(fd.Name+".value", "field.percent_range")
			return
		}
		keep(o.Value.Unit != "", QuantityValue(o.Value.Value, o.Value.Unit))
	case Component, Document, Scenario:
		var o input.Opt[uuid.UUID]
		f.Ref(fd.Name, &o, input.Ref{Required: required, Nullable: !required, Desc: desc})
		keep(o.Set() && o.Value != uuid.Nil, IDValue(o.Value))
	case Enums:
		var o input.Opt[[]string]
		f.List(fd.Name, &o, input.List{Required: required, MinItems: boolInt(required), Values: fd.Values, Desc: desc})
		keep(o.Set(), EnumsValue(o.Value))
	case Objects:
		var list []Values
		f.Items(fd.Name, input.Items{Required: required, MinItems: boolInt(required), MaxItems: fd.Max, Desc: desc}, func(i int, item *input.Fields) {
			entry := Values{}
			declareFields(item, fd.Fields, entry)
			if i >= 0 {
				list = append(list, entry)
			}
		})
		keep(list != nil, ObjectsValue(list))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Check runs the register's cross-field rules.
func (r *Register) Check(v Values, s Subject, fail Fail) {
	for _, rule := range r.Rules {
		rule(v, s, fail)
	}
}

// Complete adds the derived values, and null for every value not sent, so
// a stored entry always has every field of its register.
func (r *Register) Complete(v Values, s Subject) {
	for _, d := range r.Derived {
		v[d.Name] = d.Compute(v, s)
	}
	completeFields(r.Fields, v)
}

func completeFields(fields []Field, v Values) {
	for _, fd := range fields {
		switch {
		case !v.Has(fd.Name) && fd.Kind == Enums:
			v[fd.Name] = EnumsValue([]string{})
		case !v.Has(fd.Name) && fd.Kind == Objects:
			v[fd.Name] = ObjectsValue([]Values{})
		case !v.Has(fd.Name):
			v[fd.Name] = nil
		case fd.Kind == Objects:
			for _, entry := range v.List(fd.Name) {
				completeFields(fd.Fields, entry)
			}
		}
	}
}

// Ref is a reference to a record found in the values, for the domain
// command to check.
type Ref struct {
	Field string // path under values, as errors name it ("duties.2.evidence")
	Kind  Kind
	ID    uuid.UUID
}

// Refs lists the values' references to components, documents and
// scenarios.
func (r *Register) Refs(v Values) []Ref { return refs(r.Fields, v, "") }

// refs lists the references of the object at path.
func refs(fields []Field, v Values, path string) []Ref {
	var out []Ref
	for _, fd := range fields {
		switch fd.Kind {
		case Component, Document, Scenario:
			if id, ok := v.ID(fd.Name); ok {
				out = append(out, Ref{Field: join(path, fd.Name), Kind: fd.Kind, ID: id})
			}
		case Objects:
			for i, entry := range v.List(fd.Name) {
				out = append(out, refs(fd.Fields, entry, join(path, fd.Name+"."+itoa(i)))...)
			}
		}
	}
	return out
}

// Prefills are the fields that evidence can stand in for.
func (r *Register) Prefills() []Field {
	var out []Field
	for _, fd := range r.Fields {
		if fd.Prefill != "" {
			out = append(out, fd)
		}
	}
	return out
}

// ByName finds a register by its slug.
func ByName(slug string) (*Register, bool) {
	i := slices.IndexFunc(All, func(r *Register) bool { return r.Slug == slug })
	if i < 0 {
		return nil, false
	}
	return All[i], true
}

func itoa(i int) string { return strconv.Itoa(i) }

// Schema is the response schema of an entry's values: every field and
// every derived value is present, null when it was not sent or cannot be
// derived, and quantities are in their canonical unit.
func (r *Register) Schema() input.Schema {
	props, required := map[string]any{}, []string{}
	for _, fd := range r.Fields {
		props[fd.Name], required = answerSchema(fd), append(required, fd.Name)
	}
	for _, d := range r.Derived {
		s := answerSchema(d.field())
		s["readOnly"] = true
		props[d.Name], required = s, append(required, d.Name)
	}
	slices.Sort(required)
	return input.Schema{"type": "object", "required": required, "properties": props}
}

func answerSchema(fd Field) input.Schema {
	var s input.Schema
	switch fd.Kind {
	case Text:
		s = input.Schema{"type": "string"}
	case Enum:
		s = input.Schema{"type": "string", "enum": fd.Values}
	case Bool:
		s = input.Schema{"type": "boolean"}
	case Int:
		s = input.Schema{"type": "integer"}
	case Date:
		s = input.Schema{"type": "string", "format": "date"}
	case Quantity:
		s = input.Schema{"type": "object", "required": []string{"unit", "value"}, "properties": map[string]any{
			"value": input.Schema{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`, "examples": []string{"12.5"}},
			"unit":  input.Schema{"type": "string", "enum": []string{fd.Unit.Canonical}},
		}}
	case Component, Document, Scenario:
		s = input.Schema{"type": "string", "format": "uuid"}
	case Enums:
		s = input.Schema{"type": "array", "items": input.Schema{"type": "string", "enum": fd.Values}}
	case Objects:
		s = input.Schema{"type": "array", "items": (&Register{Fields: fd.Fields}).Schema()}
	}
	if !fd.Required && fd.Kind != Enums && fd.Kind != Objects {
		s = input.Nullable(s)
	}
	s["description"] = Label(fd.Name)
	return s
}
