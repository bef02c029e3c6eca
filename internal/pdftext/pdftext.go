// Package pdftext extracts the text layer of PDF documents page by page with
// PDFium compiled to WebAssembly (github.com/klippa-app/go-pdfium, pure Go,
// no cgo).
//
// Text normalisation: a page's Text is exactly what PDFium's FPDFText_GetText
// returns, except that "\r\n" and lone "\r" become "\n" and NUL characters are
// removed. Nothing else is touched (no trimming, no Unicode normalisation, no
// whitespace collapsing), so a quotation taken from Text can later be found
// again verbatim in the stored page text.
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

var (
	// ErrEncrypted means the PDF needs a password to open. A PDF encrypted
	// with an owner password only opens and is extracted normally.
	ErrEncrypted = errors.New("pdftext: pdf is encrypted")
	// ErrUnreadable means the file is not a PDF PDFium can open, or a page
	// of it cannot be loaded.
	ErrUnreadable = errors.New("pdftext: pdf is unreadable")
)

// Page is the text of one page.
type Page struct {
	Number  int // 1-based
	Text    string
	HasText bool // false for a page without a text layer, e.g. a scanned image
}

// Options tunes the worker pool. The zero value is usable.
type Options struct {
	// Workers is the number of PDFium instances that may run at once; each
	// is a separate WebAssembly module with its own memory. Default: GOMAXPROCS.
	Workers int
	// MemoryLimit caps each instance's WebAssembly memory, so a hostile PDF
	// fails with an error instead of growing the process. Default: 1 GiB.
	MemoryLimit int64
	// AcquireTimeout bounds how long Pages waits for a free instance when
	// all are busy (the context deadline, if earlier, wins). Default: 5 minutes.
	AcquireTimeout time.Duration
	// CacheDir keeps PDFium compiled to machine code between processes, so
	// only the first start on a machine compiles it. Default: the user's
	// cache directory; "-" turns the cache off.
	CacheDir string
}

const wasmPageSize = 64 << 10

// Extractor owns a pool of PDFium WebAssembly instances. Create one per
// process (compiling the module is slow) and share it: it is safe for
// concurrent use.
type Extractor struct {
	pool           pdfium.Pool
	acquireTimeout time.Duration
}

// New compiles PDFium and starts its pool.
func New(ctx context.Context, opts Options) (*Extractor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = 1 << 30
	}
	if opts.AcquireTimeout <= 0 {
		opts.AcquireTimeout = 5 * time.Minute
	}
	runtimeConfig := wazero.NewRuntimeConfig().WithMemoryLimitPages(uint32(opts.MemoryLimit / wasmPageSize))
	if cache := compilationCache(opts.CacheDir); cache != nil {
		runtimeConfig = runtimeConfig.WithCompilationCache(cache)
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:  1,
		MaxIdle:  opts.Workers,
		MaxTotal: opts.Workers,
		// Documents are handed over as readers, so the module gets no file
		// system at all (the library default mounts "/").
		FSConfig:      wazero.NewFSConfig(),
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		RuntimeConfig: runtimeConfig,
	})
	if err != nil {
		return nil, fmt.Errorf("pdftext: start pdfium: %w", err)
	}
	return &Extractor{pool: pool, acquireTimeout: opts.AcquireTimeout}, nil
}

// compilationCache is the on-disk cache of compiled modules in dir (the
// user's cache directory when empty), or nil when there is none: a cache
// that cannot be opened only costs the compile.
func compilationCache(dir string) wazero.CompilationCache {
	if dir == "-" {
		return nil
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "ppwr", "pdfium")
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return cache
}

// Close releases the pool. Pages must not be called afterwards.
func (e *Extractor) Close() error {
	return e.pool.Close()
}

// Pages opens the PDF at path and calls each for every page in order, one page
// in memory at a time. It returns the document's page count. An error from
// each stops the walk and is returned as is; a cancelled ctx stops it between
// pages.
func (e *Extractor) Pages(ctx context.Context, path string, each func(Page) error) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}

	timeout := e.acquireTimeout
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < timeout {
		timeout = time.Until(deadline)
	}
	instance, err := e.pool.GetInstance(timeout)
	if err != nil {
		return 0, fmt.Errorf("pdftext: acquire pdfium instance: %w", err)
	}
	defer instance.Close()

	doc, err := instance.OpenDocument(&requests.OpenDocument{FileReader: f, FileReaderSize: info.Size()})
	if err != nil {
		return 0, openError(err)
	}
	defer instance.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})

	count, err := instance.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return 0, fmt.Errorf("%w: page count: %v", ErrUnreadable, err)
	}
	for i := 0; i < count.PageCount; i++ {
		if err := ctx.Err(); err != nil {
			return count.PageCount, err
		}
		res, err := instance.GetPageText(&requests.GetPageText{Page: requests.Page{
			ByIndex: &requests.PageByIndex{Document: doc.Document, Index: i},
		}})
		if err != nil {
			return count.PageCount, fmt.Errorf("%w: page %d: %v", ErrUnreadable, i+1, err)
		}
		text := normalize(res.Text)
		if err := each(Page{Number: i + 1, Text: text, HasText: strings.TrimSpace(text) != ""}); err != nil {
			return count.PageCount, err
		}
	}
	return count.PageCount, nil
}

func openError(err error) error {
	if errors.Is(err, pdfiumerrors.ErrPassword) || errors.Is(err, pdfiumerrors.ErrSecurity) {
		return fmt.Errorf("%w: %v", ErrEncrypted, err)
	}
	return fmt.Errorf("%w: %v", ErrUnreadable, err)
}

var lineEndings = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\x00", "")

func normalize(s string) string {
	return lineEndings.Replace(s)
}
