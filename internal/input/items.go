package input

import (
	"encoding/json"
	"strconv"
)

// Items is an array of objects of MinItems to MaxItems entries (0: no
// bound).
type Items struct {
	Required           bool
	MinItems, MaxItems int
	// Shorthand, when set, names the one field an entry may be sent as
	// alone: a bare string "k" stands for {"<Shorthand>": "k"}, and that
	// field's errors name the entry itself ("sources.3"), since the client
	// sent no field. The schema is then one of the field's and the
	// object's.
	Shorthand string
	Desc      Msg
}

// Items binds a JSON array of objects, declaring each entry's fields with
// declare; an entry's errors are named by its index ("lines.2.quantity"),
// as Each names them by key. While describing, declare runs once with
// index -1 to describe the entries. It reports how many entries were sent
// (0 when the array itself was refused).
func (f *Fields) Items(name string, r Items, declare func(i int, item *Fields)) int {
	if !f.Binding() {
		item := &Fields{doc: &objectDoc{props: map[string]any{}}}
		declare(-1, item)
		var entry any = item.doc.schema()
		if r.Shorthand != "" {
			entry = Schema{"oneOf": []any{item.doc.props[r.Shorthand], entry}}
		}
		s := Schema{"type": "array", "items": entry}
		if r.MinItems > 0 {
			s["minItems"] = r.MinItems
		}
		if r.MaxItems > 0 {
			s["maxItems"] = r.MaxItems
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return 0
	}
	raw, _, _, ok := f.field(name, r.Required, false)
	if !ok {
		return 0
	}
	var entries []json.RawMessage
	if !f.src.isJSON() || json.Unmarshal([]byte(raw), &entries) != nil {
		f.Fail(name, "field.object_list")
		return 0
	}
	if len(entries) < r.MinItems || (r.MaxItems > 0 && len(entries) > r.MaxItems) {
		f.Fail(name, "field.object_list_length", r.MinItems, r.MaxItems)
		return 0
	}
	for i, raw := range entries {
		prefix := f.prefix + name + "." + strconv.Itoa(i) + "."
		if r.Shorthand != "" && len(raw) > 0 && raw[0] == '"' {
			declare(i, &Fields{src: jsonSource{r.Shorthand: string(raw)}, errs: f.errs, prefix: prefix, whole: r.Shorthand})
			continue
		}
		fields, ok := objectMembers(string(raw))
		if !ok {
			f.errs.Fail(prefix[:len(prefix)-1], "field.object")
			continue
		}
		declare(i, &Fields{src: fields, errs: f.errs, prefix: prefix})
	}
	return len(entries)
}

// Object is a nested JSON object; one that is not required may be sent
// as null, meaning absent.
type Object struct {
	Required bool
	Desc     Msg
}

// Object binds a nested object, declaring its fields with declare; its
// errors are named by path ("values.lead"). While describing, declare
// describes the object's properties. It reports whether an object was
// sent.
func (f *Fields) Object(name string, r Object, declare func(inner *Fields)) bool {
	if !f.Binding() {
		inner := &Fields{doc: &objectDoc{props: map[string]any{}}}
		declare(inner)
		s := inner.doc.schema()
		if !r.Required {
			s = Nullable(s)
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return false
	}
	raw, _, _, ok := f.field(name, r.Required, !r.Required)
	if !ok {
		return false
	}
	fields, ok := f.object(raw)
	if !ok {
		f.Fail(name, "field.object")
		return false
	}
	declare(&Fields{src: fields, errs: f.errs, prefix: f.prefix + name + "."})
	return true
}
