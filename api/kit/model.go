package kit

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
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
	Name string
	Type reflect.Type
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
// from (the schema of the field, of its items for a list, of its values
// for a map, is that enumeration), and the description of the struct
// itself.
type Declarer interface {
	Declare(*Shape)
}

// Shape collects a Declarer's declarations, by JSON field name.
type Shape struct {
	enums   map[string][]string
	descKey string
}

// Describe gives the struct's schema the description of a message key,
// translated in each locale's document.
func (s *Shape) Describe(key string) { s.descKey = key }

// Enum declares that the string values of field are among values.
func (s *Shape) Enum(field string, values ...string) {
	if s.enums == nil {
		s.enums = map[string][]string{}
	}
	s.enums[field] = values
}

// Field tags understood beside `json`, as `schema:"option,option"`:
//
//	date        a string holding a calendar date (format date)
//	uri         a string holding a URI (format uri)
//	uuid        a string holding a UUID (format uuid)
//	signed      a decimal that may be negative
//	object      a json.RawMessage that is always a JSON object
//	ref=<name>  a json.RawMessage holding the encoding of the named
//	            model, kept as stored rather than decoded and encoded
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
		out[m.Name] = g.object(m.Type)
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
	enum    []string
	format  string
	signed  bool
	object  bool
	descKey string
	ref     string
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
		if o.ref != "" {
			if !slices.Contains(slices.Collect(maps.Values(g.names)), o.ref) {
				panic(fmt.Sprintf("kit: %s: %s is not a model", g.path, o.ref))
			}
			return Ref(o.ref)
		}
		if o.object {
			return Schema{"type": "object"}
		}
		return Schema{}
	}
	if t.Kind() == reflect.Pointer {
		return Nullable(g.bare(t.Elem(), o))
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
		}
		return Str()
	case reflect.Bool:
		return Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Int()
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
			return Ref(name)
		}
		return g.object(t)
	case reflect.Interface:
		return Schema{}
	}
	panic(fmt.Sprintf("kit: %s: %s has no JSON schema", g.path, t))
}

// object is the schema of a struct as encoding/json writes it: embedded
// structs lend their fields, a field with omitempty or omitzero may be
// absent, every other field is always sent (null when empty).
func (g generator) object(t reflect.Type) Schema {
	var decl Shape
	if d, ok := reflect.New(t).Elem().Interface().(Declarer); ok {
		d.Declare(&decl)
	}
	props := map[string]any{}
	var required []string
	g.fields(t, &decl, props, &required)
	for name := range decl.enums {
		if _, ok := props[name]; !ok {
			panic(fmt.Sprintf("kit: %s declares an enumeration for %q, which it has no field for", t, name))
		}
	}
	slices.Sort(required)
	s := Schema{"type": "object", "required": required, "properties": props}
	if decl.descKey != "" {
		s = Described(s, decl.descKey)
	}
	return s
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
		o.enum = decl.enums[name]
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
		case "signed":
			o.signed = true
		case "object":
			o.object = true
		case "desc":
			o.descKey = value
		case "ref":
			o.ref = value
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
