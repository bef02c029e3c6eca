package pdftext_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/pdftext"
)

var (
	sharedOnce sync.Once
	shared     *pdftext.Extractor
	sharedErr  error
)

// extractor shares one pool across the package's tests, as a process would.
func extractor(tb testing.TB) *pdftext.Extractor {
	tb.Helper()
	sharedOnce.Do(func() {
		start := time.Now()
		shared, sharedErr = pdftext.New(context.Background(), pdftext.Options{Workers: 2})
		tb.Logf("pdfium pool init: %s", time.Since(start))
	})
	require.NoError(tb, sharedErr)
	return shared
}

func fixture(name string) string {
	return filepath.Join("..", "..", "testdata", "documents", name)
}

func allPages(t *testing.T, e *pdftext.Extractor, path string) ([]pdftext.Page, int, error) {
	t.Helper()
	var pages []pdftext.Page
	n, err := e.Pages(context.Background(), path, func(p pdftext.Page) error {
		pages = append(pages, p)
		return nil
	})
	return pages, n, err
}

func TestPagesPolishMeasurements(t *testing.T) {
	pages, n, err := allPages(t, extractor(t), fixture("measurements.pdf"))
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Len(t, pages, 3)

	want := map[int][]string{
		1: {"Pudełko kartonowe", "Zażółć gęślą jaźń. ZAŻÓŁĆ GĘŚLĄ JAŹŃ.", "ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ", "Masa opakowania: 12,5 g"},
		2: {"Wymiary: 300 x 200 x 150 mm", "Szerokość: 30 cm"},
		3: {"Weight: 0.25 kg", "Height: 150 mm"},
	}
	for i, p := range pages {
		assert.Equal(t, i+1, p.Number)
		assert.True(t, p.HasText, "page %d", p.Number)
		assert.NotContains(t, p.Text, "\r")
		assert.NotContains(t, p.Text, "\x00")
		for _, phrase := range want[p.Number] {
			assert.Contains(t, p.Text, phrase, "page %d", p.Number)
		}
	}
	assert.NotContains(t, pages[0].Text, "Weight", "page 3 text must not leak into page 1")
}

func TestPagesScannedHasNoText(t *testing.T) {
	pages, n, err := allPages(t, extractor(t), fixture("scanned.pdf"))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Len(t, pages, 1)
	assert.False(t, pages[0].HasText)
}

func TestPagesErrors(t *testing.T) {
	e := extractor(t)
	_, _, err := allPages(t, e, fixture("encrypted.pdf"))
	assert.ErrorIs(t, err, pdftext.ErrEncrypted)

	_, _, err = allPages(t, e, fixture("renamed-executable.pdf"))
	assert.ErrorIs(t, err, pdftext.ErrUnreadable)

	_, _, err = allPages(t, e, fixture("sample.png"))
	assert.ErrorIs(t, err, pdftext.ErrUnreadable)

	_, _, err = allPages(t, e, fixture("does-not-exist.pdf"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestPagesStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	var seen []int
	_, err := extractor(t).Pages(context.Background(), fixture("measurements.pdf"), func(p pdftext.Page) error {
		seen = append(seen, p.Number)
		if p.Number == 2 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	assert.Equal(t, []int{1, 2}, seen)
}

func TestPagesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var seen int
	_, err := extractor(t).Pages(ctx, fixture("measurements.pdf"), func(pdftext.Page) error {
		seen++
		cancel()
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, seen, "no page after cancellation")
}

func TestMemoryLimitApplies(t *testing.T) {
	// PDFium's module needs more than 1 MiB of linear memory to start, so a
	// limit that small must make New fail rather than be ignored.
	e, err := pdftext.New(context.Background(), pdftext.Options{Workers: 1, MemoryLimit: 1 << 20})
	if err == nil {
		e.Close()
	}
	require.ErrorContains(t, err, "memory")
}

func TestPagesConcurrent(t *testing.T) {
	e := extractor(t)
	want, _, err := allPages(t, e, fixture("measurements.pdf"))
	require.NoError(t, err)

	const runs = 4 // more than the pool's 2 workers: callers must queue, not fail
	results := make([][]pdftext.Page, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.Pages(context.Background(), fixture("measurements.pdf"), func(p pdftext.Page) error {
				results[i] = append(results[i], p)
				return nil
			})
		}()
	}
	wg.Wait()
	for i := range runs {
		require.NoError(t, errs[i])
		assert.Equal(t, want, results[i])
	}
}

// BenchmarkPages measures pages per second on a 200-page text PDF made by
// LibreOffice at benchmark time (skipped when soffice is not installed).
func BenchmarkPages(b *testing.B) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		b.Skip("soffice not installed")
	}
	dir := b.TempDir()
	var html strings.Builder
	html.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>`)
	for i := 1; i <= 200; i++ {
		style := ""
		if i > 1 {
			style = ` style="page-break-before: always"`
		}
		html.WriteString("<h2" + style + ">Strona</h2>")
		for range 20 {
			html.WriteString("<p>Masa opakowania: 12,5 g. Wymiary: 300 x 200 x 150 mm. Zażółć gęślą jaźń.</p>")
		}
	}
	html.WriteString("</body></html>")
	src := filepath.Join(dir, "long.html")
	require.NoError(b, os.WriteFile(src, []byte(html.String()), 0o600))
	out, err := exec.Command(soffice, "-env:UserInstallation=file://"+dir+"/lo", "--headless",
		"--convert-to", "pdf:writer_web_pdf_Export", "--outdir", dir, src).CombinedOutput()
	require.NoError(b, err, string(out))
	pdf := filepath.Join(dir, "long.pdf")

	e := extractor(b)
	b.ResetTimer()
	pages := 0
	for b.Loop() {
		n, err := e.Pages(context.Background(), pdf, func(pdftext.Page) error { return nil })
		require.NoError(b, err)
		pages += n
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
