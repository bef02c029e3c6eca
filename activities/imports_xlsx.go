package activities

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/xuri/excelize/v2"
)

// Bounds of reading a workbook. excelize inflates a sheet or the shared
// strings table bigger than xlsxInMemory to a temporary file and streams
// it from there, so memory stays bounded however long the sheet. Every
// other part, and smaller sheets, it holds in memory, parsed into
// structures a few times their size: together they may inflate to
// xlsxHeldMax at most, more than spreadsheet programs write (the parts
// are small but for pictures), so a crafted workbook cannot exhaust the
// worker's memory. xlsxInflatedMax bounds the whole inflated workbook,
// temporary files included, so a ZIP bomb cannot fill the disk.
const (
	xlsxInMemory    = 1 << 20
	xlsxHeldMax     = 32 << 20
	xlsxInflatedMax = 1 << 30
)

// xlsxGCPercent is the garbage collector's GOGC while a sheet is read.
// excelize decodes every cell through encoding/xml's reflection, which
// leaves some 11 kB of garbage a row and keeps next to nothing: over the
// bench's 100k-row XLSX preview the worker's live heap stayed at 11 to
// 20 MB, so at GOGC's 100 the collector ran some 140 times, and each run
// slows the reading, the preview's slowest stage, besides its own CPU.
// At 200 the preview took some 0.35 s less of the worker's CPU (medians
// 3.74 s against 4.09 s), the worker peaking at 115 to 135 MB against
// 109 to 116; at 300 and 400 it took 3.4 to 4.0 s, but the worker
// peaked at 148 to 173 MB against the target's 150 (README,
// "Benchmarks"). Set for the whole worker (GOGC), it would raise the
// heap of all it runs: the bulk assessment's, whose worker peaks at 76
// to 87 MB against its 100, the applies' and the BDO render's. A memory
// limit (GOMEMLIMIT, as docker/compose.yaml gives the worker) bounds the
// heap meanwhile.
const xlsxGCPercent = 200

// sheetsRead counts the sheets being read, so that GOGC is raised while
// any is and set back after the last; gogc is its value before.
var sheetsRead struct {
	sync.Mutex
	n    int
	gogc int
}

// relaxGC raises GOGC to xlsxGCPercent, unless it is higher (or off)
// already, until restoreGC.
func relaxGC() {
	sheetsRead.Lock()
	defer sheetsRead.Unlock()
	if sheetsRead.n == 0 {
		sheetsRead.gogc = debug.SetGCPercent(xlsxGCPercent)
		if sheetsRead.gogc < 0 || sheetsRead.gogc > xlsxGCPercent {
			debug.SetGCPercent(sheetsRead.gogc)
		}
	}
	sheetsRead.n++
}

func restoreGC() {
	sheetsRead.Lock()
	defer sheetsRead.Unlock()
	if sheetsRead.n--; sheetsRead.n == 0 {
		debug.SetGCPercent(sheetsRead.gogc)
	}
}

// xlsxRows reads one sheet of a workbook with excelize's streaming row
// reader. Everything it writes to disk (the workbook, the inflated parts)
// is under dir, removed on Close, even what excelize itself would leave
// behind when opening fails halfway.
type xlsxRows struct {
	dir     string
	file    *excelize.File
	rows    *excelize.Rows
	relaxed bool // GOGC is raised until Close
}

// openXLSX opens the workbook and the sheet named (matched as Excel does,
// ignoring case), or the first sheet in the workbook's order. The workbook
// is copied to a file first, so excelize reads it from disk instead of
// holding it in memory.
//
// Cells read as their stored values, not as displayed: a mass typed 1234.5
// and formatted "0.00" or "#,##0.00" reads "1234.5", not "1234.50" or
// "1,234.50", and a boolean reads "1" or "0". The price is dates: a date
// cell reads as its serial number (45658 for 2025-01-01), which a date
// column refuses, so a document_metadata workbook must hold its dates as
// text (2025-01-01) until the planner reads serial numbers.
func openXLSX(r io.Reader, sheet string) (_ *xlsxRows, err error) {
	dir, err := os.MkdirTemp("", "ppwr-import-")
	if err != nil {
		return nil, err
	}
	x := &xlsxRows{dir: dir}
	defer func() {
		if err != nil {
			_ = x.Close()
		}
	}()
	path := filepath.Join(dir, "upload.xlsx")
	if err := copyToFile(path, r); err != nil {
		return nil, err
	}
	// excelize's reasons ("zip: not a valid zip file", "EOF" for a ZIP
	// without a workbook) would tell the uploader nothing.
	if held, err := heldInMemory(path); err != nil || held > xlsxHeldMax {
		return nil, cannotRead("error.import_not_xlsx")
	}
	x.file, err = excelize.OpenFile(path, excelize.Options{RawCellValue: true, TmpDir: dir,
		UnzipXMLSizeLimit: xlsxInMemory, UnzipSizeLimit: xlsxInflatedMax})
	if err != nil {
		return nil, cannotRead("error.import_not_xlsx")
	}
	sheets := x.file.GetSheetList()
	if len(sheets) == 0 {
		return nil, cannotRead("error.import_not_xlsx")
	}
	name := sheets[0]
	if sheet != "" {
		i := slices.IndexFunc(sheets, func(s string) bool { return strings.EqualFold(s, sheet) })
		if i < 0 {
			quoted := make([]string, len(sheets))
			for k, s := range sheets {
				quoted[k] = fmt.Sprintf("%q", s)
			}
			return nil, cannotRead("error.import_no_sheet", sheet, strings.Join(quoted, ", "))
		}
		name = sheets[i]
	}
	if x.rows, err = x.file.Rows(name); err != nil {
		return nil, cannotRead("error.import_not_xlsx")
	}
	relaxGC()
	x.relaxed = true
	return x, nil
}

// heldInMemory is how much of the workbook at path excelize would hold in
// memory, inflated: every part it does not stream from a temporary file.
// The sizes are those the ZIP declares, which archive/zip enforces.
func heldInMemory(path string) (uint64, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	var held uint64
	for _, f := range z.File {
		name := strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/"))
		streamable := strings.HasPrefix(name, "xl/worksheets/sheet") || name == "xl/sharedstrings.xml"
		if !streamable || f.UncompressedSize64 <= xlsxInMemory {
			held += f.UncompressedSize64
		}
	}
	return held, nil
}

func copyToFile(path string, r io.Reader) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	return errors.Join(err, out.Close())
}

// Read returns the next row with a value, up to its last cell with one:
// excelize leaves out the empty cells that end a row, so a row may be
// shorter than the header. Rows without a value are skipped, as
// encoding/csv skips blank lines: spreadsheets keep formatted empty rows.
func (x *xlsxRows) Read() ([]string, error) {
	for x.rows.Next() {
		cells, err := x.rows.Columns()
		if err != nil {
			return nil, cannotRead("error.import_not_xlsx")
		}
		if slices.ContainsFunc(cells, func(c string) bool { return c != "" }) {
			return cells, nil
		}
	}
	if x.rows.Error() != nil {
		return nil, cannotRead("error.import_not_xlsx")
	}
	return nil, io.EOF
}

// Close closes the workbook and removes its files.
func (x *xlsxRows) Close() error {
	if x.relaxed {
		x.relaxed = false
		restoreGC()
	}
	var errs []error
	if x.rows != nil {
		errs = append(errs, x.rows.Close())
	}
	if x.file != nil {
		errs = append(errs, x.file.Close())
	}
	return errors.Join(append(errs, os.RemoveAll(x.dir))...)
}
