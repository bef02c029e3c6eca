package kit

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Model is a named component schema of the document, derived from the Go
// type that handlers encode, so the published shape cannot drift from
// the answered one: a field added to the struct is published, a field's
// enumeration is the Go enumeration it is checked against.
type Model struct {
	Name    string
	Type    reflect.Type
	descKey string
}

// Described gives the model's schema the description of a message key,
// translated in each locale's document.
func (m Model) Described(key string) Model {
	m.descKey = key
	return m
}

// ModelOf names the component schema of T, a struct encoded by
// encoding/json.
func ModelOf[T any](name string) Model {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("kit: model %s: %s is not a struct", name, t))
	}
	return Model{Name: name, Type: t}
}

// Declarer is a response struct that declares what its field types and
// tags cannot say: the Go enumeration a string field takes its values
// from, or the pattern it matches. The schema of the field (of its items
// for a list, of its values for a map) is that enumeration or pattern.
type Declarer interface {
	Declare(*Shape)
}

// Shape collects a Declarer's declarations, by JSON field name. A name
// may be a path, "field.sub": field sub of the struct that field holds
// inline. A struct of a domain package cannot declare (the domain does
// not import kit), so the API struct holding it declares for it.
type Shape struct {
	enums    map[string][]string
	patterns map[string]string
}

// Enum declares that the string values of field are among values.
func (s *Shape) Enum(field string, values ...string) {
	if s.enums == nil {
		s.enums = map[string][]string{}
	}
	s.enums[field] = values
}

// Pattern declares the regular expression the string values of field
// match.
func (s *Shape) Pattern(field, pattern string) {
	if s.patterns == nil {
		s.patterns = map[string]string{}
	}
	s.patterns[field] = pattern
}

// under is the declarations for the fields of the struct field holds.
func (s Shape) under(field string) Shape {
	var out Shape
	for path, values := range s.enums {
		if sub, ok := strings.CutPrefix(path, field+"."); ok {
			out.Enum(sub, values...)
		}
	}
	for path, pattern := range s.patterns {
		if sub, ok := strings.CutPrefix(path, field+"."); ok {
			out.Pattern(sub, pattern)
		}
	}
	return out
}

func (s Shape) empty() bool { return len(s.enums) == 0 && len(s.patterns) == 0 }

// fields are the top-level field names s declares for.
func (s Shape) fields() []string {
	var out []string
	for path := range s.enums {
		out = append(out, strings.SplitN(path, ".", 2)[0])
	}
	for path := range s.patterns {
		out = append(out, strings.SplitN(path, ".", 2)[0])
	}
	return out
}

// Field tags understood beside `json`, as `schema:"option,option"`:
//
//	date        a string holding a calendar date (format date)
//	uri         a string holding a URI (format uri)
//	uuid        a string holding a UUID (format uuid)
//	decimal     a string holding a decimal, written by the handler
//	            (decimal.Decimal.StringFixed)
//	signed      a decimal that may be negative
//	object      a json.RawMessage that is always a JSON object
//	min=<n>     an integer's least value
//	max=<n>     an integer's greatest value
//	desc=<key>  the message key of the field's description, translated
//	            in each locale's document
const schemaTag = "schema"

// Schemas derives the component schemas of models; a struct type that is
// itself a model is referred to by name wherever another model holds it.
func Schemas(models []Model) map[string]Schema {
	names := map[reflect.Type]string{}
	for _, m := range models {
		if prev, dup := names[m.Type]; dup && prev != m.Name {
			panic(fmt.Sprintf("kit: %s is both model %s and %s", m.Type, prev, m.Name))
		}
		names[m.Type] = m.Name
	}
	out := make(map[string]Schema, len(models))
	for _, m := range models {
		if _, dup := out[m.Name]; dup {
			panic(fmt.Sprintf("kit: two models are named %s", m.Name))
		}
		g := generator{names: names, path: m.Name}
		s := g.object(m.Type, Shape{})
		if m.descKey != "" {
			s = Described(s, m.descKey)
		}
		out[m.Name] = s
	}
	return out
}

// SchemaOf derives the schema of T alone, its nested structs inline.
func SchemaOf[T any]() Schema {
	g := generator{path: reflect.TypeFor[T]().String()}
	return g.schema(reflect.TypeFor[T](), fieldOptions{})
}

type generator struct {
	names map[reflect.Type]string
	path  string // for panics: where the generator is
}

type fieldOptions struct {
	enum     []string
	format   string
	pattern  string
	decimal  bool
	signed   bool
	object   bool
	min, max *int
	descKey  string
	// nested are the declarations of the enclosing struct for the fields
	// of the struct this field holds.
	nested Shape
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	uuidType        = reflect.TypeFor[uuid.UUID]()
	decimalType     = reflect.TypeFor[decimal.Decimal]()
	nullDecimalType = reflect.TypeFor[decimal.NullDecimal]()
	rawType         = reflect.TypeFor[json.RawMessage]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	textType        = reflect.TypeFor[encoding.TextMarshaler]()
)

func (g generator) schema(t reflect.Type, o fieldOptions) Schema {
	s := g.bare(t, o)
	if o.descKey != "" {
		s = Described(s, o.descKey)
	}
	return s
}

func (g generator) bare(t reflect.Type, o fieldOptions) Schema {
	switch t {
	case timeType:
		return DateTime()
	case uuidType:
		return UUID()
	case decimalType:
		if o.signed {
			return signedDecimal()
		}
		return DecimalString()
	case nullDecimalType:
		return Nullable(g.bare(decimalType, o))
	case rawType:
		if o.object {
			return Schema{"type": "object"}
		}
		return Schema{}
	}
	if t.Kind() == reflect.Pointer {
		return Nullable(g.bare(t.Elem(), o))
	}
	if !o.nested.empty() && !slices.Contains([]reflect.Kind{reflect.Slice, reflect.Array, reflect.Map, reflect.Struct}, t.Kind()) {
		panic(fmt.Sprintf("kit: %s: %s holds no struct to declare for", g.path, t))
	}
	if t.Implements(marshalerType) || t.Implements(textType) || reflect.PointerTo(t).Implements(marshalerType) {
		panic(fmt.Sprintf("kit: %s: %s encodes itself; the schema generator does not know its shape", g.path, t))
	}
	switch t.Kind() {
	case reflect.String:
		switch {
		case o.enum != nil:
			return Enum(o.enum...)
		case o.format != "":
			return Schema{"type": "string", "format": o.format}
		case o.pattern != "":
			return Schema{"type": "string", "pattern": o.pattern}
		case o.decimal:
			return g.bare(decimalType, o)
		}
		return Str()
	case reflect.Bool:
		return Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s := Int()
		if o.min != nil {
			s["minimum"] = *o.min
		}
		if o.max != nil {
			s["maximum"] = *o.max
		}
		return s
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		return ArrayOf(g.bare(t.Elem(), o))
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("kit: %s: map keys of %s are not strings", g.path, t))
		}
		return Schema{"type": "object", "additionalProperties": g.bare(t.Elem(), o)}
	case reflect.Struct:
		if name, ok := g.names[t]; ok {
			if !o.nested.empty() {
				panic(fmt.Sprintf("kit: %s: model %s declares for itself", g.path, name))
			}
			return Ref(name)
		}
		return g.object(t, o.nested)
	case reflect.Interface:
		return Schema{}
	}
	panic(fmt.Sprintf("kit: %s: %s has no JSON schema", g.path, t))
}

// object is the schema of a struct as encoding/json writes it: embedded
// structs lend their fields, a field with omitempty or omitzero may be
// absent, every other field is always sent (null when empty).
// outer are the declarations of the enclosing struct for t's fields, a
// Shape of t's own.
func (g generator) object(t reflect.Type, outer Shape) Schema {
	decl := outer
	if d, ok := reflect.New(t).Elem().Interface().(Declarer); ok {
		d.Declare(&decl)
	}
	props := map[string]any{}
	var required []string
	g.fields(t, &decl, props, &required)
	for _, name := range decl.fields() {
		if _, ok := props[name]; !ok {
			panic(fmt.Sprintf("kit: %s declares for %q, which it has no field for", t, name))
		}
	}
	slices.Sort(required)
	return Schema{"type": "object", "required": required, "properties": props}
}

func (g generator) fields(t reflect.Type, decl *Shape, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, flags, _ := strings.Cut(tag, ",")
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, decl, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		o := parseOptions(f.Tag.Get(schemaTag), g.path+"."+name)
		o.enum, o.pattern, o.nested = decl.enums[name], decl.patterns[name], decl.under(name)
		inner := g
		inner.path = g.path + "." + name
		props[name] = inner.schema(f.Type, o)
		if !strings.Contains(","+flags+",", ",omitempty,") && !strings.Contains(","+flags+",", ",omitzero,") {
			*required = append(*required, name)
		}
	}
}

func parseOptions(tag, where string) fieldOptions {
	var o fieldOptions
	for opt := range strings.SplitSeq(tag, ",") {
		switch key, value, _ := strings.Cut(opt, "="); key {
		case "":
		case "date", "uri", "uuid":
			o.format = key
		case "decimal":
			o.decimal = true
		case "signed":
			o.signed = true
		case "object":
			o.object = true
		case "min", "max":
			n, err := strconv.Atoi(value)
			if err != nil {
				panic(fmt.Sprintf("kit: %s: schema option %q is not an integer", where, opt))
			}
			if key == "min" {
				o.min = &n
			} else {
				o.max = &n
			}
		case "desc":
			o.descKey = value
		default:
			panic(fmt.Sprintf("kit: %s: unknown schema option %q", where, opt))
		}
	}
	return o
}

// signedDecimal is a decimal string that may be negative: a stock change,
// or the balance of an item that is not stock-tracked.
func signedDecimal() Schema {
	return Schema{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`, "examples": []string{"-12.5"}}
}

// Names of the models kit itself answers with.
const (
	listLinksModel     = "ListLinks"
	ErrorEnvelopeModel = "ErrorEnvelope"
)

// Models are the models of kit's own answers: the list links and the
// error envelope, whose code the document narrows to the codes the
// service answers.
func Models() []Model {
	return []Model{ModelOf[listLinks](listLinksModel), ModelOf[errorBody](ErrorEnvelopeModel)}
}
