package imports

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/datatypes"

	"ppwr/domain/catalog"
	"ppwr/internal/input"
)

// Cells and changes are written byte for byte as json.Marshal writes their
// maps, whatever their text.
func TestTextObjectsAreWrittenAsJSONMarshalWritesThem(t *testing.T) {
	texts := []string{"", "Box", "Łódź żółć", "a\"b\\c", "<b>&amp;</b>", "tab\there\nline", "\x00\x1f\x7f",
		"\u2028\u2029", "bad \xff utf-8", "\uFFFD", "€ 1,5", "emoji 🙂"}
	cells := map[string]string{}
	fields := map[string]*string{"null": nil}
	for i, s := range texts {
		cells[s+"k"] = s
		fields[string(rune('a'+i))+s] = &texts[i]
	}
	want, err := json.Marshal(cells)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(cellsJSON(cells)))
	assert.Equal(t, "{}", string(cellsJSON(map[string]string{})))
	for _, c := range []RowChange{{Fields: fields}, {Fields: map[string]*string{}}, {Fields: fields, PlannedOnly: true},
		{Fields: fields, Revision: 2}, {}} {
		want, err = json.Marshal(c)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(changeJSON(c)))
	}
}

// The direct writing of a create's change names the fields it may skip:
// a field RowChange gains must either make changeJSON take json.Marshal or
// be written by it, never be dropped.
func TestAChangeWithAnyFieldBesideItsFieldsIsWrittenWhole(t *testing.T) {
	fields := map[string]*string{"name": new(string)}
	typ := reflect.TypeFor[RowChange]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Name == "Fields" {
			continue
		}
		c := RowChange{Fields: fields}
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.Array: // a UUID
			v.Index(0).SetUint(1)
		case reflect.Map:
			v.Set(reflect.MakeMap(v.Type()))
			v.SetMapIndex(reflect.ValueOf("name"), reflect.New(v.Type().Elem()).Elem())
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int:
			v.SetInt(1)
		default:
			t.Fatalf("RowChange.%s: set a value of kind %s here", f.Name, v.Kind())
		}
		want, err := json.Marshal(c)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(changeJSON(c)), f.Name)
	}
}

// A create's plan is read directly as encoding/json reads it, in the form
// PostgreSQL renders it and in the form it was written; any other plan,
// or text that needs unescaping, is left to encoding/json.
func TestCreateCellsReadAPlanAsEncodingJSONDoes(t *testing.T) {
	direct := []string{
		`{"fields": {"name": "Karton", "massG": "420.5", "folder": null, "reuseType": "single_use"}}`,
		`{"fields":{"internalCode":"A-1","name":"Łódź żółć 🙂"}}`,
		"{ \"fields\" :\n{\t} }",
		`{"fields": {"name": "a", "name": "b"}}`,
	}
	whole := []string{
		`{"fields": {"name": "a\"b"}}`, `{"fields": {"name": "tab\tthere"}}`, `{"fields": {"name": "\u0141"}}`,
		"{\"fields\": {\"name\": \"bad \xff\"}}",
		`{"fields": {"name": "Box"}, "changes": {"code": {"to": "PLASTIC_PET", "from": "PAPER"}}, "codeMapping": "0190c1f2-0000-7000-8000-000000000001"}`,
		`{"fields": {}, "document": "0190c1f2-0000-7000-8000-000000000001", "plannedOnly": true}`,
		`{"changes": {"name": {"to": "B", "from": "A"}}, "revision": 3, "catalogItem": "0190c1f2-0000-7000-8000-000000000001"}`,
		`{"fields": ["name"]}`, `{"fields": {"name": 1}}`, `{"fields": {"name": "a"}`, `{"fields": {"name": "a",}}`,
		`{"fields": {"name": "a"}} x`, `{"fields": {"name" "a"}}`, `{"fields": {"name": nullx}}`,
	}
	for _, doc := range append(direct, whole...) {
		row := &ImportRow{Outcome: OutcomeCreate, Planned: datatypes.JSON(doc)}
		want, wantErr := decodePlannedCells(row)
		got, ok := createCells(row.Planned)
		if !ok {
			assert.NotContains(t, direct, doc, "read directly")
			continue
		}
		assert.Contains(t, direct, doc, "left to encoding/json")
		require.NoError(t, wantErr, doc)
		assert.Equal(t, want, got, doc)
	}
}

// A create's change is written from its fields as changeJSON writes the
// map of the values sent, whichever are sent, null or need escaping.
func TestACreateIsWrittenAsTheMapOfItsFields(t *testing.T) {
	null := input.Opt[string]{Sent: true, Null: true}
	for name, in := range map[string]catalog.CatalogItemFields{
		"every field": {InternalCode: input.Of("K-1"), Name: input.Of(`Karton "A" <b> & Łódź`), SourcingType: input.Of("purchased"),
			MassG: input.Of(decimal.RequireFromString("420.50")), MainMaterialCode: input.Of("PAPER_CORRUGATED"),
			StockUnit: input.Of("piece"), StockTracked: input.Of(false), FoodContactStatus: input.Of("not_food_contact"),
			ReuseType: input.Of("single_use"), InnerLengthMm: input.Of(decimal.NewFromInt(300)),
			InnerWidthMm: input.Of(decimal.RequireFromString("0.5")), InnerHeightMm: input.Of(decimal.Zero),
			Folder: input.Of(uuid.New()), Family: input.Of(uuid.New())},
		"nulls": {InternalCode: input.Of("K-2"), Name: null, MassG: input.Opt[decimal.Decimal]{Sent: true, Null: true},
			StockTracked: input.Opt[bool]{Sent: true, Null: true}, Folder: input.Opt[uuid.UUID]{Sent: true, Null: true}},
		"none": {},
	} {
		sent := sentFields(&in)
		want := changeJSON(RowChange{Fields: sentValues(sent[:])})
		assert.Equal(t, string(want), string(createJSON(sent[:])), name)
	}
}

// Every field of an item is sent, under its API name, and in the order of
// the names, which createJSON writes them in.
func TestEveryFieldOfAnItemIsSentInTheOrderOfItsName(t *testing.T) {
	var in catalog.CatalogItemFields
	v := reflect.ValueOf(&in).Elem()
	var want, names []string
	for i := range v.NumField() {
		v.Field(i).FieldByName("Sent").SetBool(true)
		name := v.Type().Field(i).Name
		want = append(want, strings.ToLower(name[:1])+name[1:])
	}
	for _, f := range sentFields(&in) {
		assert.True(t, f.sent, f.name)
		names = append(names, f.name)
	}
	assert.ElementsMatch(t, want, names)
	assert.True(t, slices.IsSorted(names), "%v", names)
}
