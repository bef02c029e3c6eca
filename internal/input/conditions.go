package input

import (
	"fmt"
	"slices"
)

// When is a condition on another field of the same object: it holds one
// of Values (strings of an enumeration or a code, or booleans). The field
// must be declared, with Enum, Code or Bool, before the requirement that
// names it.
type When struct {
	Field  string
	Values []any
}

// Is is the condition that field holds one of values.
func Is[T string | bool](field string, values ...T) When {
	w := When{Field: field}
	for _, v := range values {
		w.Values = append(w.Values, v)
	}
	return w
}

// RequiredWhen declares that field must be sent, and not null, when
// every condition holds. One declaration serves both sides: the binder
// refuses a body that breaks it, and the document states it as an
// if/then clause (JSON Schema 2020-12), so that a client generated from
// the document knows it too. A condition on a field that was absent or
// invalid does not hold: that field has its own error.
func (f *Fields) RequiredWhen(field string, conds ...When) {
	if !f.Binding() {
		f.doc.conditional = append(f.doc.conditional, f.requirementSchema(field, conds))
		return
	}
	for _, c := range conds {
		v, ok := f.values[c.Field]
		if !ok || !slices.Contains(c.Values, v) {
			return
		}
	}
	if _, sent, null := f.src.lookup(field); (sent && !null) || f.Has(field) {
		return
	}
	if len(conds) == 1 {
		f.Fail(field, "field.required_with", conds[0].Field, f.values[conds[0].Field])
		return
	}
	f.Fail(field, "field.required")
}

// RequiredWith declares that field must be sent when other is: the
// document states it as dependentRequired.
func (f *Fields) RequiredWith(field, other string) {
	if !f.Binding() {
		f.mustBeDeclared(field, other)
		if f.doc.dependent == nil {
			f.doc.dependent = map[string][]string{}
		}
		f.doc.dependent[other] = append(f.doc.dependent[other], field)
		return
	}
	if _, sent, null := f.src.lookup(other); !sent || null {
		return
	}
	if _, sent, null := f.src.lookup(field); (sent && !null) || f.Has(field) {
		return
	}
	f.Fail(field, "field.required_when_given", other)
}

// requirementSchema is the if/then clause of a requirement: the
// conditions' fields present with one of their values, then field
// present and not null.
func (f *Fields) requirementSchema(field string, conds []When) Schema {
	props := map[string]any{}
	var present []string
	for _, c := range conds {
		f.mustBeDeclared(field, c.Field)
		props[c.Field] = Schema{"enum": c.Values}
		present = append(present, c.Field)
	}
	return Schema{
		"if":   Schema{"properties": props, "required": present},
		"then": Schema{"properties": map[string]any{field: Schema{"not": Schema{"type": "null"}}}, "required": []string{field}},
	}
}

// remember keeps a field's bound value for the requirements that name it.
func (f *Fields) remember(name string, v any) {
	if f.values == nil {
		f.values = map[string]any{}
	}
	f.values[name] = v
}

// RequiredUnless declares that field must be sent unless other is: the
// document states it as if other is absent, then field is required.
func (f *Fields) RequiredUnless(field, other string) {
	if !f.Binding() {
		f.mustBeDeclared(field, other)
		f.doc.conditional = append(f.doc.conditional, Schema{
			"if":   Schema{"not": Schema{"required": []string{other}}},
			"then": Schema{"required": []string{field}},
		})
		return
	}
	if _, sent, null := f.src.lookup(other); sent && !null {
		return
	}
	if _, sent, null := f.src.lookup(field); (sent && !null) || f.Has(field) {
		return
	}
	f.Fail(field, "field.required_unless_given", other)
}

// mustBeDeclared panics unless other was declared before the requirement
// on field that names it: the document would otherwise state a condition
// on a field it does not publish.
func (f *Fields) mustBeDeclared(field, other string) {
	if _, declared := f.doc.props[other]; !declared {
		panic(fmt.Sprintf("input: the requirement on %s names %s, which is not declared before it", field, other))
	}
}
