package catalog

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An item's specifications are written byte for byte as json.Marshal
// writes them, every field included, whatever their text and with each
// optional one absent or present.
func TestSpecificationsAreWrittenAsJSONMarshalWritesThem(t *testing.T) {
	length := decimal.RequireFromString("12.50")
	specs := []ItemSpecifications{{}, {InternalCode: "A<&>\u2028", Name: "Karton \"duży\"\t\xff", MassG: decimal.RequireFromString("3.1"),
		StockTracked: true, InnerWidthMm: &length, Status: ItemActive}}
	// Every field set, so that a field added to the type and not written
	// here fails.
	var full ItemSpecifications
	v := reflect.ValueOf(&full).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Interface().(type) {
		case string:
			f.SetString(v.Type().Field(i).Name + " ż")
		case bool:
			f.SetBool(true)
		case decimal.Decimal:
			f.Set(reflect.ValueOf(decimal.New(int64(1000+i), -2)))
		case *decimal.Decimal:
			d := decimal.New(int64(i), 1)
			f.Set(reflect.ValueOf(&d))
		default:
			t.Fatalf("ItemSpecifications.%s: set a value of type %s here", v.Type().Field(i).Name, f.Type())
		}
	}
	for _, s := range append(specs, full) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(s.appendJSON(nil)))
	}
}
