package sheet

import (
	"bytes"
	"io"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// oneByte writes what it is given a byte at a time, so that every cell
// the numbers filter rewrites is split across writes.
type oneByte struct{ out io.Writer }

func (o oneByte) Write(p []byte) (int, error) {
	for i := range p {
		if _, err := o.out.Write(p[i : i+1]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

// Decimals are number cells holding their exact digits, however many: a
// float64 would keep about 15 of them.
func TestDecimalsAreExactNumbers(t *testing.T) {
	large := decimal.RequireFromString("123456789012345.123456789")
	x := excelize.NewFile()
	defer x.Close()
	require.NoError(t, Stream(x, "masses", All([][]any{
		{"key", "mass_g", "count", "note"},
		{"a", large, 3, `s="1" t="inlineStr"><is><t>9</t></is>`},
		{"b", decimal.RequireFromString("1200.50"), int64(7), "1200.5"},
	})))
	var out bytes.Buffer
	require.NoError(t, Save(x, oneByte{&out}))

	read, err := excelize.OpenReader(&out, excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	defer read.Close()
	for cell, want := range map[string]string{"B2": "123456789012345.123456789", "B3": "1200.5", "C2": "3", "C3": "7"} {
		value, err := read.GetCellValue("masses", cell, excelize.Options{RawCellValue: true})
		require.NoError(t, err)
		assert.Equal(t, want, value, cell)
		kind, err := read.GetCellType("masses", cell)
		require.NoError(t, err)
		assert.Contains(t, []excelize.CellType{excelize.CellTypeUnset, excelize.CellTypeNumber}, kind, "%s is a number", cell)
	}
	for cell, want := range map[string]string{"D2": `s="1" t="inlineStr"><is><t>9</t></is>`, "D3": "1200.5", "A2": "a"} {
		value, err := read.GetCellValue("masses", cell)
		require.NoError(t, err)
		assert.Equal(t, want, value, cell)
		kind, err := read.GetCellType("masses", cell)
		require.NoError(t, err)
		assert.Equal(t, excelize.CellTypeInlineString, kind, "%s stays text", cell)
	}

	var csv bytes.Buffer
	require.NoError(t, CSV(&csv, All([][]any{{large, 3}})))
	assert.Equal(t, "123456789012345.123456789,3\n", csv.String(), "CSV writes the same digits")
}

// A Number, a decimal's text as a query answers it, is the same number
// cell as its decimal.
func TestNumbersAreTheirDecimals(t *testing.T) {
	x := excelize.NewFile()
	defer x.Close()
	require.NoError(t, Stream(x, "masses", All([][]any{
		{Number("123456789012345.123456789"), decimal.RequireFromString("123456789012345.123456789")},
	})))
	var out bytes.Buffer
	require.NoError(t, Save(x, &out))

	read, err := excelize.OpenReader(&out)
	require.NoError(t, err)
	defer read.Close()
	for _, cell := range []string{"A1", "B1"} {
		value, err := read.GetCellValue("masses", cell, excelize.Options{RawCellValue: true})
		require.NoError(t, err)
		assert.Equal(t, "123456789012345.123456789", value, cell)
		kind, err := read.GetCellType("masses", cell)
		require.NoError(t, err)
		assert.Contains(t, []excelize.CellType{excelize.CellTypeUnset, excelize.CellTypeNumber}, kind, "%s is a number", cell)
	}
}
