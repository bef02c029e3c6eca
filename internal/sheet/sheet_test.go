package sheet

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// read opens a written workbook with another library's reader.
func read(t *testing.T, workbook []byte) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(workbook), excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// Decimals are number cells holding their exact digits, however many: a
// float64 would keep about 15 of them.
func TestDecimalsAreExactNumbers(t *testing.T) {
	large := decimal.RequireFromString("123456789012345.123456789")
	var out bytes.Buffer
	x := NewWorkbook(&out)
	require.NoError(t, x.Stream("masses", All([][]any{
		{"key", "mass_g", "count", "note"},
		{"a", large, 3, `s="1" t="inlineStr"><is><t>9</t></is>`},
		{"b", decimal.RequireFromString("1200.50"), int64(7), "1200.5"},
	})))
	require.NoError(t, x.Close())

	read := read(t, out.Bytes())
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

// Every kind of value reads back as it was written, text with what XML
// escapes, a spreadsheet's own escapes, spaces at its ends and characters
// XML cannot hold; sheets come in the order they were added, and a sheet
// of many chunks and columns keeps every row.
func TestAWorkbookReadsBackAsWritten(t *testing.T) {
	var out bytes.Buffer
	x := NewWorkbook(&out)
	texts := []any{"a & b <c> \"d\"", "_x0041_ stays", " padded\t", "line\r\nbreak", "bell\x07", "zażółć 𝄞", "", "_x12"}
	require.NoError(t, x.Stream("texts & more", All([][]any{texts})))
	require.NoError(t, x.Stream("values", All([][]any{
		{true, false, nil, int8(-8), uint16(16), int32(-32), uint64(64), 2.5, float32(0.25), []byte("raw"), decimal.RequireFromString("-0.000001")},
		{},
		{uuidLike{}},
	})))
	wide := make([]any, 30)
	for i := range wide {
		wide[i] = i
	}
	rows := 20_000
	require.NoError(t, x.Stream("many", func(add func([]any) error) error {
		for i := 0; i < rows; i++ {
			wide[0] = "row " + strconv.Itoa(i)
			if err := add(wide); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, x.Close())

	f := read(t, out.Bytes())
	assert.Equal(t, []string{"texts & more", "values", "many"}, f.GetSheetList())
	got, err := f.GetRows("texts & more")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, []string{"a & b <c> \"d\"", "_x0041_ stays", " padded\t", "line\r\nbreak", "bell\uFFFD", "zażółć 𝄞", "", "_x12"}, got[0])

	got, err = f.GetRows("values", excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"1", "0", "", "-8", "16", "-32", "64", "2.5", "0.25", "raw", "-0.000001"}, got[0])
	assert.Empty(t, got[1])
	assert.Equal(t, []string{"uuid-like"}, got[2], "other values are their text")
	for cell, want := range map[string]excelize.CellType{"A1": excelize.CellTypeBool, "D1": excelize.CellTypeUnset, "H1": excelize.CellTypeUnset,
		"J1": excelize.CellTypeInlineString, "K1": excelize.CellTypeUnset} {
		kind, err := f.GetCellType("values", cell)
		require.NoError(t, err)
		assert.Equal(t, want, kind, cell)
	}

	got, err = f.GetRows("many")
	require.NoError(t, err)
	require.Len(t, got, rows)
	assert.Equal(t, "row 19999", got[rows-1][0])
	assert.Equal(t, "29", got[rows-1][29], "column AD")
}

type uuidLike struct{}

func (uuidLike) String() string { return "uuid-like" }

// A cell's text is cut to what spreadsheets accept, between characters.
func TestLongTextIsCut(t *testing.T) {
	var out bytes.Buffer
	x := NewWorkbook(&out)
	require.NoError(t, x.Stream("long", All([][]any{{strings.Repeat("a", maxCellText-1) + "𝄞𝄞"}})))
	require.NoError(t, x.Close())
	value, err := read(t, out.Bytes()).GetCellValue("long", "A1")
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("a", maxCellText-1), value, "a character of two UTF-16 units does not fit the last one")
}

// Names spreadsheets refuse are refused, and so is a workbook without a
// sheet; a fill's error ends the workbook.
func TestWhatAWorkbookRefuses(t *testing.T) {
	x := NewWorkbook(&bytes.Buffer{})
	for _, name := range []string{"", strings.Repeat("n", 32), "a/b", "[x]", "'quoted'"} {
		assert.Error(t, x.Stream(name, All(nil)), name)
	}
	require.NoError(t, x.Stream("Sources", All(nil)))
	assert.Error(t, x.Stream("sources", All(nil)), "names differ by more than case")

	assert.Error(t, NewWorkbook(&bytes.Buffer{}).Close(), "no sheet")

	x = NewWorkbook(&bytes.Buffer{})
	failed := errors.New("the rows ran out")
	assert.ErrorIs(t, x.Stream("rows", func(add func([]any) error) error { return failed }), failed)
	assert.ErrorIs(t, x.Close(), failed)
}

// A destination that fails stops the rows.
func TestAFailingDestinationStopsTheRows(t *testing.T) {
	x := NewWorkbook(failing{})
	added := 0
	err := x.Stream("rows", func(add func([]any) error) error {
		for i := 0; i < 1_000_000; i++ {
			if err := add([]any{strings.Repeat("x", 1000)}); err != nil {
				return err
			}
			added++
		}
		return nil
	})
	assert.ErrorIs(t, err, errDisk)
	assert.Less(t, added, 1_000_000)
}

var errDisk = errors.New("disk full")

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errDisk }
