package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/database"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Import types.
const (
	ImportCatalog          = "catalog"
	ImportPartners         = "partners"
	ImportDocumentMetadata = "document_metadata"
	ImportCodeMappings     = "code_mappings"
)

// ImportTypes are the spec's import types.
var ImportTypes = []string{ImportCatalog, ImportPartners, ImportDocumentMetadata, ImportCodeMappings}

// ImportColumns are the columns a file of each type may have: the API's
// field names of what the type writes, bound by the same declarations.
var ImportColumns = map[string][]string{
	ImportCatalog:          CatalogImportColumns,
	ImportPartners:         PartnerImportColumns,
	ImportDocumentMetadata: DocumentMetadataImportColumns,
	ImportCodeMappings:     CodeMappingImportColumns,
}

// Import statuses.
const (
	ImportQueued              = "queued"
	ImportReadyStatus         = "ready"
	ImportFailedStatus        = "failed"
	ImportApplying            = "applying"
	ImportCompletedStatus     = "completed"
	ImportCompletedWithErrors = "completed_with_errors"
)

// Progress stages of an import: its preview reads and plans the file's
// rows (their total unknown until the file ends), its apply applies them
// (of all the rows).
const (
	StagePreviewing = "previewing"
	StageApplying   = "applying"
)

// ImportStages are an import's progress stages in order.
var ImportStages = domain.Stages{domain.StageQueued, StagePreviewing, StageApplying}

// ImportStatuses are every status, for the OpenAPI document.
var ImportStatuses = []string{ImportQueued, ImportReadyStatus, ImportFailedStatus, ImportApplying, ImportCompletedStatus, ImportCompletedWithErrors}

// Row outcomes.
const (
	OutcomeCreate    = "create"
	OutcomeUpdate    = "update"
	OutcomeUnchanged = "unchanged"
	OutcomeInvalid   = "invalid"
)

// ImportOutcomes are every outcome of a row.
var ImportOutcomes = []string{OutcomeCreate, OutcomeUpdate, OutcomeUnchanged, OutcomeInvalid}

// ErrImportNotReady refuses an apply before the preview is ready, or a
// second one.
var ErrImportNotReady = &domain.RuleError{Code: "import_not_ready", Key: "error.import_not_ready"}

// Import is an uploaded file and the state of its preview and apply.
type Import struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Type           string
	Status         string
	FileName       string
	SizeBytes      int64
	ObjectKey      string
	// Mapping maps the file's column names to field names; Sheet names the
	// XLSX sheet to read ("" for the first).
	Mapping        datatypes.JSON `gorm:"type:jsonb"`
	Sheet          string
	CreateCount    int
	UpdateCount    int
	UnchangedCount int
	InvalidCount   int
	// ErrorKey and ErrorArgs say why the file could not be read, as a
	// message key and its arguments ("" unless failed).
	ErrorKey    string
	ErrorArgs   datatypes.JSON `gorm:"type:jsonb"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ReadyAt     *time.Time
	CompletedAt *time.Time
	Progress    domain.Progress `gorm:"embedded"`
}

// Running reports whether the import's preview or apply is under way; a
// ready import waits for its apply to be asked for.
func (m *Import) Running() bool { return m.Status == ImportQueued || m.Status == ImportApplying }

// Rows is how many rows the preview stored.
func (m *Import) Rows() int64 {
	return int64(m.CreateCount + m.UpdateCount + m.UnchangedCount + m.InvalidCount)
}

// TrackImport is the progress tracker of the import's preview or apply.
func TrackImport(db *gorm.DB, imp *Import) *domain.ProgressTracker {
	return ImportStages.Track(db, &Import{}, imp.OrganizationID, imp.ID)
}

// ImportRow is one data row of an import.
type ImportRow struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	ImportID       uuid.UUID `gorm:"type:uuid"`
	Number         int
	Input          datatypes.JSON `gorm:"type:jsonb"`
	Errors         datatypes.JSON `gorm:"type:jsonb"`
	Outcome        string
	Planned        datatypes.JSON `gorm:"type:jsonb"`
	Applied        datatypes.JSON `gorm:"type:jsonb"`
}

// RowsSettled reports whether the import's rows are what its result file
// shows: previewed (ready) or applied. A queued import's rows are being
// planned, an applying one's applied, and a failed import's file could not
// be read.
func (m *Import) RowsSettled() bool {
	switch m.Status {
	case ImportReadyStatus, ImportCompletedStatus, ImportCompletedWithErrors:
		return true
	}
	return false
}

// ColumnMapping is the upload's map of file column names to field names.
func (m *Import) ColumnMapping() (map[string]string, error) {
	out := map[string]string{}
	return out, decodeStored(m.Mapping, &out, "import", m.ID, "mapping")
}

// Cells are the row's input, keyed by field name.
func (r *ImportRow) Cells() (map[string]string, error) {
	cells := map[string]string{}
	return cells, decodeStored(r.Input, &cells, "import row", r.ID, "input")
}

// ErrorReason is why the import failed, as a message key and its
// arguments; the key is "" unless it failed.
func (m *Import) ErrorReason() (key string, args []any, err error) {
	if m.ErrorKey == "" {
		return "", nil, nil
	}
	if err := decodeStored(m.ErrorArgs, &args, "import", m.ID, "error_args"); err != nil {
		return "", nil, err
	}
	return m.ErrorKey, args, nil
}

// FieldErrors are the row's stored field errors.
func (r *ImportRow) FieldErrors() ([]input.FieldError, error) {
	var out []input.FieldError
	return out, decodeStored(r.Errors, &out, "import row", r.ID, "errors")
}

// PlannedChange is the row's planned change; zero for an invalid row,
// which may have none, while a row of any other outcome has one.
func (r *ImportRow) PlannedChange() (RowChange, error) {
	if len(r.Planned) == 0 && r.Outcome != OutcomeInvalid {
		return RowChange{}, fmt.Errorf("imports: import row %s: no stored planned change for a row to %s", r.ID, r.Outcome)
	}
	return r.change(r.Planned, "planned")
}

// AppliedChange is the change applying the row made; zero until it is
// applied.
func (r *ImportRow) AppliedChange() (RowChange, error) { return r.change(r.Applied, "applied") }

func (r *ImportRow) change(doc datatypes.JSON, column string) (RowChange, error) {
	var out RowChange
	if len(doc) == 0 {
		return out, nil // NULL: no change
	}
	return out, decodeStored(doc, &out, "import row", r.ID, column)
}

// decodeStored decodes a stored JSON column of a record into out. Such a
// value that does not decode is corrupt, so the error names where it is
// rather than passing for an empty value.
func decodeStored(doc datatypes.JSON, out any, record string, id uuid.UUID, column string) error {
	if err := json.Unmarshal(doc, out); err != nil {
		return fmt.Errorf("imports: %s %s: stored %s: %w", record, id, column, err)
	}
	return nil
}

// ImportObjectKey is where an import's file is kept.
func ImportObjectKey(orgID, importID uuid.UUID, fileName string) string {
	return "org/" + orgID.String() + "/imports/" + importID.String() + "/" + fileName
}

// ImportUpload is what an upload form sent besides the file's content.
type ImportUpload struct {
	Type     string
	FileName string
	Size     int64
	// Mapping maps file column names to field names.
	Mapping map[string]string
	// Sheet is the XLSX sheet to read; "" for the first.
	Sheet string
}

// ImportInput names the import a run works on.
type ImportInput struct {
	domain.Org
	ImportID uuid.UUID `json:"import_id"`
}

// WorkflowInput is the input of the import's workflows.
func (imp *Import) WorkflowInput() ImportInput {
	return ImportInput{Org: domain.OrgOf(imp.OrganizationID), ImportID: imp.ID}
}

// PreviewWorkflow is the preview run of an import, ApplyWorkflow its
// apply run. Apply is a workflow of its own, started durably by the apply
// request, rather than a signal to a waiting preview run: a signal sent
// after the request commits is lost if the process dies in between, while
// a recorded start is not.
var (
	PreviewWorkflow = domain.Workflow[ImportInput]{
		Type:     "ImportPreview",
		ID:       func(in ImportInput) string { return "import/" + in.ImportID.String() },
		Resource: importOf,
	}
	ApplyWorkflow = domain.Workflow[ImportInput]{
		Type:     "ImportApply",
		ID:       func(in ImportInput) string { return "import/" + in.ImportID.String() + "/apply" },
		Resource: importOf,
	}
)

func importOf(in ImportInput) uuid.UUID { return in.ImportID }

// CreateImport records an uploaded file as a queued import, with the
// start of its preview.
func CreateImport(w *work.Unit, id uuid.UUID, up ImportUpload) (*Import, error) {
	stamp := domain.Now()
	if up.Mapping == nil {
		up.Mapping = map[string]string{}
	}
	imp := &Import{ID: id, OrganizationID: w.Organization(), Type: up.Type, Status: ImportQueued, FileName: up.FileName,
		SizeBytes: up.Size, ObjectKey: ImportObjectKey(w.Organization(), id, up.FileName), Mapping: mustJSON(up.Mapping),
		Sheet: up.Sheet, ErrorArgs: mustJSON([]any{}), CreatedAt: stamp, UpdatedAt: stamp, Progress: ImportStages.Queued()}
	if err := w.Defer(imp); err != nil {
		return nil, err
	}
	w.Touch("import", id)
	return imp, domain.Start(w, PreviewWorkflow, imp.WorkflowInput(), imp.previewSummary())
}

// previewSummary and applySummary say what the import's runs work on,
// for the Temporal UI: the preview knows the file, the apply its rows.
func (imp *Import) previewSummary() string {
	return fmt.Sprintf("Preview import `%s`: %s, %s bytes", imp.FileName, imp.Type, domain.Count(imp.SizeBytes))
}

func (imp *Import) applySummary() string {
	rows := imp.CreateCount + imp.UpdateCount + imp.UnchangedCount + imp.InvalidCount
	return fmt.Sprintf("Apply import `%s`: %s, %s rows (%s new, %s changed)", imp.FileName, imp.Type,
		domain.Count(int64(rows)), domain.Count(int64(imp.CreateCount)), domain.Count(int64(imp.UpdateCount)))
}

// LockImport reads the organization's import for update.
func LockImport(w *work.Unit, id uuid.UUID) (*Import, error) {
	return domain.LockFor[Import](w.Context(), w.Tx(), w.Organization(), id, "UPDATE")
}

// RequestImportApply moves a ready import to applying and records the
// start of its apply run, so the apply runs if and only if the change
// commits.
func RequestImportApply(w *work.Unit, id uuid.UUID) (*Import, error) {
	imp, err := LockImport(w, id)
	if err != nil {
		return nil, err
	}
	if imp.Status != ImportReadyStatus {
		return nil, ErrImportNotReady
	}
	if importKinds[imp.Type].apply == nil {
		return nil, ErrImportPlannedOnly
	}
	imp.Status, imp.UpdatedAt = ImportApplying, domain.Now()
	if err := w.Tx().Model(imp).Updates(map[string]any{"status": imp.Status, "updated_at": imp.UpdatedAt}).Error; err != nil {
		return nil, err
	}
	// The answer shows the apply's stage at once: none of the rows yet.
	imp.Progress = domain.Progress{Stage: StageApplying, Total: domain.Known(imp.Rows()), MovedAt: imp.UpdatedAt}
	if _, err := ImportStages.Advance(w.Context(), w.Tx(), &Import{}, imp.OrganizationID, imp.ID, StageApplying, 0, imp.Progress.Total); err != nil {
		return nil, err
	}
	w.Touch("import", id)
	return imp, domain.Start(w, ApplyWorkflow, imp.WorkflowInput(), imp.applySummary())
}

// CountImportRows sets the import's counts from its rows.
func CountImportRows(w *work.Unit, imp *Import) error {
	var counts []struct {
		Outcome string
		N       int
	}
	if err := w.Tx().Model(&ImportRow{}).Select("outcome, count(*) AS n").Where("import_id = ?", imp.ID).
		Group("outcome").Scan(&counts).Error; err != nil {
		return err
	}
	imp.CreateCount, imp.UpdateCount, imp.UnchangedCount, imp.InvalidCount = 0, 0, 0, 0
	for _, c := range counts {
		switch c.Outcome {
		case OutcomeCreate:
			imp.CreateCount = c.N
		case OutcomeUpdate:
			imp.UpdateCount = c.N
		case OutcomeUnchanged:
			imp.UnchangedCount = c.N
		case OutcomeInvalid:
			imp.InvalidCount = c.N
		}
	}
	return nil
}

// ReadyImport makes a previewed import ready with the counts of its rows.
func ReadyImport(w *work.Unit, imp *Import) error {
	if err := CountImportRows(w, imp); err != nil {
		return err
	}
	// A large file has just grown import_rows by more than autovacuum has
	// looked at yet; the apply's row queries are planned on statistics
	// that include it. Only the columns queries filter and order rows by
	// are analysed: the statistics of the row's documents (its input,
	// errors and plan), which no query filters by, were most of the
	// time, 0.4 to 0.9 s of a 100,000-row preview against 0.06 to 0.2 s.
	// The sample is a tenth of the default (3,000 rows): those queries
	// need the import's share of the table, the rows' outcomes and that
	// none is applied yet, which it shows as well, and ANALYZE, the last
	// thing before ready, took a tenth of the time (0.05 to 0.12 s
	// against 0.9 to 1.1 s for 100,000 rows, measured under load).
	if imp.CreateCount+imp.UpdateCount+imp.UnchangedCount+imp.InvalidCount >= analyzeImportRowsFrom {
		if err := w.Tx().Exec("SET LOCAL default_statistics_target = 10").Error; err != nil {
			return err
		}
		if err := w.Tx().Exec("ANALYZE import_rows (id, organization_id, import_id, number, outcome, applied)").Error; err != nil {
			return err
		}
	}
	return finishImport(w, imp, ImportReadyStatus, nil, ImportReady{ID: imp.ID, Status: ImportReadyStatus})
}

// analyzeImportRowsFrom is the number of rows from which a preview
// refreshes the statistics of import_rows.
const analyzeImportRowsFrom = 10_000

// FailImport fails an import whose file cannot be read, with the reason
// (a message key and its arguments).
func FailImport(w *work.Unit, imp *Import, reason input.FieldError) error {
	return finishImport(w, imp, ImportFailedStatus, &reason, ImportFailed{ID: imp.ID, Status: ImportFailedStatus})
}

// CompleteImport ends an applied import with the counts of its rows:
// completed, or completed_with_errors when some rows were invalid. It
// returns the status.
func CompleteImport(w *work.Unit, imp *Import) (string, error) {
	if err := countInvalidated(w, imp); err != nil {
		return "", err
	}
	status := ImportCompletedStatus
	if imp.InvalidCount > 0 {
		status = ImportCompletedWithErrors
	}
	return status, finishImport(w, imp, status, nil, ImportCompleted{ID: imp.ID, Status: status})
}

// countInvalidated moves from the import's counts as its preview made it
// ready to the counts of its applied rows. An apply changes no outcome
// but a planned create's or update's, to invalid, when a rule the preview
// could not check refuses the row, and such rows alone are invalid with a
// plan (the preview plans no invalid row): import_rows_invalidated_idx
// finds them, usually none, where counting every row again read the
// whole import back (migration 0055). A row was an update when its plan
// names the record it changes.
func countInvalidated(w *work.Unit, imp *Import) error {
	read, err := w.Tx().Raw("SELECT id, planned FROM import_rows WHERE import_id = ? AND outcome = '"+OutcomeInvalid+
		"' AND planned IS NOT NULL", imp.ID).Rows()
	if err != nil {
		return err
	}
	defer read.Close()
	for read.Next() {
		row := ImportRow{Outcome: OutcomeInvalid}
		if err := read.Scan(&row.ID, &row.Planned); err != nil {
			return err
		}
		plan, err := row.PlannedChange()
		if err != nil {
			return err
		}
		if plan.Record() == uuid.Nil {
			imp.CreateCount--
		} else {
			imp.UpdateCount--
		}
		imp.InvalidCount++
	}
	return read.Err()
}

// finishImport sets the import's status with its counts, or for a failed
// one its reason, and emits event, all in w.
func finishImport(w *work.Unit, imp *Import, status string, reason *input.FieldError, event domain.Payload) error {
	stamp := domain.Now()
	set := map[string]any{"status": status, "updated_at": stamp}
	if reason != nil {
		imp.ErrorKey, imp.ErrorArgs = reason.Key, mustJSON(reason.Args)
		set["error_key"], set["error_args"] = imp.ErrorKey, imp.ErrorArgs
	}
	if status != ImportFailedStatus {
		set["create_count"], set["update_count"] = imp.CreateCount, imp.UpdateCount
		set["unchanged_count"], set["invalid_count"] = imp.UnchangedCount, imp.InvalidCount
	}
	switch status {
	case ImportReadyStatus:
		set["ready_at"] = stamp
	case ImportCompletedStatus, ImportCompletedWithErrors, ImportFailedStatus:
		set["completed_at"] = stamp
	}
	if err := w.Tx().Model(imp).Updates(set).Error; err != nil {
		return err
	}
	// A stage that ended shows all its rows done, committed with the
	// status that says so.
	if stage := finishedStage[status]; stage != "" {
		if err := ImportStages.End(w.Context(), w.Tx(), &Import{}, imp.OrganizationID, imp.ID, stage, imp.Rows()); err != nil {
			return err
		}
	}
	w.Touch("import", imp.ID)
	return domain.Emit(w, event)
}

// finishedStage is the stage each status ends, with all its rows done.
var finishedStage = map[string]string{
	ImportReadyStatus: StagePreviewing, ImportCompletedStatus: StageApplying, ImportCompletedWithErrors: StageApplying,
}

// ErrImportNoLongerFailed refuses to requeue an import that another
// re-drive requeued meanwhile.
var ErrImportNoLongerFailed = errors.New("import: the import is no longer failed (another re-drive requeued it)")

// RequeueFailedImport makes a failed import queued again, without the
// reason it failed, so that a new preview run reads its stored file again;
// the caller records the reason in its audit entry. The update holds the
// import's row until tx ends, and the preview's read of the import waits
// for it, so a run started in tx sees what tx commits.
func RequeueFailedImport(ctx context.Context, tx *gorm.DB, imp *Import) error {
	stamp := domain.Now()
	res := tx.WithContext(ctx).Model(imp).Where("status = ?", ImportFailedStatus).Updates(map[string]any{
		"status": ImportQueued, "error_key": "", "error_args": mustJSON([]any{}), "completed_at": nil, "updated_at": stamp})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrImportNoLongerFailed
	}
	imp.Status, imp.ErrorKey, imp.ErrorArgs, imp.CompletedAt, imp.UpdatedAt = ImportQueued, "", mustJSON([]any{}), nil, stamp
	return nil
}

// ClearImportRows deletes rows a failed preview attempt left, so a retried
// preview starts over.
func ClearImportRows(w *work.Unit, importID uuid.UUID) error {
	return w.Tx().Where("import_id = ?", importID).Delete(&ImportRow{}).Error
}

// pendingRows is the condition on an import's rows (its id, then a row
// number) that they are after that number and to be applied: planned
// creates and updates not applied yet.
const pendingRows = "import_id = ? AND number > ? AND applied IS NULL AND outcome IN ('" + OutcomeCreate + "', '" + OutcomeUpdate + "')"

// PendingImportRows are the next rows to apply after row number after, up
// to row number upTo: planned creates and updates not applied yet, in row
// order. Only what the apply reads is read (their id, number, outcome and
// plan): the apply binds what was planned, and rendering the input's jsonb
// as text took PostgreSQL as long again as rendering the rest of the row.
// They are not locked: saveAppliedRows finds out whether another
// transaction applied them meanwhile, and locking each row cost a
// write-ahead log record per row. They are read by position: GORM's
// matching of columns to fields by reflection cost more than the rest of
// the read.
func PendingImportRows(w *work.Unit, importID uuid.UUID, after, upTo, limit int) ([]ImportRow, error) {
	read, err := w.Tx().Raw("SELECT id, number, outcome, planned FROM import_rows WHERE "+pendingRows+
		" AND number <= ? ORDER BY number LIMIT ?", importID, after, upTo, limit).Rows()
	if err != nil {
		return nil, err
	}
	defer read.Close()
	var rows []ImportRow
	for read.Next() {
		rows = append(rows, ImportRow{})
		r := &rows[len(rows)-1]
		if err := read.Scan(&r.ID, &r.Number, &r.Outcome, &r.Planned); err != nil {
			return nil, err
		}
	}
	return rows, read.Err()
}

// ImportBatchEnd is the number of the last row of the next batch of up to
// limit pending rows after row number after, or 0 when none is pending.
func ImportBatchEnd(ctx context.Context, db *gorm.DB, importID uuid.UUID, after, limit int) (int, error) {
	var end *int
	err := db.WithContext(ctx).Raw("SELECT max(number) FROM (SELECT number FROM import_rows WHERE "+pendingRows+
		" ORDER BY number LIMIT ?) AS batch", importID, after, limit).Scan(&end).Error
	if err != nil || end == nil {
		return 0, err
	}
	return *end, nil
}

// NextImportBatch is the number of the last row of the next batch of up to
// limit pending rows after row number after, or 0 when none is pending:
// ImportBatchEnd's answer. When the preview counted its rows and planned
// every one as a create or an update, the batch is cut by row number,
// without reading the rows: they are numbered from 1 without a gap, and
// none of them is left out but one an earlier attempt applied, which a
// retry's batch skips anyway. Reading each batch's rows to count them cost
// PostgreSQL some 0.1 s of CPU per 100,000 rows, the batch's own read of
// them aside.
func NextImportBatch(ctx context.Context, db *gorm.DB, imp *Import, after, limit int) (int, error) {
	if rows := int(imp.Rows()); rows > 0 && imp.CreateCount+imp.UpdateCount == rows {
		if after >= rows {
			return 0, nil
		}
		return min(after+limit, rows), nil
	}
	return ImportBatchEnd(ctx, db, imp.ID, after, limit)
}

// ImportRowsIndependent reports whether the import's rows may be applied
// in batches at the same time: no two of its rows touch the same record
// or unique key, so batches neither wait for nor refuse each other.
func ImportRowsIndependent(imp *Import) bool { return importKinds[imp.Type].independent }

// ApplyImportBatch applies up to limit pending rows after row number after
// in w, through the same commands as the API, records on each row what it
// changed (or why it could not be applied) and commits with one audit
// entry naming the import and the batch's rows. w acts for the system and
// is quiet (work.Actor.Quiet), so the commands' per-record events are not
// emitted: the rows are the record of what changed, and the import
// announces itself. It returns the last row number handled and how many
// rows it handled; 0 rows means nothing is left.
func ApplyImportBatch(w *work.Unit, imp *Import, after, limit int) (last, n int, err error) {
	return ApplyImportRange(w, imp, after, math.MaxInt32, limit)
}

// ApplyImportRange is ApplyImportBatch of the pending rows up to row
// number upTo only, for batches applied at the same time.
func ApplyImportRange(w *work.Unit, imp *Import, after, upTo, limit int) (last, n int, err error) {
	apply := importKinds[imp.Type].apply
	if apply == nil {
		w.Rollback()
		return after, 0, ErrImportPlannedOnly
	}
	rows, err := PendingImportRows(w, imp.ID, after, upTo, limit)
	if err != nil || len(rows) == 0 {
		w.Rollback()
		return after, 0, err
	}
	results, err := apply(w, rows)
	if err == nil {
		err = saveAppliedRows(w, rows, results)
	}
	if err != nil {
		w.Rollback()
		return after, 0, err
	}
	numbers := make([]int, len(rows))
	for i := range rows {
		numbers[i] = rows[i].Number
	}
	w.Touch("import", imp.ID)
	entry := domain.AuditEntry{Operation: "applyImport", Summary: mustJSON(map[string]any{"import": imp.ID, "rows": numbers})}
	if err := domain.Commit(w, entry); err != nil {
		return after, 0, err
	}
	return numbers[len(numbers)-1], len(rows), nil
}

// saveAppliedRows records on each row what applying it did, in one
// statement for the batch: the change it made, or invalid with its errors.
// The batch's values are bound as three arrays (a VALUES list of
// parameters a row cost PostgreSQL half as much again), and a row applied
// keeps its outcome and (empty) errors.
func saveAppliedRows(w *work.Unit, rows []ImportRow, results []rowApplied) error {
	ids, errs, applied := make([]uuid.UUID, len(rows)), make([]*string, len(rows)), make([]*string, len(rows))
	for i, r := range results {
		ids[i] = rows[i].ID
		if r.invalid != nil {
			errs[i] = new(string(mustJSON(r.invalid.Fields)))
		} else {
			applied[i] = new(string(mustJSON(r.change)))
		}
	}
	res := w.Tx().Exec(`UPDATE import_rows AS r
		SET outcome = CASE WHEN v.errors IS NULL THEN r.outcome ELSE '`+OutcomeInvalid+`' END,
			errors = coalesce(v.errors, r.errors), applied = v.applied
		FROM unnest(?::uuid[], ?::jsonb[], ?::jsonb[]) AS v (id, errors, applied)
		WHERE r.id = v.id AND r.applied IS NULL AND r.outcome IN ('`+OutcomeCreate+`', '`+OutcomeUpdate+`')`,
		database.Array(ids), database.Array(errs), database.Array(applied))
	if res.Error == nil && res.RowsAffected != int64(len(rows)) {
		return errRowsAppliedMeanwhile
	}
	return res.Error
}

// errRowsAppliedMeanwhile fails a batch whose rows another attempt of the
// apply marked while this one worked on them (an attempt Temporal gave up
// on may still be running): the marks' update waited for that attempt to
// commit, so this batch rolls back and its changes are never made twice.
var errRowsAppliedMeanwhile = errors.New("import: rows of the batch were applied by another attempt meanwhile")

func mustJSON(v any) datatypes.JSON {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings, numbers and ids are marshalled here
	}
	return datatypes.JSON(b)
}
