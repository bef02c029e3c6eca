package kit

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
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
	// declare adds declarations of this model to those of its type, for
	// one Go type answered as several models (a register's entry).
	declare func(*Shape)
	// example is an answer of the model as handlers encode it (Example).
	example json.RawMessage
}

// With declares for this model what its type does not: one type answered
// as several models takes each model's differences here.
func (m Model) With(declare func(*Shape)) Model {
	m.declare = declare
	return m
}

// Described gives the model's schema the description of a message key,
// translated in each locale's document.
func (m Model) Described(key string) Model {
	m.descKey = key
	return m
}

// Example gives the model's schema an example: v, a value of the model's
// Go type, encoded as handlers encode their answers (gin's c.JSON is
// encoding/json), so the document shows what is sent, and a field added
// to the type is in the example too.
func (m Model) Example(v any) Model {
	if t := reflect.TypeOf(v); t != m.Type {
		panic(fmt.Sprintf("kit: the example of model %s is a %s, not a %s", m.Name, t, m.Type))
	}
	m.example = encodeExample(v)
	return m
}

// encodeExample encodes an example as an answer is encoded.
func encodeExample(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("kit: example %T does not encode: %v", v, err))
	}
	return raw
}

// examplesOf are the examples Model.Example gave a schema.
func examplesOf(s Schema) []json.RawMessage {
	examples, _ := s["examples"].([]json.RawMessage)
	return examples
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
// from, the keys a map always holds, descriptions. The schema of an
// enumerated field (of its items for a list, of its values for a map) is
// that enumeration.
type Declarer interface {
	Declare(*Shape)
}

// Shape collects a Declarer's declarations, by JSON field name.
type Shape struct {
	enums   map[string][]string
	keys    map[string][]string
	descs   map[string]string
	derived map[string]Schema
	consts  map[string]any
}

// Const declares that field always holds v.
func (s *Shape) Const(field string, v any) {
	if s.consts == nil {
		s.consts = map[string]any{}
	}
	s.consts[field] = v
}

// Derived declares the schema of a field holding JSON that another Go
// declaration shapes, from which schema is derived: a register entry's
// values, described by the register's fields. The field is required.
func (s *Shape) Derived(field string, schema Schema) {
	if s.derived == nil {
		s.derived = map[string]Schema{}
	}
	s.derived[field] = schema
}

// Enum declares that the string values of field are among values. The
// field may be a path into nested structs that are not models,
// "lines.factors.variant": a struct of a domain package cannot declare
// its own.
func (s *Shape) Enum(field string, values ...string) {
	if s.enums == nil {
		s.enums = map[string][]string{}
	}
	s.enums[field] = values
}

// Keys declares that the map field always holds exactly keys, so each is
// a required property.
func (s *Shape) Keys(field string, keys ...string) {
	if s.keys == nil {
		s.keys = map[string][]string{}
	}
	s.keys[field] = keys
}

// DescribeField gives field the description of a message key: a field an
// embedded struct of another package lends (a struct's own field takes
// the desc tag).
func (s *Shape) DescribeField(field, key string) {
	if s.descs == nil {
		s.descs = map[string]string{}
	}
	s.descs[field] = key
}

// Field tags understood beside `json`, as `schema:"option,option"`:
//
//	date        a string holding a calendar date (format date)
//	uri         a string holding a URI (format uri)
//	uuid        a string holding a UUID (format uuid)
//	sha256      a string holding a hex SHA-256 digest
//	signed      a decimal that may be negative
//	decimal     a string holding a decimal the handler formats itself
//	            (decimal.Decimal.StringFixed)
//	min=<n>     an integer's least value
//	max=<n>     an integer's greatest value
//	const=<v>   a field that always holds the JSON value v
//	object      a json.RawMessage that is always a JSON object
//	objects     a json.RawMessage that is always a JSON array of objects
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
			if m.declare == nil {
				panic(fmt.Sprintf("kit: %s is both model %s and %s", m.Type, prev, m.Name))
			}
			// Several models of one type: no other model can refer to
			// one of them by its type.
			names[m.Type] = ""
			continue
		}
		names[m.Type] = m.Name
	}
	out := make(map[string]Schema, len(models))
	for _, m := range models {
		if _, dup := out[m.Name]; dup {
			panic(fmt.Sprintf("kit: two models are named %s", m.Name))
		}
		g := generator{names: names, path: m.Name, declare: m.declare}
		s := g.object(m.Type)
		if m.descKey != "" {
			s = Described(s, m.descKey)
		}
		if m.example != nil {
			s["examples"] = []json.RawMessage{m.example}
		}
		out[m.Name] = s
	}
	return out
}

// SchemaOf derives the schema of a value of type t alone, its nested
// structs inline; declare, if not nil, declares for t as Model.With does.
func SchemaOf(t reflect.Type, declare func(*Shape)) Schema {
	g := generator{path: t.String(), declare: declare}
	return g.schema(t, fieldOptions{})
}

type generator struct {
	names map[reflect.Type]string
	path  string // for panics: where the generator is
	// below are the enumerations an enclosing struct declares for paths
	// into the nested struct the generator is at.
	below map[string][]string
	// declare is the model's own declarations (Model.With), for the
	// struct at the top only.
	declare func(*Shape)
}

type fieldOptions struct {
	enum     []string
	keys     []string
	format   string
	sha256   bool
	signed   bool
	object   bool
	objects  bool
	decimal  bool
	min, max *int
	ref      string
	constant any
	descKey  string
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
	if o.constant != nil {
		s["const"] = o.constant
	}
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
		switch {
		case o.ref != "":
			if !slices.Contains(slices.Collect(maps.Values(g.names)), o.ref) {
				panic(fmt.Sprintf("kit: %s: %s is not a model", g.path, o.ref))
			}
			return Ref(o.ref)
		case o.object:
			return Schema{"type": "object"}
		case o.objects:
			return ArrayOf(Schema{"type": "object"})
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
		case o.sha256:
			return Schema{"type": "string", "pattern": "^[0-9a-f]{64}$"}
		case o.format != "":
			return Schema{"type": "string", "format": o.format}
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
		if o.keys != nil {
			props := map[string]any{}
			for _, k := range o.keys {
				props[k] = g.bare(t.Elem(), fieldOptions{})
			}
			return Schema{"type": "object", "required": slices.Sorted(slices.Values(o.keys)), "properties": props}
		}
		return Schema{"type": "object", "additionalProperties": g.bare(t.Elem(), o)}
	case reflect.Struct:
		if name, ok := g.names[t]; ok {
			if name == "" {
				panic(fmt.Sprintf("kit: %s: %s is several models; which one it is here is unknown", g.path, t))
			}
			if len(g.below) > 0 {
				panic(fmt.Sprintf("kit: %s: model %s declares its own enumerations", g.path, name))
			}
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
	for path, values := range g.below {
		decl.Enum(path, values...)
	}
	if d, ok := reflect.New(t).Elem().Interface().(Declarer); ok {
		d.Declare(&decl)
	}
	if g.declare != nil {
		g.declare(&decl)
	}
	props := map[string]any{}
	var required []string
	g.fields(t, &decl, props, &required)
	declared := slices.Concat(slices.Collect(maps.Keys(decl.enums)), slices.Collect(maps.Keys(decl.keys)),
		slices.Collect(maps.Keys(decl.descs)), slices.Collect(maps.Keys(decl.derived)), slices.Collect(maps.Keys(decl.consts)))
	for _, path := range declared {
		if name, _, _ := strings.Cut(path, "."); name != "" {
			if _, ok := props[name]; !ok {
				panic(fmt.Sprintf("kit: %s declares %q, which it has no field for", t, path))
			}
		}
	}
	slices.Sort(required)
	return Schema{"type": "object", "required": required, "properties": props}
}

// fields lends t's fields to props the way encoding/json encodes them: a
// field hides those of its name an embedded struct lends from deeper
// down, so embedded structs are walked one depth at a time.
func (g generator) fields(t reflect.Type, decl *Shape, props map[string]any, required *[]string) {
	for level := []reflect.Type{t}; len(level) > 0; {
		var embedded []reflect.Type
		for _, t := range level {
			for i := range t.NumField() {
				f := t.Field(i)
				tag, hasTag := f.Tag.Lookup("json")
				if tag == "-" || (!f.IsExported() && !f.Anonymous) {
					continue
				}
				name, flags, _ := strings.Cut(tag, ",")
				if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
					embedded = append(embedded, f.Type)
					continue
				}
				if name == "" {
					name = f.Name
				}
				if _, hidden := props[name]; hidden {
					continue
				}
				o := parseOptions(f.Tag.Get(schemaTag), g.path+"."+name)
				o.enum, o.keys = decl.enums[name], decl.keys[name]
				if key, ok := decl.descs[name]; ok {
					o.descKey = key
				}
				if v, ok := decl.consts[name]; ok {
					o.constant = v
				}
				if schema, ok := decl.derived[name]; ok {
					props[name] = schema
					*required = append(*required, name)
					continue
				}
				inner := g
				inner.path = g.path + "." + name
				inner.below, inner.declare = nil, nil
				for path, values := range decl.enums {
					if rest, ok := strings.CutPrefix(path, name+"."); ok {
						if inner.below == nil {
							inner.below = map[string][]string{}
						}
						inner.below[rest] = values
					}
				}
				props[name] = inner.schema(f.Type, o)
				if !strings.Contains(","+flags+",", ",omitempty,") && !strings.Contains(","+flags+",", ",omitzero,") {
					*required = append(*required, name)
				}
			}
		}
		level = embedded
	}
}

func parseOptions(tag, where string) fieldOptions {
	var o fieldOptions
	for opt := range strings.SplitSeq(tag, ",") {
		switch key, value, _ := strings.Cut(opt, "="); key {
		case "":
		case "date", "uri", "uuid":
			o.format = key
		case "sha256":
			o.sha256 = true
		case "signed":
			o.signed = true
		case "const":
			if err := json.Unmarshal([]byte(value), &o.constant); err != nil {
				panic(fmt.Sprintf("kit: %s: const %q is not JSON", where, value))
			}
		case "object":
			o.object = true
		case "objects":
			o.objects = true
		case "decimal":
			o.decimal = true
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
		case "ref":
			o.ref = value
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

// Models are the models of kit's own answers but the error envelope's:
// the list links.
func Models() []Model { return []Model{ModelOf[listLinks](listLinksModel)} }

// ErrorEnvelope is the model of the error envelope, its code one of
// codes: those the service answers.
func ErrorEnvelope(codes []string) Model {
	return ModelOf[errorBody](ErrorEnvelopeModel).With(func(s *Shape) { s.Enum("error.code", codes...) })
}
