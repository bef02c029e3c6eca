package imports

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/database"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// RowPlanner plans an import's rows batch by batch: it binds each row's
// cells with the API's rules and decides its outcome and planned change.
// It remembers earlier batches, so a key twice in one file is refused
// instead of planned twice. The rows are returned for the caller to store.
type RowPlanner interface {
	Plan(w *work.Unit, importID uuid.UUID, first int, cells []map[string]string) ([]ImportRow, error)
}

// importKind is what an import type does with its rows.
type importKind struct {
	planner func() RowPlanner
	// apply applies a batch's planned rows through the API's commands and
	// returns, row by row, what each changed or why it is invalid after
	// all. Nil for a type whose rows are planned only.
	apply func(w *work.Unit, rows []ImportRow) ([]rowApplied, error)
	// independent types key every row by a unique key of one record, each
	// once per file (catalogue items by internal code), so their batches
	// may be applied at the same time.
	independent bool
}

// rowApplied is what applying a row did: the change it made, or why it
// could not be made (a rule the preview could not check, such as the
// record having changed since).
type rowApplied struct {
	change  RowChange
	invalid *input.Invalid
}

// rowByRow applies a batch one row at a time with apply, for the types
// whose rows need nothing read for the whole batch. An *input.Invalid from
// apply makes the row invalid; any other error fails the batch.
func rowByRow(apply func(w *work.Unit, row *ImportRow) (RowChange, error)) func(*work.Unit, []ImportRow) ([]rowApplied, error) {
	return func(w *work.Unit, rows []ImportRow) ([]rowApplied, error) {
		out := make([]rowApplied, len(rows))
		for i := range rows {
			change, err := apply(w, &rows[i])
			if err != nil && !errors.As(err, &out[i].invalid) {
				return nil, err
			}
			out[i].change = change
		}
		return out, nil
	}
}

var importKinds = map[string]importKind{
	ImportCatalog:          {planner: func() RowPlanner { return &catalogPlanner{} }, apply: applyCatalogRows, independent: true},
	ImportPartners:         {planner: func() RowPlanner { return &partnerPlanner{} }, apply: rowByRow(applyPartnerRow)},
	ImportCodeMappings:     {planner: func() RowPlanner { return &codeMappingPlanner{} }, apply: rowByRow(applyCodeMappingRow)},
	ImportDocumentMetadata: {planner: func() RowPlanner { return &documentMetadataPlanner{} }},
}

// NewRowPlanner is the planner of the import's type.
func NewRowPlanner(imp *Import) RowPlanner { return importKinds[imp.Type].planner() }

// importRowColumns are the columns a planned row stores.
var importRowColumns = []string{"id", "organization_id", "import_id", "number", "input", "errors", "outcome", "planned"}

// StoreImportRows writes a batch of planned rows with COPY: a preview
// stores a whole file's rows, and nothing else commits with them.
func StoreImportRows(ctx context.Context, db *gorm.DB, rows []ImportRow) error {
	values := make([][]any, len(rows))
	for i, r := range rows {
		var planned any
		if r.Planned != nil {
			planned = []byte(r.Planned)
		}
		values[i] = []any{r.ID, r.OrganizationID, r.ImportID, r.Number, []byte(r.Input), []byte(r.Errors), r.Outcome, planned}
	}
	return database.Copy(ctx, db, "import_rows", importRowColumns, values)
}

// inBatch, after a column, is the condition that it is one of a batch's
// keys, passed with batchKeys as one array parameter. An import runs the
// same lookup batch after batch; with "IN ?" (a parameter per key)
// PostgreSQL's generic plan, used from the sixth run, compares every row
// with each key, so every batch would take longer than the one before.
const inBatch = " IN (SELECT unnest(?::text[]))"

// batchKeys are a batch's keys as the parameter of inBatch.
func batchKeys(keys []string) pgtype.Array[string] { return database.Array(keys) }

// ErrImportPlannedOnly refuses to apply an import whose rows can be
// planned but not applied yet (document metadata, until documents are
// built).
var ErrImportPlannedOnly = &domain.RuleError{Code: "import_planned_only", Key: "error.import_planned_only"}

// newImportRow is a data row of an import, numbered from 1 after the
// header, with its cells as read.
func newImportRow(w *work.Unit, importID uuid.UUID, number int, cells map[string]string) *ImportRow {
	return &ImportRow{ID: domain.NewID(), OrganizationID: w.Organization(), ImportID: importID, Number: number,
		Input: cellsJSON(cells), Errors: noErrors}
}

// noErrors are the field errors of a row without any.
var noErrors = datatypes.JSON("[]")

// decide sets the row's outcome: invalid with errs' field errors when
// binding or a rule failed, else outcome with its planned change.
func (r *ImportRow) decide(errs *input.Errors, outcome string, planned RowChange) {
	if !r.invalid(errs) {
		r.Outcome, r.Planned = outcome, changeJSON(planned)
	}
}

// invalid makes the row invalid with errs' field errors when binding or a
// rule failed, and reports whether it did.
func (r *ImportRow) invalid(errs *input.Errors) bool {
	var invalid *input.Invalid
	if !errors.As(errs.Err(), &invalid) {
		return false
	}
	r.Outcome, r.Errors = OutcomeInvalid, mustJSON(invalid.Fields)
	return true
}

// plannedCells are the planned values of a row as cells, so the apply binds
// exactly what the preview planned (with code mappings resolved) through
// the API's declarations: the fields of a create, or the new values of an
// update's changes. Only those are decoded, as text straight into the
// cells: decoding the whole change, each value behind a pointer, was a
// fifth of a catalogue apply's CPU time in this process. A null decodes
// as an empty cell, which is absent, as a null's cell was left out.
func plannedCells(row *ImportRow) (map[string]string, error) {
	if len(row.Planned) == 0 {
		_, err := row.PlannedChange() // says why there is none
		return map[string]string{}, err
	}
	if cells, ok := createCells(row.Planned); ok {
		return cells, nil
	}
	return decodePlannedCells(row)
}

// decodePlannedCells is plannedCells of any plan, through encoding/json.
func decodePlannedCells(row *ImportRow) (map[string]string, error) {
	var plan struct {
		Fields  map[string]string `json:"fields"`
		Changes map[string]struct {
			To string `json:"to"`
		} `json:"changes"`
	}
	if err := decodeStored(row.Planned, &plan, "import row", row.ID, "planned"); err != nil {
		return nil, err
	}
	cells := plan.Fields
	if cells == nil {
		cells = make(map[string]string, len(plan.Changes))
	}
	for field, c := range plan.Changes {
		cells[field] = c.To
	}
	return cells, nil
}

// fileKeys are the keys of the rows planned so far (an internal code, a
// tax id), with the number of the row that had each.
type fileKeys map[string]int

// once refuses key in field when an earlier row of the file had it, and
// otherwise remembers it; an empty key is not checked.
func (k fileKeys) once(key string, number int, field string, errs *input.Errors) {
	if key == "" {
		return
	}
	if prev, ok := k[key]; ok {
		errs.Fail(field, "field.duplicate_in_file", prev)
		return
	}
	k[key] = number
}

// textValues are the sent text fields by name, the form of a planned
// change's values.
func textValues(fields map[string]input.Opt[string]) map[string]*string {
	out := map[string]*string{}
	for name, v := range fields {
		if v.Set() {
			out[name] = text(v.Value)
		}
	}
	return out
}
