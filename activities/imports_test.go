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

func TestCatalogColumnsRefusesUnknownAndRepeatedColumns(t *testing.T) {
	_, err := catalogColumns([]string{"internalCode", "colour"})
	var bad *unreadable
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, &unreadable{key: "error.import_unknown_columns", args: []any{`"colour"`, strings.Join(models.CatalogImportColumns, ", ")}}, bad)
	_, err = catalogColumns([]string{"name", " name "})
	assert.Equal(t, cannotRead("error.import_repeated_column", "name"), err)
	cols, err := catalogColumns([]string{" internalCode", "massG"})
	require.NoError(t, err)
	assert.Equal(t, []string{"internalCode", "massG"}, cols)
}
