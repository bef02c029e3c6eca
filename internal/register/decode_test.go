package register

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyKind declares one value of each kind, and a derived one.
var everyKind = &Register{
	Slug: "every-kind",
	Fields: []Field{
		text("text", 100), enum("enum", "a", "b"), enums("enums", "a", "b"), boolean("bool"), integer("int", 0, 10),
		date("date"), quantity("quantity", Grams), component("component"), document("document"), {Name: "scenario", Kind: Scenario},
		objects("objects", 5, text("text", 100), document("document")),
	},
	Derived: []Derived{{Name: "double", Kind: Quantity, Unit: "g", Compute: func(v Values, _ Subject) Value {
		if q, ok := v.Quantity("quantity"); ok {
			return QuantityValue(q.Add(q), "g")
		}
		return nil
	}}},
}

var (
	part     = uuid.MustParse("0195f5a8-0000-7000-8000-000000000001")
	report   = uuid.MustParse("0195f5a8-0000-7000-8000-000000000002")
	scenario = uuid.MustParse("0195f5a8-0000-7000-8000-000000000003")
)

// store binds body as a create body and completes it, as a new entry is
// stored.
func store(t *testing.T, body string) []byte {
	t.Helper()
	v, errs := bind(t, everyKind, body)
	require.False(t, errs.Failed(), errs.Err())
	everyKind.Complete(v, Subject{})
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

const fullBody = `{"text": " a text ", "enum": "b", "enums": ["a", "b"], "bool": false, "int": 7, "date": "2026-09-01",
	"quantity": {"value": "1.5", "unit": "kg"}, "component": "0195f5a8-0000-7000-8000-000000000001",
	"document": "0195f5a8-0000-7000-8000-000000000002", "scenario": "0195f5a8-0000-7000-8000-000000000003",
	"objects": [{"text": "x", "document": "0195f5a8-0000-7000-8000-000000000002"}, {"text": "y"}]}`

// What is stored is the JSON the values had as map[string]any: the
// answers repeat it as stored, so its form is the API's.
func TestStoredValuesKeepTheirJSON(t *testing.T) {
	assert.Equal(t, `{"bool":false,"component":"0195f5a8-0000-7000-8000-000000000001","date":"2026-09-01",`+
		`"document":"0195f5a8-0000-7000-8000-000000000002","double":{"unit":"g","value":"3000"},"enum":"b","enums":["a","b"],"int":7,`+
		`"objects":[{"document":"0195f5a8-0000-7000-8000-000000000002","text":"x"},{"document":null,"text":"y"}],`+
		`"quantity":{"unit":"g","value":"1500"},"scenario":"0195f5a8-0000-7000-8000-000000000003","text":"a text"}`,
		string(store(t, fullBody)))
	assert.Equal(t, `{"bool":null,"component":null,"date":null,"document":null,"double":null,"enum":null,"enums":[],"int":null,`+
		`"objects":[],"quantity":null,"scenario":null,"text":null}`, string(store(t, `{}`)))
}

func TestDecodeReadsEveryKindBack(t *testing.T) {
	raw := store(t, fullBody)
	back, err := everyKind.Decode(raw)
	require.NoError(t, err)
	assert.Equal(t, Values{
		"text": TextValue("a text"), "enum": TextValue("b"), "enums": EnumsValue([]string{"a", "b"}), "bool": BoolValue(false),
		"int": IntValue(7), "date": TextValue("2026-09-01"), "quantity": QuantityValue(decimal.RequireFromString("1500"), "g"),
		"component": IDValue(part), "document": IDValue(report), "scenario": IDValue(scenario),
		"objects": ObjectsValue([]Values{{"text": TextValue("x"), "document": IDValue(report)}, {"text": TextValue("y")}}),
		"double":  QuantityValue(decimal.RequireFromString("3000"), "g"),
	}, back)
	assert.Equal(t, []Ref{{Field: "component", Kind: Component, ID: part}, {Field: "document", Kind: Document, ID: report},
		{Field: "scenario", Kind: Scenario, ID: scenario}, {Field: "objects.0.document", Kind: Document, ID: report}}, everyKind.Refs(back))
	everyKind.Complete(back, Subject{})
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.Equal(t, string(raw), string(again), "a decoded entry, completed, is stored as it was")

	back, err = everyKind.Decode(store(t, `{}`))
	require.NoError(t, err)
	assert.Equal(t, Values{"enums": EnumsValue([]string{}), "objects": ObjectsValue([]Values{})}, back, "null is absent")
}

// A stored value that does not read as its declared kind fails the read,
// naming the value, instead of reading as absent.
func TestDecodeRefusesAValueOfAnotherKind(t *testing.T) {
	for _, bad := range []struct{ field, value, path string }{
		{"text", `1`, "text"},
		{"enum", `true`, "enum"},
		{"enums", `"a"`, "enums"},
		{"enums", `["a", null]`, "enums"},
		{"bool", `"true"`, "bool"},
		{"int", `1.5`, "int"},
		{"date", `"2026-13-01"`, "date"},
		{"quantity", `{"value": "1,5", "unit": "g"}`, "quantity"},
		{"quantity", `{"value": "1"}`, "quantity"},
		{"quantity", `{"value": "1", "unit": "kg"}`, "quantity"},
		{"quantity", `{"value": 1, "unit": "g"}`, "quantity"},
		{"component", `"0195f5a8"`, "component"},
		{"document", `7`, "document"},
		{"scenario", `""`, "scenario"},
		{"objects", `{"text": "x"}`, "objects"},
		{"objects", `[{"text": "x"}, null]`, "objects.1"},
		{"objects", `[{"text": "x", "document": "no"}]`, "objects.0.document"},
		{"double", `"3000"`, "double"},
	} {
		t.Run(bad.field+"="+bad.value, func(t *testing.T) {
			var stored map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(store(t, fullBody), &stored))
			stored[bad.field] = json.RawMessage(bad.value)
			raw, err := json.Marshal(stored)
			require.NoError(t, err)
			_, err = everyKind.Decode(raw)
			assert.ErrorContains(t, err, "register every-kind: stored value "+bad.path+" is not ")
		})
	}
	_, err := everyKind.Decode([]byte(`[]`))
	assert.EqualError(t, err, "register every-kind: stored values are not an object: []")
}

// A vocabulary may change after values were stored: an enumeration value
// outside it is read as stored.
func TestDecodeKeepsAnEnumerationValueOutsideItsVocabulary(t *testing.T) {
	back, err := everyKind.Decode([]byte(`{"enum": "retired", "enums": ["a", "retired"]}`))
	require.NoError(t, err)
	assert.Equal(t, "retired", back.String("enum"))
	assert.Equal(t, []string{"a", "retired"}, back.Strings("enums"))
}
