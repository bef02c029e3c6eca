package activities

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The workbook LibreOffice made (api/imports/testdata/README.md).
const libreOfficeWorkbook = "../api/imports/testdata/catalog-libreoffice.xlsx"

func openFixture(t *testing.T, sheet string) (rowReader, error) {
	t.Helper()
	f, err := os.Open(libreOfficeWorkbook)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return openRows(f, sheet)
}

func readAll(t *testing.T, rows rowReader) [][]string {
	t.Helper()
	var out [][]string
	for {
		row, err := rows.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, row)
	}
}

// The first sheet, as stored: 24.5 formatted "0.00" reads 24.5, booleans
// 1 and 0, and rows end at their last value.
func TestOpenRowsReadsTheFirstSheetOfAWorkbook(t *testing.T) {
	rows, err := openFixture(t, "")
	require.NoError(t, err)
	x, ok := rows.(*xlsxRows)
	require.True(t, ok, "a ZIP is read as a workbook")
	got := readAll(t, rows)
	require.NoError(t, rows.Close())
	assert.NoDirExists(t, x.dir, "closing removes the workbook's files")
	assert.Equal(t, [][]string{
		{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit", "stockTracked", "foodContactStatus", "reuseType", "folder", "family"},
		{"LO-NOWY-1", "Pudełko kartonowe żółte", "purchased", "12.5", "PAPER_CARDBOARD", "piece", "1", "food_contact", "single_use"},
		{"LO-ISTN-1", "Taśma klejąca", "purchased", "24.5", "PLASTIC_PP", "piece", "0", "not_food_contact", "single_use"},
		{"LO-ZLY-1", "Zła pozycja", "purchased", "-3", "PAPER_CARDBOARD", "pcs"},
	}, got)
}

func TestOpenRowsReadsTheNamedSheetIgnoringCase(t *testing.T) {
	rows, err := openFixture(t, "zapasowy")
	require.NoError(t, err)
	defer rows.Close()
	got := readAll(t, rows)
	require.Len(t, got, 2)
	assert.Equal(t, []string{"LO-DRUGI-1", "Worek foliowy źdźbło", "purchased", "0.75", "PLASTIC_LDPE", "piece", "food_contact", "single_use"}, got[1])
}

func TestOpenRowsRefusesAMissingSheetAndZipsThatAreNoWorkbook(t *testing.T) {
	_, err := openFixture(t, "Arkusz1")
	assert.Equal(t, cannotRead("error.import_no_sheet", "Arkusz1", `"Katalog", "Zapasowy", "Pusty"`), err)

	var odsLike bytes.Buffer
	z := zip.NewWriter(&odsLike)
	w, err := z.Create("content.xml")
	require.NoError(t, err)
	_, err = w.Write([]byte("<office:document-content/>"))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	_, err = openRows(&odsLike, "")
	assert.Equal(t, cannotRead("error.import_not_xlsx"), err)

	file, err := os.ReadFile(libreOfficeWorkbook)
	require.NoError(t, err)
	_, err = openRows(bytes.NewReader(file[:len(file)/2]), "")
	assert.Equal(t, cannotRead("error.import_not_xlsx"), err, "a truncated workbook")
}

// A workbook whose parts excelize would hold in memory inflate past
// xlsxHeldMax (here a picture of 32 MiB of zeros, which compress to
// almost nothing) is refused before excelize reads it.
func TestOpenRowsRefusesAWorkbookThatWouldFillTheMemory(t *testing.T) {
	src, err := zip.OpenReader(libreOfficeWorkbook)
	require.NoError(t, err)
	defer src.Close()
	var crafted bytes.Buffer
	z := zip.NewWriter(&crafted)
	for _, f := range src.File {
		require.NoError(t, z.Copy(f))
	}
	w, err := z.Create("xl/media/image1.png")
	require.NoError(t, err)
	_, err = w.Write(make([]byte, xlsxHeldMax))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	require.Less(t, crafted.Len(), 1<<20)

	_, err = openRows(&crafted, "")
	assert.Equal(t, cannotRead("error.import_not_xlsx"), err)
}

// A sheet and a shared strings table bigger than xlsxInMemory are read
// from temporary files, not held in memory: that keeps reading a
// 100,000-row workbook of LibreOffice (60 MB of XML) at about 60 MB of
// memory, where excelize's default limit (16 MiB) takes about 170 MB.
// Long names make the shared strings outgrow the limit in few rows.
func TestOpenRowsStreamsALargeSheetFromTemporaryFiles(t *testing.T) {
	const n = 10_000
	long := strings.Repeat("ż", 100)
	path := filepath.Join(t.TempDir(), "large.xlsx")
	writeWorkbook(t, path, n+1, func(i int) []string {
		if i == 0 {
			return []string{"internalCode", "name", "massG"}
		}
		return []string{fmt.Sprintf("BIG-%06d", i), fmt.Sprintf("Pudełko %d %s", i, long), strconv.FormatFloat(float64(i)/10, 'f', -1, 64)}
	})
	z, err := zip.OpenReader(path)
	require.NoError(t, err)
	var streamed int64
	for _, f := range z.File {
		if f.Name == "xl/worksheets/sheet1.xml" || f.Name == "xl/sharedStrings.xml" {
			require.Greater(t, f.UncompressedSize64, uint64(xlsxInMemory), f.Name)
			streamed += int64(f.UncompressedSize64)
		}
	}
	require.NoError(t, z.Close())

	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	rows, err := openRows(file, "")
	require.NoError(t, err)
	x := rows.(*xlsxRows)
	got := readAll(t, rows)
	var onDisk int64
	entries, err := os.ReadDir(x.dir)
	require.NoError(t, err)
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		if e.Name() != "upload.xlsx" {
			onDisk += info.Size()
		}
	}
	assert.GreaterOrEqual(t, onDisk, streamed, "the sheet and the shared strings are inflated to files")
	require.NoError(t, rows.Close())
	assert.NoDirExists(t, x.dir)
	require.Len(t, got, n+1)
	assert.Equal(t, []string{"BIG-000001", "Pudełko 1 " + long, "0.1"}, got[1])
	assert.Equal(t, []string{"BIG-010000", "Pudełko 10000 " + long, "1000"}, got[n])
}

// writeWorkbook writes a workbook of one sheet as spreadsheet programs
// do: text in the shared strings table, numbers in the cells.
func writeWorkbook(t *testing.T, path string, n int, row func(int) []string) {
	t.Helper()
	out, err := os.Create(path)
	require.NoError(t, err)
	z := zip.NewWriter(out)
	part := func(name, content string) {
		w, err := z.Create(name)
		require.NoError(t, err)
		_, err = io.WriteString(w, content)
		require.NoError(t, err)
	}
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	part("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>`+
		`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>`+
		`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`+
		`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`)
	part("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
		`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	part("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook `+ns+` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`+
		`<sheets><sheet name="Arkusz1" sheetId="1" r:id="rId1"/></sheets></workbook>`)
	part("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
		`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>`+
		`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)

	w, err := z.Create("xl/worksheets/sheet1.xml")
	require.NoError(t, err)
	sheet := bufio.NewWriter(w)
	index := map[string]int{}
	var strs []string
	fmt.Fprint(sheet, `<?xml version="1.0" encoding="UTF-8"?><worksheet `+ns+`><sheetData>`)
	for i := range n {
		fmt.Fprintf(sheet, `<row r="%d">`, i+1)
		for j, v := range row(i) {
			ref := fmt.Sprintf("%c%d", 'A'+j, i+1)
			if _, err := strconv.ParseFloat(v, 64); err == nil {
				fmt.Fprintf(sheet, `<c r="%s" t="n"><v>%s</v></c>`, ref, v)
				continue
			}
			k, ok := index[v]
			if !ok {
				k, index[v] = len(strs), len(strs)
				strs = append(strs, v)
			}
			fmt.Fprintf(sheet, `<c r="%s" t="s"><v>%d</v></c>`, ref, k)
		}
		fmt.Fprint(sheet, `</row>`)
	}
	fmt.Fprint(sheet, `</sheetData></worksheet>`)
	require.NoError(t, sheet.Flush())

	w, err = z.Create("xl/sharedStrings.xml")
	require.NoError(t, err)
	sst := bufio.NewWriter(w)
	fmt.Fprintf(sst, `<?xml version="1.0" encoding="UTF-8"?><sst %s count="%d" uniqueCount="%d">`, ns, len(strs), len(strs))
	for _, s := range strs {
		fmt.Fprintf(sst, `<si><t>%s</t></si>`, html.EscapeString(s))
	}
	fmt.Fprint(sst, `</sst>`)
	require.NoError(t, sst.Flush())
	require.NoError(t, z.Close())
	require.NoError(t, out.Close())
}

// gogc is the garbage collector's GOGC now.
func gogc() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// GOGC is raised while any sheet is read and set back after the last is
// closed; a higher GOGC is left alone.
func TestReadingSheetsRaisesGOGCUntilTheLastIsClosed(t *testing.T) {
	for _, before := range []int{100, xlsxGCPercent * 2} {
		prev := debug.SetGCPercent(before)
		first, err := openFixture(t, "")
		require.NoError(t, err)
		second, err := openFixture(t, "")
		require.NoError(t, err)
		assert.Equal(t, int64(max(before, xlsxGCPercent)), gogc())
		require.NoError(t, first.Close())
		assert.Equal(t, int64(max(before, xlsxGCPercent)), gogc(), "another sheet is still read")
		require.NoError(t, second.Close())
		assert.Equal(t, int64(before), gogc())
		debug.SetGCPercent(prev)
	}
}
