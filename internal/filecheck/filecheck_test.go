package filecheck_test

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/filecheck"
)

func inspectFile(t *testing.T, path string) filecheck.Report {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	info, err := f.Stat()
	require.NoError(t, err)
	report, err := filecheck.Inspect(f, info.Size())
	require.NoError(t, err)
	return report
}

func inspectBytes(t *testing.T, b []byte) filecheck.Report {
	t.Helper()
	report, err := filecheck.Inspect(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	return report
}

func TestInspectFixtures(t *testing.T) {
	tests := []struct {
		file        string
		outcome     filecheck.Outcome
		contentType string
		reason      string
		charset     string
	}{
		{"measurements.pdf", filecheck.Clean, filecheck.TypePDF, "", ""},
		{"scanned.pdf", filecheck.Clean, filecheck.TypePDF, "", ""},
		{"encrypted.pdf", filecheck.Unsafe, filecheck.TypePDF, filecheck.ReasonPDFEncrypted, ""},
		{"javascript.pdf", filecheck.Unsafe, filecheck.TypePDF, filecheck.ReasonPDFJavaScript, ""},
		{"javascript-objstm.pdf", filecheck.Unsafe, filecheck.TypePDF, filecheck.ReasonPDFJavaScript, ""},
		{"launch.pdf", filecheck.Unsafe, filecheck.TypePDF, filecheck.ReasonPDFLaunchAction, ""},
		{"sample.png", filecheck.Clean, filecheck.TypePNG, "", ""},
		{"sample.jpg", filecheck.Clean, filecheck.TypeJPEG, "", ""},
		{"sample.tiff", filecheck.Clean, filecheck.TypeTIFF, "", ""},
		{"sample.xlsx", filecheck.Clean, filecheck.TypeXLSX, "", ""},
		{"sample.docx", filecheck.Clean, filecheck.TypeDOCX, "", ""},
		{"bomb.xlsx", filecheck.Unsafe, filecheck.TypeXLSX, filecheck.ReasonZipBomb, ""},
		{"sample.csv", filecheck.Clean, filecheck.TypeCSV, "", "utf-8"},
		{"sample.txt", filecheck.Clean, filecheck.TypeText, "", "utf-8"},
		{"legacy-cp1250.txt", filecheck.Clean, filecheck.TypeText, "", ""},
		{"measurements.html", filecheck.Clean, filecheck.TypeText, "", "utf-8"},
		{"renamed-executable.pdf", filecheck.Refused, "", filecheck.ReasonTypeNotAllowed, ""},
		{"plain.zip", filecheck.Refused, "", filecheck.ReasonTypeNotAllowed, ""},
		{"legacy.doc", filecheck.Refused, "", filecheck.ReasonTypeNotAllowed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := inspectFile(t, filepath.Join("..", "..", "testdata", "documents", tt.file))
			assert.Equal(t, tt.outcome, r.Outcome, r.Detail)
			assert.Equal(t, tt.contentType, r.ContentType)
			assert.Equal(t, tt.reason, r.Reason)
			assert.Equal(t, tt.charset, r.Charset)
			assert.Equal(t, tt.outcome == filecheck.Unsafe, r.Unsafe())
			assert.Equal(t, tt.outcome == filecheck.Refused, r.Refused())
			assert.Equal(t, tt.outcome == filecheck.Clean, r.Detail == "", "a detail exactly for non-clean outcomes: %q", r.Detail)
		})
	}
}

func TestInspectPDFNames(t *testing.T) {
	pdf := func(body string) []byte {
		return []byte("%PDF-1.4\n1 0 obj\n<< " + body + " >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	}
	tests := []struct {
		name   string
		body   string
		reason string
	}{
		{"plain", "/Type /Catalog", ""},
		{"escaped JavaScript", "/S /J#61vaScript", filecheck.ReasonPDFJavaScript},
		{"JS key without space", "/S/JavaScript/JS(x)", filecheck.ReasonPDFJavaScript},
		{"escaped Launch", "/S /#4Caunch", filecheck.ReasonPDFLaunchAction},
		{"longer name is not JS", "/JSX 1 /JavaScripts 2", ""},
		{"Encrypt in trailer", "/Encrypt 5 0 R", filecheck.ReasonPDFEncrypted},
		{"object stream with unknown filter", "/Type /ObjStm /Filter /LZWDecode >>\nstream\nxx\nendstream", filecheck.ReasonPDFUnscannable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inspectBytes(t, pdf(tt.body))
			assert.Equal(t, filecheck.TypePDF, r.ContentType)
			assert.Equal(t, tt.reason, r.Reason)
			if tt.reason == "" {
				assert.Equal(t, filecheck.Clean, r.Outcome)
			} else {
				assert.Equal(t, filecheck.Unsafe, r.Outcome)
			}
		})
	}
}

func TestInspectText(t *testing.T) {
	// A two-byte rune straddling the 256 KiB read chunk must stay UTF-8.
	straddle := append(bytes.Repeat([]byte("a"), 256<<10-1), "ł\n"...)
	tests := []struct {
		name        string
		data        []byte
		outcome     filecheck.Outcome
		contentType string
		charset     string
	}{
		{"utf-8 with BOM", []byte("\xef\xbb\xbfZażółć\n"), filecheck.Clean, filecheck.TypeText, "utf-8"},
		{"rune across chunks", straddle, filecheck.Clean, filecheck.TypeText, "utf-8"},
		{"semicolon csv in cp1250", []byte("kod;nazwa\nA;Pude\xb3ko\nB;Szeroko\x9c\xe6\n"), filecheck.Clean, filecheck.TypeCSV, ""},
		{"tab csv", []byte("a\tb\n1\t2\n"), filecheck.Clean, filecheck.TypeCSV, "utf-8"},
		{"ragged lines are text", []byte("a,b\nc\n"), filecheck.Clean, filecheck.TypeText, "utf-8"},
		// The EICAR test file is printable ASCII: text here, so the malware
		// scan, not the type check, is what stops it.
		{"EICAR test file", []byte(`X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR` + "-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"), filecheck.Clean, filecheck.TypeText, "utf-8"},
		{"NUL byte", []byte("abc\x00def"), filecheck.Refused, "", ""},
		{"UTF-16", []byte("\xff\xfea\x00b\x00"), filecheck.Refused, "", ""},
		{"csv whose header starts like an MZ header", []byte("MZK;masa\nA;1\n"), filecheck.Clean, filecheck.TypeCSV, "utf-8"},
		{"ELF carrying a PDF header", append([]byte("\x7fELF\x02\x01\x01\x00\x00"), "%PDF-1.4\n"...), filecheck.Refused, "", ""},
		{"PE executable", append([]byte("MZ\x90\x00\x03\x00"), make([]byte, 64)...), filecheck.Refused, "", ""},
		{"escape control", []byte("abc\x1b[31m"), filecheck.Refused, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inspectBytes(t, tt.data)
			assert.Equal(t, tt.outcome, r.Outcome, r.Detail)
			assert.Equal(t, tt.contentType, r.ContentType)
			assert.Equal(t, tt.charset, r.Charset)
			if tt.outcome == filecheck.Refused {
				assert.Equal(t, filecheck.ReasonTypeNotAllowed, r.Reason)
			}
		})
	}
}

func TestInspectUnreadable(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":                 {},
		"truncated png":         []byte("\x89PNG\r\n\x1a\n\x00\x00"),
		"truncated jpeg":        []byte("\xff\xd8\xff\xe0\x00"),
		"zip without directory": []byte("PK\x03\x04garbage"),
	} {
		t.Run(name, func(t *testing.T) {
			r := inspectBytes(t, data)
			assert.Equal(t, filecheck.Refused, r.Outcome)
			assert.Equal(t, filecheck.ReasonUnreadable, r.Reason)
		})
	}
}

type zipEntry struct {
	name               string
	data               []byte
	declaredSize       uint64 // raw entries: claimed uncompressed size
	compressedRawBytes int
}

// buildZip writes an OOXML-looking archive; raw entries carry declared sizes
// without real compressed data behind them, as a crafted bomb would.
func buildZip(t *testing.T, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.declaredSize > 0 {
			w, err := zw.CreateRaw(&zip.FileHeader{
				Name: e.name, Method: zip.Deflate,
				CompressedSize64: uint64(e.compressedRawBytes), UncompressedSize64: e.declaredSize,
			})
			require.NoError(t, err)
			_, err = w.Write(make([]byte, e.compressedRawBytes))
			require.NoError(t, err)
			continue
		}
		w, err := zw.Create(e.name)
		require.NoError(t, err)
		_, err = w.Write(e.data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func xlsxEntries(extra ...zipEntry) []zipEntry {
	return append([]zipEntry{
		{name: "[Content_Types].xml", data: []byte("<Types/>")},
		{name: "xl/workbook.xml", data: []byte("<workbook/>")},
	}, extra...)
}

func TestInspectZipLimits(t *testing.T) {
	t.Run("too many entries", func(t *testing.T) {
		var many []zipEntry
		for i := range 10_001 {
			many = append(many, zipEntry{name: "xl/media/image" + strconv.Itoa(i) + ".png"})
		}
		r := inspectBytes(t, buildZip(t, xlsxEntries(many...)))
		assert.Equal(t, filecheck.Unsafe, r.Outcome)
		assert.Equal(t, filecheck.ReasonZipBomb, r.Reason)
	})
	t.Run("total over 1 GiB at modest ratios", func(t *testing.T) {
		var big []zipEntry
		for i := range 3 {
			big = append(big, zipEntry{name: "xl/worksheets/sheet" + strconv.Itoa(i) + ".xml", declaredSize: 400 << 20, compressedRawBytes: 5 << 20})
		}
		r := inspectBytes(t, buildZip(t, xlsxEntries(big...)))
		assert.Equal(t, filecheck.Unsafe, r.Outcome)
		assert.Equal(t, filecheck.ReasonZipBomb, r.Reason)
		assert.Contains(t, r.Detail, "uncompressed")
	})
	t.Run("small entries may compress well", func(t *testing.T) {
		r := inspectBytes(t, buildZip(t, xlsxEntries(zipEntry{name: "xl/styles.xml", data: bytes.Repeat([]byte(" "), 512<<10)})))
		assert.Equal(t, filecheck.Clean, r.Outcome, r.Detail)
		assert.Equal(t, filecheck.TypeXLSX, r.ContentType)
	})
	t.Run("unsupported compression method", func(t *testing.T) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, e := range xlsxEntries() {
			w, err := zw.Create(e.name)
			require.NoError(t, err)
			_, err = w.Write(e.data)
			require.NoError(t, err)
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: 9, CompressedSize64: 4, UncompressedSize64: 8})
		require.NoError(t, err)
		_, err = w.Write([]byte("data"))
		require.NoError(t, err)
		require.NoError(t, zw.Close())

		r := inspectBytes(t, buf.Bytes())
		assert.Equal(t, filecheck.Refused, r.Outcome)
		assert.Equal(t, filecheck.ReasonUnreadable, r.Reason)
	})
	t.Run("macros", func(t *testing.T) {
		r := inspectBytes(t, buildZip(t, xlsxEntries(zipEntry{name: "xl/vbaProject.bin", data: []byte("vba")})))
		assert.Equal(t, filecheck.Unsafe, r.Outcome)
		assert.Equal(t, filecheck.ReasonOOXMLMacros, r.Reason)
		assert.Equal(t, filecheck.TypeXLSX, r.ContentType)
	})
	t.Run("content types without a main part", func(t *testing.T) {
		r := inspectBytes(t, buildZip(t, []zipEntry{{name: "[Content_Types].xml", data: []byte("<Types/>")}, {name: "ppt/presentation.xml", data: []byte("<p/>")}}))
		assert.Equal(t, filecheck.Refused, r.Outcome)
		assert.Equal(t, filecheck.ReasonTypeNotAllowed, r.Reason)
	})
}
