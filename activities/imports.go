package activities

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"golang.org/x/sync/errgroup"
	"golang.org/x/text/encoding/charmap"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/imports"
	"ppwr/internal/input"
	"ppwr/internal/storage"
	"ppwr/internal/telemetry"
	"ppwr/internal/work"
)

// Batch sizes: rows planned per transaction in the preview, and applied
// per transaction (and audit entry) in the apply. Each apply batch COPYs
// its items and their data versions, and a COPY costs PostgreSQL a fixed
// share of its own (a tuple slot made and dropped for each row it buffers,
// up to a thousand): 100 COPYs of 1,000 items took it half as much CPU
// again as one of 100,000. With 2,000 rows a batch, a 100,000-row apply
// cost PostgreSQL some 0.15 to 0.25 s and this process some 0.2 s less
// CPU than with 1,000; the batches in flight hold some 10 MB more of live
// heap (the bench's worker peaked at 122 to 129 MB instead of 96 to 105).
const (
	previewBatch = 1000
	applyBatch   = 2000
)

// sniffSize is how much of the file decides its encoding and delimiter.
const sniffSize = 64 << 10

// Imports runs the preview and the apply of imports.
type Imports struct {
	DB      *gorm.DB
	Storage *storage.Store
}

// unreadable is a file the preview cannot read; its message key and
// arguments are the import's stated reason, localized when answered.
type unreadable struct {
	key  string
	args []any
}

func (u *unreadable) Error() string { return fmt.Sprint(append([]any{u.key}, u.args...)...) }

func cannotRead(key string, args ...any) *unreadable { return &unreadable{key: key, args: args} }

// load reads the import as last committed. FOR SHARE makes the read wait
// for a transaction that holds the import's row: an operator's re-drive
// requeues a failed import in the transaction that starts the preview's
// run (imports.RequeueFailedImport), and the run must find it queued, not
// failed as it was before that transaction committed.
func (a *Imports) load(ctx context.Context, in imports.ImportInput) (*imports.Import, error) {
	return domain.Take[imports.Import](domain.Tenant(ctx, a.DB, in.OrganizationID).
		Clauses(clause.Locking{Strength: clause.LockingStrengthShare}).Where("id = ?", in.ImportID))
}

// systemUnit acts for the system in the import's workflow: reading the
// file, the import's own status and events.
func systemUnit(ctx context.Context, db *gorm.DB, orgID uuid.UUID) *work.Unit {
	return work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: orgID, Reference: activity.GetInfo(ctx).WorkflowExecution.ID})
}

// importUnit acts for the system applying the import's rows, quietly
// (imports.ApplyImportBatch says why): its audit entries name the import as
// their record and the apply's workflow id as their reference.
func importUnit(ctx context.Context, db *gorm.DB, imp *imports.Import) *work.Unit {
	return work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: imp.OrganizationID,
		Reference: activity.GetInfo(ctx).WorkflowExecution.ID, Quiet: true})
}

// Preview reads the import's file, plans every row and stores the rows in
// batches, then makes the import ready (or failed, for a file it cannot
// read) with its event. It returns the import's status. A retry starts
// over: rows of an earlier attempt are deleted first.
func (a *Imports) Preview(ctx context.Context, in imports.ImportInput) (string, error) {
	imp, err := a.load(ctx, in)
	if err != nil || imp.Status != imports.ImportQueued {
		return statusOf(imp), err
	}
	clear := systemUnit(ctx, a.DB, imp.OrganizationID)
	if err := imports.ClearImportRows(clear, imp.ID); err != nil {
		clear.Rollback()
		return "", err
	}
	if err := clear.Commit(); err != nil {
		return "", err
	}
	err = a.previewRows(ctx, imp)
	var bad *unreadable
	w := systemUnit(ctx, a.DB, imp.OrganizationID)
	status := imports.ImportReadyStatus
	switch {
	case errors.As(err, &bad):
		status, err = imports.ImportFailedStatus, imports.FailImport(w, imp, input.FieldError{Key: bad.key, Args: bad.args})
	case err == nil:
		err = imports.ReadyImport(w, imp)
	}
	if err != nil {
		w.Rollback()
		return "", err
	}
	return status, domain.Commit(w, domain.AuditEntry{Operation: "previewImport"})
}

func statusOf(imp *imports.Import) string {
	if imp == nil {
		return ""
	}
	return imp.Status
}

// previewRows streams the file's rows (CSV, or a sheet of an XLSX
// workbook), planning and storing them in batches.
func (a *Imports) previewRows(ctx context.Context, imp *imports.Import) error {
	obj, err := a.Storage.Get(ctx, imp.ObjectKey)
	if errors.Is(err, storage.ErrNotFound) {
		// No retry brings a deleted file back.
		return cannotRead("error.import_file_missing")
	}
	if err != nil {
		return err
	}
	defer obj.Body.Close()
	rows, err := openRows(obj.Body, imp.Sheet)
	if err != nil {
		return err
	}
	defer rows.Close()
	header, err := rows.Read()
	if errors.Is(err, io.EOF) {
		return cannotRead("error.import_file_empty")
	}
	if err != nil {
		return err
	}
	mapping, err := imp.ColumnMapping()
	if err != nil {
		return err
	}
	columns, err := importColumns(header, imports.ImportColumns[imp.Type], mapping)
	if err != nil {
		return err
	}
	// Three stages, so that both cores work: reading the file (for an
	// XLSX sheet, parsing its XML, three times as costly as planning),
	// planning the rows, and storing them (PostgreSQL's work). A batch is
	// stored (and heartbeated, in order) while the next is planned and the
	// one after read. Planning reads none of the rows stored. Batches read
	// before an unreadable row are still planned and stored, as they were
	// when each batch was stored before the next was read.
	read, planned := make(chan recordBatch, 1), make(chan plannedBatch)
	stop, failed := make(chan struct{}), make(chan struct{})
	readErr, stored := make(chan error, 1), make(chan error, 1)
	go func() {
		readErr <- readBatches(rows, columns, read, stop)
		close(read)
	}()
	progress := imports.TrackImport(a.DB, imp)
	go func() {
		var err error
		for b := range planned {
			if err != nil {
				continue
			}
			if err = imports.StoreImportRows(ctx, a.DB, b.rows); err == nil {
				err = progress.Move(ctx, imports.StagePreviewing, int64(b.last), nil)
			}
			if err != nil {
				close(failed)
				continue
			}
			activity.RecordHeartbeat(ctx, b.last)
		}
		stored <- err
	}()
	err = a.planBatches(ctx, imp, imports.NewRowPlanner(imp), columns, read, planned, failed)
	close(stop)
	close(planned)
	// The reader is done with the file before the file is closed.
	errs := []error{<-stored, err, <-readErr}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// errStoreFailed stops the planning when storing a batch failed; the
// storing's error is the one returned.
var errStoreFailed = errors.New("storing a batch failed")

// recordBatch is a batch of rows read, as their cells in the file's
// column order, and the number of its first row.
type recordBatch struct {
	records [][]string
	first   int
}

// plannedBatch is a batch's planned rows and the number of its last row.
type plannedBatch struct {
	rows []imports.ImportRow
	last int
}

// readBatches reads the rows into batches, passing each to out, until the
// file ends, a row cannot be read, or stop closes. It only reads and
// checks the rows: for an XLSX sheet, reading is the slowest stage, so
// keying the cells by field is left to the planning.
func readBatches(rows rowReader, columns []string, out chan<- recordBatch, stop <-chan struct{}) error {
	batch := recordBatch{records: make([][]string, 0, previewBatch), first: 1}
	flush := func() bool {
		if len(batch.records) == 0 {
			return true
		}
		select {
		case out <- batch:
		case <-stop:
			return false
		}
		batch = recordBatch{records: make([][]string, 0, previewBatch), first: batch.first + len(batch.records)}
		return true
	}
	for {
		record, err := rows.Read()
		if errors.Is(err, io.EOF) {
			flush()
			return nil
		}
		if err != nil {
			return err
		}
		for _, v := range record[min(len(columns), len(record)):] {
			if strings.TrimSpace(v) != "" {
				return cannotRead("error.import_extra_cells", batch.first+len(batch.records))
			}
		}
		batch.records = append(batch.records, record)
		if len(batch.records) == previewBatch && !flush() {
			return nil
		}
	}
}

// planBatches plans the batches read, passing each to planned for
// storing, until the reading ends or storing failed.
func (a *Imports) planBatches(ctx context.Context, imp *imports.Import, planner imports.RowPlanner, columns []string,
	read <-chan recordBatch, planned chan<- plannedBatch, failed <-chan struct{}) error {
	for b := range read {
		cells := make([]map[string]string, len(b.records))
		for i, record := range b.records {
			cells[i] = make(map[string]string, len(columns))
			for j, v := range record[:min(len(columns), len(record))] {
				cells[i][columns[j]] = v
			}
		}
		// Planning only reads: its unit writes nothing, and the rows are
		// stored on their own.
		w := systemUnit(ctx, a.DB, imp.OrganizationID)
		rows, err := planner.Plan(w, imp.ID, b.first, cells)
		w.Rollback()
		if err != nil {
			return err
		}
		select {
		case planned <- plannedBatch{rows: rows, last: b.first + len(cells) - 1}:
		case <-failed:
			return errStoreFailed
		}
	}
	return nil
}

// importColumns names the header's columns by field, through the upload's
// mapping of file column names: every column must then be a field of the
// import's type, once.
func importColumns(header, fields []string, mapping map[string]string) ([]string, error) {
	var unknown, seen []string
	columns := make([]string, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		if to, ok := mapping[h]; ok {
			h = to
		}
		columns[i] = h
		switch {
		case !slices.Contains(fields, h):
			unknown = append(unknown, fmt.Sprintf("%q", h))
		case slices.Contains(seen, h):
			return nil, cannotRead("error.import_repeated_column", h)
		}
		seen = append(seen, h)
	}
	if len(unknown) > 0 {
		return nil, cannotRead("error.import_unknown_columns", strings.Join(unknown, ", "), strings.Join(fields, ", "))
	}
	return columns, nil
}

// rowReader reads a file's rows as text cells, returning io.EOF after the
// last row and an *unreadable for content that is not what it should be.
// Close releases what reading holds (an XLSX workbook's temporary files).
type rowReader interface {
	Read() ([]string, error)
	Close() error
}

// zipMagic opens every ZIP file, so every XLSX workbook.
var zipMagic = []byte("PK\x03\x04")

// textSniffSize is how much of a file that is not a workbook decides
// whether it is text: what net/http's content sniffing reads.
const textSniffSize = 512

// openRows tells an XLSX workbook from a CSV file by its first bytes, not
// by its name, which the uploader chose, and opens its rows: those of the
// sheet named, or of the first sheet, for a workbook. Any other file is
// refused unless its start is text: read as CSV, a picture, a PDF or an
// old binary .xls workbook would name its bytes as unknown columns. The
// sniffing is the WHATWG algorithm of http.DetectContentType, which knows
// the signatures of such formats and takes control bytes for binary
// data; Windows-1250 text, whose letters are bytes over 0x7F, is text.
func openRows(r io.Reader, sheet string) (rowReader, error) {
	buf := bufio.NewReaderSize(r, sniffSize)
	head, err := buf.Peek(textSniffSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if bytes.HasPrefix(head, zipMagic) {
		return openXLSX(buf, sheet)
	}
	if !strings.HasPrefix(http.DetectContentType(head), "text/") {
		return nil, cannotRead("error.import_not_csv_or_xlsx")
	}
	return openCSV(buf)
}

// csvRows reads CSV records; a malformed one makes the file unreadable.
type csvRows struct{ *csv.Reader }

func (r csvRows) Read() ([]string, error) {
	record, err := r.Reader.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, cannotRead("error.import_not_csv", err.Error())
	}
	return record, err
}

// Close holds nothing to release: the body belongs to the caller.
func (csvRows) Close() error { return nil }

// openCSV detects the file's encoding and delimiter from its first 64 KiB
// and returns a streaming CSV reader of its text. A UTF-8 byte order mark,
// or a start that is valid UTF-8, means UTF-8; anything else is taken for
// Windows-1250, as Polish Excel writes "CSV (separated by semicolons)".
// The delimiter is whichever of ';' and ',' the header line has more of.
func openCSV(r io.Reader) (csvRows, error) {
	buf := bufio.NewReaderSize(r, sniffSize)
	head, err := buf.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return csvRows{}, err
	}
	var text io.Reader = buf
	switch {
	case strings.HasPrefix(string(head), "\uFEFF"):
		_, _ = buf.Discard(3)
		head = head[3:]
	case !validUTF8Start(head):
		text = charmap.Windows1250.NewDecoder().Reader(buf)
	}
	line := head
	if i := strings.IndexByte(string(head), '\n'); i >= 0 {
		line = head[:i]
	}
	out := csv.NewReader(text)
	out.Comma = ','
	if strings.Count(string(line), ";") > strings.Count(string(line), ",") {
		out.Comma = ';'
	}
	out.FieldsPerRecord = -1 // short rows leave their last fields absent
	return csvRows{out}, nil
}

// validUTF8Start reports whether b is UTF-8, allowing a rune cut at its
// end by the sniffing window.
func validUTF8Start(b []byte) bool {
	for cut := 0; cut < utf8.UTFMax && cut <= len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) {
			return true
		}
	}
	return false
}

// Apply applies the import's planned rows in batches, each in one
// transaction with its audit entry, heartbeating the last row number
// committed. A retried attempt resumes after that row; rows already
// applied are skipped in any case, as their change committed with the
// mark, so no row is applied twice. Then the import is completed (with
// errors when some rows were invalid) and import.completed is emitted.
func (a *Imports) Apply(ctx context.Context, in imports.ImportInput) (string, error) {
	imp, err := a.load(ctx, in)
	if err != nil || imp.Status != imports.ImportApplying {
		return statusOf(imp), err
	}
	after := 0
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &after)
	}
	if imports.ImportRowsIndependent(imp) {
		err = a.applyConcurrently(ctx, imp, after)
	} else {
		err = a.applyInTurn(ctx, imp, after)
	}
	if err != nil {
		return "", err
	}
	w := systemUnit(ctx, a.DB, imp.OrganizationID)
	status, err := imports.CompleteImport(w, imp)
	if err != nil {
		w.Rollback()
		return "", err
	}
	return status, domain.Commit(w, domain.AuditEntry{Operation: "completeImport"})
}

// applyInTurn applies the batches after row number after one by one.
func (a *Imports) applyInTurn(ctx context.Context, imp *imports.Import, after int) error {
	progress := imports.TrackImport(a.DB, imp)
	for {
		last, n, err := imports.ApplyImportBatch(importUnit(ctx, a.DB, imp), imp, after, applyBatch)
		if err != nil || n == 0 {
			return err
		}
		telemetry.RowsImported(n)
		after = last
		activity.RecordHeartbeat(ctx, after)
		if err := progress.Move(ctx, imports.StageApplying, int64(after), domain.Known(imp.Rows())); err != nil {
			return err
		}
	}
}

// applyWorkers is how many batches are applied at the same time: half of
// a batch's time is Go's and half PostgreSQL's, and a batch also waits for
// its commit to be flushed, so a third keeps both busy through those
// waits (the 100k-row bench: 6.6-7.3 s with two, 5.9 s with three, no
// better with four, which holds more rows in memory).
const applyWorkers = 3

// applyConcurrently applies the batches after row number after, several
// at a time. The batches are the ones applyInTurn would apply, cut in
// turn by row number; each still commits alone with its audit entry. The
// heartbeat names the last row before which every batch committed, so a
// retry resumes there and skips the rows of later batches that committed.
func (a *Imports) applyConcurrently(ctx context.Context, imp *imports.Import, after int) error {
	type batch struct{ after, last int }
	batches := make(chan batch)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		for from := after; ; {
			last, err := imports.NextImportBatch(gctx, a.DB, imp, from, applyBatch)
			if err != nil || last == 0 {
				return err
			}
			select {
			case batches <- batch{after: from, last: last}:
			case <-gctx.Done():
				return gctx.Err()
			}
			from = last
		}
	})
	var (
		mu   sync.Mutex
		done = map[int]int{} // committed batches beyond after: from → last
	)
	progress := imports.TrackImport(a.DB, imp)
	committed := func(b batch) error {
		mu.Lock()
		defer mu.Unlock()
		done[b.after] = b.last
		for last, ok := done[after]; ok; last, ok = done[after] {
			delete(done, after)
			after = last
			activity.RecordHeartbeat(ctx, after)
		}
		return progress.Move(gctx, imports.StageApplying, int64(after), domain.Known(imp.Rows()))
	}
	for range applyWorkers {
		g.Go(func() error {
			for b := range batches {
				_, n, err := imports.ApplyImportRange(importUnit(gctx, a.DB, imp), imp, b.after, b.last, applyBatch)
				if err != nil {
					return err
				}
				telemetry.RowsImported(n)
				if err := committed(b); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}
