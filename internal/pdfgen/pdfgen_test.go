package pdfgen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const polishTitle = "Pudełko kartonowe ŻÓŁĆ ąęśćńóźł"

var fixedTime = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

func sampleDocument() Document {
	rows := make([]Row, 60)
	for i := range rows {
		rows[i] = Row{
			Label: fmt.Sprintf("Parametr %02d", i+1),
			Value: fmt.Sprintf("Wartość %02d — gęś żółć", i+1),
		}
	}
	rows[7].Value = strings.Repeat("Długi opis materiału opakowaniowego z tektury falistej. ", 12) + "KONIEC-OPISU"
	return Document{
		Title:    polishTitle,
		Subtitle: "Specyfikacja produktu",
		Notice:   "PROJEKT — dokument nie został podpisany",
		Sections: []Section{
			{Heading: "Dane produktu", Rows: rows},
			{Heading: "Uwagi", Paragraphs: []string{"Zgodnie z rozporządzeniem (UE) 2025/40."}},
		},
		Footer:  "ppwr — specyfikacja",
		Created: fixedTime,
	}
}

// tool finds a poppler-utils binary; the check is independent of fpdf, so
// its absence is a broken test environment, not a reason to skip.
func tool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	require.NoErrorf(t, err, "%s not found: install Debian's poppler-utils (apt-get install poppler-utils)", name)
	return path
}

func renderToFile(t *testing.T, d Document) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	path := filepath.Join(t.TempDir(), "doc.pdf")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(tool(t, name), args...).CombinedOutput()
	require.NoErrorf(t, err, "%s: %s", name, out)
	return string(out)
}

func TestRenderReadsBackWithPoppler(t *testing.T) {
	path := renderToFile(t, sampleDocument())

	text := run(t, "pdftotext", "-enc", "UTF-8", "-layout", path, "-")
	assert.Contains(t, text, polishTitle)
	assert.Contains(t, text, "Wartość 42 — gęś żółć")
	assert.Contains(t, text, "Parametr 60")
	assert.Contains(t, text, "PROJEKT — dokument nie został podpisany")
	assert.Contains(t, text, "KONIEC-OPISU", "the end of a wrapped value is rendered")
	assert.Contains(t, text, "Zgodnie z rozporządzeniem (UE) 2025/40.")

	info := run(t, "pdfinfo", path)
	pages := regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`).FindStringSubmatch(info)
	require.NotNil(t, pages, info)
	n, err := strconv.Atoi(pages[1])
	require.NoError(t, err)
	assert.Greater(t, n, 1)
	assert.Regexp(t, `(?m)^Title:\s+`+regexp.QuoteMeta(polishTitle)+`$`, info)
	assert.Regexp(t, `(?m)^Producer:\s+ppwr$`, info)

	// Every page carries "n / N" with the real total. Raw order: the default
	// layout analysis drops the narrow spaces around the slash.
	for p := 1; p <= n; p++ {
		page := run(t, "pdftotext", "-raw", "-enc", "UTF-8", "-f", strconv.Itoa(p), "-l", strconv.Itoa(p), path, "-")
		assert.Contains(t, page, fmt.Sprintf("%d / %d", p, n))
		assert.Contains(t, page, "ppwr — specyfikacja")
	}
}

func TestRenderWrapsLongValueOntoSeveralLines(t *testing.T) {
	path := renderToFile(t, sampleDocument())
	text := run(t, "pdftotext", "-enc", "UTF-8", "-f", "1", "-l", "1", path, "-")
	assert.Greater(t, strings.Count(text, "Długi opis materiału"), 3,
		"the repeated sentence spans several lines of the value column")
	for _, line := range strings.Split(text, "\n") {
		assert.LessOrEqual(t, strings.Count(line, "Długi opis"), 2, "a line stays within the page width: %q", line)
	}
}

func TestRenderIsByteStableForFixedDate(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, Render(&a, sampleDocument()))
	require.NoError(t, Render(&b, sampleDocument()))
	assert.True(t, bytes.Equal(a.Bytes(), b.Bytes()), "same document and date give the same bytes")

	other := sampleDocument()
	other.Created = fixedTime.Add(time.Hour)
	var c bytes.Buffer
	require.NoError(t, Render(&c, other))
	assert.False(t, bytes.Equal(a.Bytes(), c.Bytes()), "the creation date is part of the output")
}

func TestRenderEmptyDocumentIsOnePage(t *testing.T) {
	path := renderToFile(t, Document{Created: fixedTime})
	info := run(t, "pdfinfo", path)
	assert.Regexp(t, `(?m)^Pages:\s+1$`, info)
	assert.Contains(t, run(t, "pdftotext", "-raw", path, "-"), "1 / 1")
}
