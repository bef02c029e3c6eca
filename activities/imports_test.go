package activities

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/models"
)

// Files as spreadsheets write them: the encoding and the delimiter are
// found from the file itself.
func TestOpenCSVDetectsEncodingAndDelimiter(t *testing.T) {
	for name, tc := range map[string]struct {
		file  string
		comma rune
		name  string
	}{
		"UTF-8 with BOM, commas":  {"\uFEFFinternalCode,name\r\nA,Łódź\r\n", ',', "Łódź"},
		"UTF-8, semicolons":       {"internalCode;name\nA;\"Gęś; duża\"\n", ';', "Gęś; duża"},
		"Windows-1250, semicolon": {"internalCode;name\nA;\xa3\xf3d\x9f\n", ';', "Łódź"},
	} {
		r, err := openCSV(strings.NewReader(tc.file))
		require.NoError(t, err, name)
		assert.Equal(t, tc.comma, r.Comma, name)
		header, err := r.Read()
		require.NoError(t, err, name)
		assert.Equal(t, []string{"internalCode", "name"}, header, name)
		row, err := r.Read()
		require.NoError(t, err, name)
		assert.Equal(t, tc.name, row[1], name)
	}
}

func TestImportColumnsRefusesUnknownAndRepeatedColumns(t *testing.T) {
	fields := models.CatalogImportColumns
	_, err := importColumns([]string{"internalCode", "colour"}, fields, nil)
	var bad *unreadable
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, &unreadable{key: "error.import_unknown_columns", args: []any{`"colour"`, strings.Join(fields, ", ")}}, bad)
	_, err = importColumns([]string{"name", " name "}, fields, nil)
	assert.Equal(t, cannotRead("error.import_repeated_column", "name"), err)
	cols, err := importColumns([]string{" internalCode", "massG"}, fields, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"internalCode", "massG"}, cols)
}

func TestImportColumnsFollowTheMapping(t *testing.T) {
	mapping := map[string]string{"Indeks": "internalCode", "Nazwa": "name"}
	cols, err := importColumns([]string{"Indeks", " Nazwa ", "massG"}, models.CatalogImportColumns, mapping)
	require.NoError(t, err)
	assert.Equal(t, []string{"internalCode", "name", "massG"}, cols)
	_, err = importColumns([]string{"Indeks", "internalCode"}, models.CatalogImportColumns, mapping)
	assert.Equal(t, cannotRead("error.import_repeated_column", "internalCode"), err, "a mapped column and the field it maps to are one column")
}
