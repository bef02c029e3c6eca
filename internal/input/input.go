// Package input binds what clients send (JSON request bodies, query
// strings, and the cells of an import row) to typed values, field by field,
// so that every bad field is reported at once under its own name, and
// describes the same fields as JSON Schema. One declaration, a type's
// Declare method, serves both: a length limit or an enumeration is written
// once, and the API, the OpenAPI document and the import workflow apply the
// very same rules.
//
// Binding knows nothing of HTTP or the database. Rules that need the
// database (a reference must exist, a code must be unique) belong to the
// domain commands, which add their findings to the same Errors.
package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Opt is a field that may be absent, sent as null, or sent with a value.
type Opt[T any] struct {
	Sent  bool // the field was present, null included
	Null  bool
	Value T
}

// Set reports whether a value other than null was sent.
func (o Opt[T]) Set() bool { return o.Sent && !o.Null }

// Of is an Opt holding v, for callers that build inputs in code.
func Of[T any](v T) Opt[T] { return Opt[T]{Sent: true, Value: v} }

// FieldError is one message about one field: a message key of the i18n
// catalogues with its arguments, localized only when rendered.
type FieldError struct {
	Field string
	Key   string
	Args  []any
}

// Invalid is the error of an input with bad fields, naming all of them.
type Invalid struct{ Fields []FieldError }

func (v *Invalid) Error() string {
	names := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		names[i] = f.Field
	}
	return "invalid fields: " + strings.Join(names, ", ")
}

// Errors collects the field errors of one input. Bound types embed it, so
// binding and the command that runs on the input report into one list.
type Errors struct{ fields []FieldError }

func (e *Errors) errors() *Errors { return e }

// Fail records a message about a field.
func (e *Errors) Fail(field, key string, args ...any) {
	e.fields = append(e.fields, FieldError{Field: field, Key: key, Args: args})
}

// Failed reports whether any field failed.
func (e *Errors) Failed() bool { return len(e.fields) > 0 }

// Has reports whether field failed.
func (e *Errors) Has(field string) bool {
	return slices.ContainsFunc(e.fields, func(f FieldError) bool { return f.Field == field })
}

// Err is nil when no field failed, else an *Invalid naming every one.
func (e *Errors) Err() error {
	if !e.Failed() {
		return nil
	}
	return &Invalid{Fields: slices.Clone(e.fields)}
}

// Invalidf is an *Invalid with a single field error, for rules found outside
// binding (a unique code taken, a constraint of the database).
func Invalidf(field, key string, args ...any) *Invalid {
	return &Invalid{Fields: []FieldError{{Field: field, Key: key, Args: args}}}
}

// Body is a bound type: Declare names its fields and their rules, and the
// embedded Errors holds what binding and commands found.
type Body interface {
	Declare(f *Fields)
	Fail(field, key string, args ...any)
	Failed() bool
	Err() error
	errors() *Errors
}

// ErrNotObject is returned for a JSON body that is not an object.
var ErrNotObject = errors.New("input: the body is not a JSON object")

// FromJSON binds a JSON object body (empty means {}) into dst. Field errors
// are recorded in dst; the error is ErrNotObject for anything but an object.
func FromJSON(body []byte, dst Body) error {
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && !json.Valid(trimmed) {
		return ErrNotObject
	}
	return FromValidJSON(body, dst)
}

// FromValidJSON is FromJSON for a body known to be valid JSON, or blank, as
// the API's pipeline reads every body (checking it again was a fifth of
// binding a create's body).
func FromValidJSON(body []byte, dst Body) error {
	src := jsonSource{}
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 {
		var ok bool
		if src, ok = objectMembers(string(trimmed)); !ok {
			return ErrNotObject
		}
	}
	dst.Declare(&Fields{src: src, errs: dst.errors()})
	return nil
}

// objectMembers are the members of value, a JSON value of a valid document,
// if it is an object: each member's value as sent under its name, a name
// sent twice with its last value, as decoding into a map of raw messages
// gives them. They are found in one pass over the text; the decoding
// copied every name and value, and was most of the time binding a
// create's body took.
func objectMembers(value string) (jsonSource, bool) {
	if len(value) == 0 || value[0] != '{' {
		return nil, false
	}
	members := jsonSource{}
	for i := skipSpace(value, 1); value[i] != '}'; {
		end := endOfValue(value, i)
		name := value[i+1 : end-1]
		if !plainASCII(name) {
			// Decoded as a map's key is: escapes read, invalid UTF-8
			// replaced.
			_ = json.Unmarshal([]byte(value[i:end]), &name)
		}
		start := skipSpace(value, skipSpace(value, end)+1) // past the colon
		i = endOfValue(value, start)
		members[name] = value[start:i]
		if i = skipSpace(value, i); value[i] == ',' {
			i = skipSpace(value, i+1)
		}
	}
	return members, true
}

// object is the members of a field's value, if it is a JSON object.
func (f *Fields) object(raw string) (jsonSource, bool) {
	if !f.src.isJSON() {
		return nil, false
	}
	return objectMembers(raw)
}

// plainASCII reports whether s is ASCII without a backslash: a JSON
// string's text that reads as it is.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// skipSpace is the index of the first byte from i on in b that is not
// JSON whitespace.
func skipSpace(b string, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endOfValue is the index just past the value that starts at b[i], in
// valid JSON.
func endOfValue(b string, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // a number or literal ending its object or array
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// FromQuery binds URL query parameters into dst; an empty parameter counts
// as absent.
func FromQuery(q url.Values, dst Body) {
	cells := make(map[string]string, len(q))
	for k, v := range q {
		if len(v) > 0 {
			cells[k] = v[0]
		}
	}
	FromCells(cells, dst)
}

// FromCells binds text cells (an import row, keyed by field name) into dst,
// parsing each cell as its field's type; an empty cell counts as absent.
func FromCells(cells map[string]string, dst Body) {
	dst.Declare(&Fields{src: cellSource(cells), errs: dst.errors()})
}

// Describe is the JSON Schema of dst's fields as an object.
func Describe(dst Body) Schema {
	f := &Fields{doc: &objectDoc{props: map[string]any{}}}
	dst.Declare(f)
	return f.doc.schema()
}

// Param is one field of a query declaration, for the OpenAPI document.
type Param struct {
	Name     string
	Required bool
	Schema   Schema
}

// DescribeParams lists dst's fields as query parameters, in declaration
// order.
func DescribeParams(dst Body) []Param {
	f := &Fields{doc: &objectDoc{props: map[string]any{}}}
	dst.Declare(f)
	out := make([]Param, len(f.doc.order))
	for i, name := range f.doc.order {
		out[i] = Param{Name: name, Required: slices.Contains(f.doc.required, name), Schema: f.doc.props[name].(Schema)}
	}
	return out
}

// Schema is a JSON Schema (OpenAPI 3.1 dialect) fragment.
type Schema map[string]any

// Msg is an i18n message key standing for a localized text in a schema,
// such as a description; the OpenAPI document translates it per locale.
type Msg string

type objectDoc struct {
	props    map[string]any
	order    []string
	required []string
	// conditional are the if/then clauses of RequiredWhen, dependent the
	// fields RequiredWith requires by the field that requires them.
	conditional []Schema
	dependent   map[string][]string
}

func (d *objectDoc) schema() Schema {
	required := d.required
	if required == nil {
		required = []string{}
	}
	s := Schema{"type": "object", "required": required, "properties": d.props}
	if len(d.conditional) > 0 {
		s["allOf"] = d.conditional
	}
	if len(d.dependent) > 0 {
		s["dependentRequired"] = d.dependent
	}
	return s
}

// source yields the raw form of a named field.
type source interface {
	// lookup reports the field's JSON value or cell text, whether it was
	// sent and whether it was null.
	lookup(name string) (value string, sent, null bool)
	isJSON() bool
}

// jsonSource is an object's members: each value's JSON text by name.
type jsonSource map[string]string

func (s jsonSource) lookup(name string) (string, bool, bool) {
	raw, ok := s[name]
	if !ok {
		return "", false, false
	}
	v := strings.TrimSpace(raw)
	return v, true, v == "null"
}

func (jsonSource) isJSON() bool { return true }

type cellSource map[string]string

func (s cellSource) lookup(name string) (string, bool, bool) {
	v, ok := s[name]
	if !ok || v == "" {
		return "", false, false
	}
	return v, true, false
}

func (cellSource) isJSON() bool { return false }

// Fields is handed to a type's Declare: while binding it reads each
// declared field from the source into its destination and records what
// is wrong; while describing it records each field's schema.
type Fields struct {
	src    source
	errs   *Errors
	prefix string
	// whole is the field an array entry was sent as alone (Items'
	// Shorthand), whose errors name the entry.
	whole string
	doc   *objectDoc
	// values are the bound values of enumerations, codes and booleans,
	// for RequiredWhen.
	values map[string]any
}

// Binding reports whether values are being bound (not described), so a
// declaration can check rules across fields.
func (f *Fields) Binding() bool { return f.doc == nil }

// Fail records a message about a field of this object (cross-field rules).
func (f *Fields) Fail(name, key string, args ...any) { f.errs.Fail(f.Path(name), key, args...) }

// Has reports whether a field of this object failed.
func (f *Fields) Has(name string) bool { return f.errs.Has(f.Path(name)) }

// Path is the name errors about a field of this object are reported under
// ("lines.2.quantity"), for commands that check it later.
func (f *Fields) Path(name string) string {
	if name == f.whole && name != "" {
		return strings.TrimSuffix(f.prefix, ".")
	}
	return f.prefix + name
}

// describe records a field's schema (and required-ness) while describing.
func (f *Fields) describe(name string, required bool, s Schema) {
	if required {
		f.doc.required = append(f.doc.required, name)
	}
	f.doc.order = append(f.doc.order, name)
	f.doc.props[name] = s
}

// field looks name up while binding; it records required or null
// violations and reports whether a value is there to parse.
func (f *Fields) field(name string, required, nullable bool) (raw string, sent, null, ok bool) {
	raw, sent, null = f.src.lookup(name)
	switch {
	case !sent || (null && required):
		if required {
			f.Fail(name, "field.required")
		}
		return "", sent, null, false
	case null && !nullable:
		f.Fail(name, "field.not_null")
		return "", true, true, false
	case null:
		return "", true, true, false
	}
	return raw, true, false, true
}

// text reads a field's value as a string: a JSON string, or a cell.
func (f *Fields) text(name, raw, typeKey string) (string, bool) {
	if !f.src.isJSON() {
		return raw, true
	}
	if s, ok := plainString(raw); ok {
		return s, true
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		f.Fail(name, typeKey)
		return "", false
	}
	return s, true
}

// plainString is the value of raw, a JSON string without escapes, control
// characters or invalid UTF-8, which is its text between the quotes: what
// almost every field sends, read without a decoder per field. Any other
// raw is left to the decoder.
func plainString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			return "", false
		}
	}
	return s, utf8.ValidString(s)
}

// Nullable widens a schema's type with null (OpenAPI 3.1 has no
// "nullable"); an enumeration also admits null then, and a reference is
// one of itself or null.
func Nullable(s Schema) Schema {
	t, ok := s["type"].(string)
	if !ok {
		return Schema{"oneOf": []any{s, Schema{"type": "null"}}}
	}
	out := Schema{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []string{t, "null"}
	if e, ok := s["enum"].([]string); ok {
		values := make([]any, 0, len(e)+1)
		for _, v := range e {
			values = append(values, v)
		}
		out["enum"] = append(values, nil)
	}
	return out
}

func withDesc(s Schema, desc Msg) Schema {
	if desc != "" {
		s["description"] = desc
	}
	return s
}
