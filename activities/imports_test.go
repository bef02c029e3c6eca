package activities

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/imports"
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

// A file that is neither a workbook nor text is refused before it is read
// as CSV, where its bytes would come out as unknown columns; text in every
// encoding read, and an empty file, are read on.
func TestOpenRowsRefusesFilesThatAreNotText(t *testing.T) {
	random := make([]byte, 4096)
	_, _ = rand.NewChaCha8([32]byte{25}).Read(random)
	for name, file := range map[string][]byte{
		"random bytes": random,
		// Signatures the sniffing knows, followed by text: the format is
		// told by its start alone.
		"a PDF":                 []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"),
		"a PNG":                 append([]byte("\x89PNG\r\n\x1a\n"), "internalCode,name\n"...),
		"an old .xls workbook":  append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), bytes.Repeat([]byte{0}, 504)...),
		"UTF-8 with a NUL byte": []byte("internalCode,name\nA,\x00\n"),
	} {
		_, err := openRows(bytes.NewReader(file), "")
		assert.Equal(t, cannotRead("error.import_not_csv_or_xlsx"), err, name)
	}
	for name, file := range map[string]string{
		"UTF-8":        "internalCode,name\nA,Łódź\n",
		"Windows-1250": "internalCode;name\nA;\xa3\xf3d\x9f\n",
		"tabs, CRLF":   "internalCode\tname\r\n",
	} {
		rows, err := openRows(strings.NewReader(file), "")
		require.NoError(t, err, name)
		header, err := rows.Read()
		require.NoError(t, err, name)
		assert.Contains(t, header[0], "internalCode", name)
	}
	rows, err := openRows(strings.NewReader(""), "")
	require.NoError(t, err, "an empty file is refused as empty, later")
	_, err = rows.Read()
	assert.ErrorIs(t, err, io.EOF)
}

func TestImportColumnsRefusesUnknownAndRepeatedColumns(t *testing.T) {
	fields := imports.CatalogImportColumns
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
	cols, err := importColumns([]string{"Indeks", " Nazwa ", "massG"}, imports.CatalogImportColumns, mapping)
	require.NoError(t, err)
	assert.Equal(t, []string{"internalCode", "name", "massG"}, cols)
	_, err = importColumns([]string{"Indeks", "internalCode"}, imports.CatalogImportColumns, mapping)
	assert.Equal(t, cannotRead("error.import_repeated_column", "internalCode"), err, "a mapped column and the field it maps to are one column")
}
