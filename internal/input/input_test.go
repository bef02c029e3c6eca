package input

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sample declares one field of each kind.
type sample struct {
	Errors
	Name   Opt[string]
	Kind   Opt[string]
	Mass   Opt[decimal.Decimal]
	Count  Opt[int]
	Active Opt[bool]
	Ref    Opt[uuid.UUID]
	Tags   Opt[[]string]
}

func (s *sample) Declare(f *Fields) {
	f.Text("name", &s.Name, Text{Required: true, Max: 5})
	f.Enum("kind", &s.Kind, Enum{Values: []string{"a", "b"}, Refused: map[string]string{"c": "field.c"}})
	f.Decimal("mass", &s.Mass, Decimal{Positive: true})
	f.Int("count", &s.Count, Revision(false))
	f.Bool("active", &s.Active, Bool{})
	f.Ref("ref", &s.Ref, Ref{Nullable: true})
	f.List("tags", &s.Tags, List{Values: []string{"x", "y"}})
}

func keys(e *Errors) map[string]string {
	out := map[string]string{}
	for _, f := range e.fields {
		out[f.Field] = f.Key
	}
	return out
}

func TestBindingNamesEveryBadField(t *testing.T) {
	var s sample
	require.NoError(t, FromJSON([]byte(`{"name":"a\u0000","kind":"C","mass":"1e3","count":2147483648,"active":"yes","ref":"00000000-0000-0000-0000-000000000000","tags":["x","z"]}`), &s))
	assert.Equal(t, map[string]string{
		"name": "field.text_invalid", "kind": "field.c", "mass": "field.decimal_string", "count": "field.integer_range",
		"active": "field.boolean", "ref": "field.uuid", "tags": "field.one_of",
	}, keys(&s.Errors))

	s = sample{}
	require.NoError(t, FromJSON([]byte(`{"name":null,"mass":" 12.5 ","count":1.5,"ref":null,"kind":null}`), &s))
	assert.Equal(t, map[string]string{"name": "field.required", "mass": "field.decimal_string", "count": "field.integer", "kind": "field.not_null"}, keys(&s.Errors))
	assert.True(t, s.Ref.Sent && s.Ref.Null, "null is sent, and allowed where nullable")

	assert.ErrorIs(t, FromJSON([]byte(`[1]`), &sample{}), ErrNotObject)
}

func TestBindingValues(t *testing.T) {
	var s sample
	require.NoError(t, FromJSON([]byte(`{"name":" ab ","kind":"b","mass":"12.50","count":7,"active":true,"tags":["y","x","y"]}`), &s))
	require.False(t, s.Failed(), "%v", s.Err())
	assert.Equal(t, "ab", s.Name.Value, "trimmed")
	assert.True(t, s.Mass.Value.Equal(decimal.RequireFromString("12.5")))
	assert.Equal(t, 7, s.Count.Value)
	assert.Equal(t, []string{"y", "x"}, s.Tags.Value, "duplicates dropped")
	assert.False(t, s.Ref.Sent)

	// The same fields from text cells, as an import row or a query string
	// sends them; an empty cell is absent.
	var c sample
	FromCells(map[string]string{"name": "ab", "mass": "12.5", "count": "7", "active": "true", "tags": "x,y", "kind": ""}, &c)
	require.False(t, c.Failed(), "%v", c.Err())
	assert.Equal(t, 7, c.Count.Value)
	assert.True(t, c.Active.Value)
	assert.False(t, c.Kind.Sent)
	var bad sample
	FromCells(map[string]string{"name": "abcdef", "count": "0", "active": "maybe"}, &bad)
	assert.Equal(t, map[string]string{"name": "field.too_long", "count": "field.integer_range", "active": "field.boolean"}, keys(&bad.Errors))
}

// The schema comes from the same declaration: limits and enumerations
// are written once.
func TestDescribe(t *testing.T) {
	s := Describe(&sample{})
	assert.Equal(t, []string{"name"}, s["required"])
	props := s["properties"].(map[string]any)
	assert.Equal(t, Schema{"type": "string", "maxLength": 5, "minLength": 1}, props["name"])
	assert.Equal(t, []string{"a", "b"}, props["kind"].(Schema)["enum"])
	assert.Equal(t, decimalPattern, props["mass"].(Schema)["pattern"])
	assert.Equal(t, []string{"string", "null"}, props["ref"].(Schema)["type"])
	assert.Equal(t, 2147483647, props["count"].(Schema)["maximum"])
	params := DescribeParams(&sample{})
	require.Len(t, params, 7)
	assert.Equal(t, "name", params[0].Name)
	assert.True(t, params[0].Required)
}

type nullableDecimal struct {
	Errors
	Size Opt[decimal.Decimal]
}

func (s *nullableDecimal) Declare(f *Fields) {
	f.Decimal("size", &s.Size, Decimal{Positive: true, Nullable: true})
}

func TestNullableDecimal(t *testing.T) {
	var s nullableDecimal
	require.NoError(t, FromJSON([]byte(`{"size":null}`), &s))
	assert.False(t, s.Failed())
	assert.True(t, s.Size.Sent && s.Size.Null, "null clears")
	assert.Equal(t, []string{"string", "null"}, Describe(&s)["properties"].(map[string]any)["size"].(Schema)["type"])
	s = nullableDecimal{}
	require.NoError(t, FromJSON([]byte(`{"size":"0"}`), &s))
	assert.Equal(t, map[string]string{"size": "field.positive"}, keys(&s.Errors))
}

// A string field reads as the JSON decoder reads it, whether or not it
// takes the way round the decoder.
func TestPlainStringsReadAsDecoded(t *testing.T) {
	for _, raw := range []string{`"PET bottle"`, `""`, `"ząb 🦷"`, `"a\"b"`, `"tab\there"`, `"\u0041"`, "\"\xff\"", "\"a\tb\"",
		`"x\\y"`, `"\/"`} {
		var want string
		wantErr := json.Unmarshal([]byte(raw), &want)
		var errs Errors
		f := &Fields{src: jsonSource{"name": raw}, errs: &errs}
		s, ok := f.text("name", raw, "field.string")
		assert.Equal(t, wantErr == nil, ok, raw)
		assert.Equal(t, want, s, raw)
	}
}

// objectMembers finds what decoding into a map of raw messages finds, for
// any input, around which it allows any space, as binding always did.
func FuzzObjectMembers(f *testing.F) {
	for _, seed := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}], "d":{"e":[]} ,"f":"x\"y","g":null,"h":true,"i":-1.5e3} `,
		`{"a":1,"a":2}`, `{"\u006eame":"x","na\\me":"y","\xff":1,"ż":2}`, `[]`, `null`, `"x"`, `{`, `{"a":1}x`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		var want map[string]json.RawMessage
		trimmed := bytes.TrimSpace(obj)
		wantOK := json.Unmarshal(trimmed, &want) == nil && want != nil
		var got jsonSource
		ok := json.Valid(trimmed)
		if ok {
			got, ok = objectMembers(string(trimmed))
		}
		require.Equal(t, wantOK, ok)
		if ok {
			require.Len(t, got, len(want))
			for name, value := range want {
				require.Equal(t, string(value), got[name], name)
			}
		}
	})
}
