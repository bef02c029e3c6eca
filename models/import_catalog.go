package models

import (
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"ppwr/internal/input"
	"ppwr/internal/work"
)

// CatalogImportColumns are the columns a catalog import file may have: the
// API's field names of a catalogue item, bound by the same declarations.
var CatalogImportColumns = []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit",
	"stockTracked", "foodContactStatus", "reuseType", "folder", "family"}

// CatalogPlanner plans the rows of a catalog import batch by batch. It
// remembers the codes of earlier rows, so a code twice in one file is
// refused instead of planned twice.
type CatalogPlanner struct {
	seen map[string]int // internal code → row number
}

// plannedRow is a row being planned: its bound input and the item it names.
type plannedRow struct {
	row    *ImportRow
	errs   *input.Errors
	create *CatalogItemCreate
	patch  *CatalogItemPatch
	item   *CatalogItem
}

// Plan binds each row's cells (rows numbered from first) with the API's
// rules and plans its change: a create for a new internalCode, a
// field-level update of the item that has it, unchanged, or invalid with
// its field errors. References are checked with one query per table for
// the whole batch. The rows are returned for the caller to store.
func (p *CatalogPlanner) Plan(w *work.Unit, importID uuid.UUID, first int, cells []map[string]string) ([]ImportRow, error) {
	if p.seen == nil {
		p.seen = map[string]int{}
	}
	planned := make([]plannedRow, len(cells))
	codes := make([]string, 0, len(cells))
	for i, c := range cells {
		patch := &CatalogItemPatch{}
		input.FromCells(c, patch)
		planned[i] = plannedRow{row: &ImportRow{ID: NewID(), OrganizationID: w.Organization(), ImportID: importID,
			Number: first + i, Input: mustJSON(c)}, patch: patch, errs: &patch.Errors}
		if patch.InternalCode.Set() {
			codes = append(codes, patch.InternalCode.Value)
		}
	}
	existing := map[string]*CatalogItem{}
	if len(codes) > 0 {
		var items []CatalogItem
		if err := Tenant(w.Context(), w.Tx(), w.Organization()).Where("internal_code IN ?", codes).Find(&items).Error; err != nil {
			return nil, err
		}
		for i := range items {
			existing[items[i].InternalCode] = &items[i]
		}
	}
	var refs references
	for i := range planned {
		r := &planned[i]
		code := r.patch.InternalCode.Value
		if r.item = existing[code]; r.item == nil {
			// A new item: the create's rules apply (required fields).
			r.create = &CatalogItemCreate{}
			input.FromCells(cells[i], r.create)
			r.errs, r.patch = &r.create.Errors, nil
		}
		if prev, ok := p.seen[code]; ok && code != "" {
			r.errs.Fail("internalCode", "field.duplicate_in_file", prev)
		} else if code != "" {
			p.seen[code] = r.row.Number
		}
		if r.item != nil && r.item.Status == ItemArchived {
			r.errs.Fail("internalCode", "field.item_archived_in_import")
		}
		fields := r.fields()
		fields.references(&refs, r.errs)
	}
	if err := refs.check(w); err != nil {
		return nil, err
	}
	out := make([]ImportRow, len(planned))
	for i := range planned {
		planned[i].decide()
		out[i] = *planned[i].row
	}
	return out, nil
}

func (r *plannedRow) fields() *CatalogItemFields {
	if r.create != nil {
		return &r.create.CatalogItemFields
	}
	return &r.patch.CatalogItemFields
}

// decide sets the row's outcome, errors and planned change.
func (r *plannedRow) decide() {
	r.row.Errors = mustJSON([]input.FieldError{})
	var invalid *input.Invalid
	if errors.As(r.errs.Err(), &invalid) {
		r.row.Outcome, r.row.Errors = OutcomeInvalid, mustJSON(invalid.Fields)
		return
	}
	sent := r.fields().values()
	if r.create != nil {
		r.row.Outcome, r.row.Planned = OutcomeCreate, mustJSON(map[string]any{"fields": sent})
		return
	}
	current := itemValues(r.item)
	diff := map[string]any{}
	for field, v := range sent {
		if current[field] != v {
			diff[field] = map[string]any{"from": current[field], "to": v}
		}
	}
	r.row.Outcome = OutcomeUpdate
	if len(diff) == 0 {
		r.row.Outcome = OutcomeUnchanged
	}
	r.row.Planned = mustJSON(map[string]any{"catalogItem": r.item.ID, "revision": r.item.Revision, "changes": diff})
}

// values are the sent fields by API name, as comparable text (nil for
// null), so a diff is a plain comparison.
func (in *CatalogItemFields) values() map[string]any {
	out := map[string]any{}
	for name, v := range map[string]input.Opt[string]{
		"internalCode": in.InternalCode, "name": in.Name, "sourcingType": in.SourcingType, "mainMaterialCode": in.MainMaterialCode,
		"stockUnit": in.StockUnit, "foodContactStatus": in.FoodContactStatus, "reuseType": in.ReuseType,
	} {
		if v.Set() {
			out[name] = v.Value
		}
	}
	if in.MassG.Set() {
		out["massG"] = in.MassG.Value.String()
	}
	if in.StockTracked.Set() {
		out["stockTracked"] = boolText(in.StockTracked.Value)
	}
	for name, v := range map[string]input.Opt[uuid.UUID]{"folder": in.Folder, "family": in.Family} {
		if v.Null {
			out[name] = nil
		} else if v.Set() {
			out[name] = v.Value.String()
		}
	}
	return out
}

// itemValues are an item's fields in the form of values.
func itemValues(it *CatalogItem) map[string]any {
	ref := func(id *uuid.UUID) any {
		if id == nil {
			return nil
		}
		return id.String()
	}
	return map[string]any{
		"internalCode": it.InternalCode, "name": it.Name, "sourcingType": it.SourcingType, "massG": it.MassG.String(),
		"mainMaterialCode": it.MainMaterialCode, "stockUnit": it.StockUnit, "stockTracked": boolText(it.StockTracked),
		"foodContactStatus": it.FoodContactStatus, "reuseType": it.ReuseType, "folder": ref(it.FolderID), "family": ref(it.FamilyID),
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// ApplyImportBatch applies up to limit pending rows after row number after
// in w, through the same commands as the API, records on each row what it
// changed (or why it could not be applied) and commits with one audit
// entry naming the batch's rows. It returns the last row number handled
// and how many rows it handled; 0 rows means nothing is left.
func ApplyImportBatch(w *work.Unit, imp *Import, after, limit int) (last, n int, err error) {
	rows, err := PendingImportRows(w, imp.ID, after, limit)
	if err != nil || len(rows) == 0 {
		w.Rollback()
		return after, 0, err
	}
	numbers := make([]int, len(rows))
	for i := range rows {
		if err := applyCatalogRow(w, &rows[i]); err != nil {
			w.Rollback()
			return after, 0, err
		}
		numbers[i] = rows[i].Number
	}
	w.Touch("import", imp.ID)
	entry := AuditEntry{Operation: "applyImport", Summary: mustJSON(map[string]any{"import": imp.ID, "rows": numbers})}
	if err := Commit(w, entry); err != nil {
		return after, 0, err
	}
	return numbers[len(numbers)-1], len(rows), nil
}

// applyCatalogRow applies one planned row. What the preview could not
// know (the item changed or was archived since, the code was taken) makes
// the row invalid; anything else is an error that fails the batch.
func applyCatalogRow(w *work.Unit, row *ImportRow) error {
	cells, err := row.Cells()
	if err != nil {
		return err
	}
	var item *CatalogItem
	if row.Outcome == OutcomeCreate {
		in := &CatalogItemCreate{}
		input.FromCells(cells, in)
		// The unique index would only refuse a taken code at commit, failing
		// the whole batch; a code taken since the preview fails the row.
		if err := checkCodeFree(w, &in.Errors, in.InternalCode, uuid.Nil); err != nil {
			return err
		}
		item, err = CreateCatalogItem(w, in)
	} else {
		var plan struct {
			CatalogItem uuid.UUID `json:"catalogItem"`
			Revision    int       `json:"revision"`
		}
		if err := json.Unmarshal(row.Planned, &plan); err != nil {
			return err
		}
		in := &CatalogItemPatch{}
		input.FromCells(cells, in)
		item, err = UpdateCatalogItem(w, plan.CatalogItem, ExpectRevision(plan.Revision), in)
	}
	var invalid *input.Invalid
	switch {
	case err == nil:
		return setRow(w.Tx(), row, map[string]any{"applied": mustJSON(map[string]any{"catalogItem": item.ID, "revision": item.Revision})})
	case errors.As(err, &invalid):
		return failRow(w, row, invalid.Fields...)
	case errors.Is(err, ErrRevisionConflict):
		return failRow(w, row, input.FieldError{Field: "internalCode", Key: "field.changed_since_preview"})
	case errors.Is(err, ErrItemArchived):
		return failRow(w, row, input.FieldError{Field: "internalCode", Key: "field.item_archived_in_import"})
	}
	return err
}

func failRow(w *work.Unit, row *ImportRow, fields ...input.FieldError) error {
	return setRow(w.Tx(), row, map[string]any{"outcome": OutcomeInvalid, "errors": mustJSON(fields)})
}
