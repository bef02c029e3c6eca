package imports

import (
	"errors"
	"slices"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/database"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// CatalogImportColumns are the columns a catalog import file may have: the
// API's field names of a catalogue item, bound by the same declarations.
var CatalogImportColumns = []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit",
	"stockTracked", "foodContactStatus", "reuseType", "innerLengthMm", "innerWidthMm", "innerHeightMm", "folder", "family"}

// catalogPlanner plans the rows of a catalog import, keyed by internalCode.
type catalogPlanner struct {
	seen   fileKeys
	mapper catalog.CodeMapper
}

// catalogCodes are the catalog columns whose values may be the
// organization's own codes, with their dictionaries.
var catalogCodes = map[string]string{"mainMaterialCode": "materials"}

// plannedRow is a row being planned: its bound input and the item it names.
type plannedRow struct {
	row    *ImportRow
	errs   *input.Errors
	create *catalog.CatalogItemCreate
	patch  *catalog.CatalogItemPatch
	item   *catalog.CatalogItem
}

// Plan plans each row as a create for a new internalCode, a field-level
// update of the item that has it, unchanged, or invalid with its field
// errors. References are checked with one query per table for the whole
// batch.
func (p *catalogPlanner) Plan(w *work.Unit, importID uuid.UUID, first int, cells []map[string]string) ([]ImportRow, error) {
	if p.seen == nil {
		p.seen = fileKeys{}
	}
	planned := make([]plannedRow, len(cells))
	resolved := make([]map[string]string, len(cells))
	codes := make([]string, 0, len(cells))
	for i, c := range cells {
		var err error
		if resolved[i], err = p.mapper.Resolve(w, c, catalogCodes); err != nil {
			return nil, err
		}
		// Bound as a create first, as most rows of a large file are: the
		// code binds alike either way, and only a row whose item exists
		// is bound again, as a patch.
		create := &catalog.CatalogItemCreate{}
		input.FromCells(resolved[i], create)
		planned[i] = plannedRow{row: newImportRow(w, importID, first+i, c), create: create, errs: &create.Errors}
		if create.InternalCode.Set() {
			codes = append(codes, create.InternalCode.Value)
		}
	}
	existing := map[string]*catalog.CatalogItem{}
	if len(codes) > 0 {
		items, err := itemsWithCodes(w, codes)
		if err != nil {
			return nil, err
		}
		for i := range items {
			existing[items[i].InternalCode] = &items[i]
		}
	}
	var refs domain.References
	for i := range planned {
		r := &planned[i]
		code := r.create.InternalCode.Value
		if r.item = existing[code]; r.item != nil {
			// An existing item: the patch's rules apply (nothing required).
			r.patch = &catalog.CatalogItemPatch{}
			input.FromCells(resolved[i], r.patch)
			r.errs, r.create = &r.patch.Errors, nil
		}
		p.seen.once(code, r.row.Number, "internalCode", r.errs)
		if r.item != nil && r.item.Status == catalog.ItemArchived {
			r.errs.Fail("internalCode", "field.item_archived_in_import")
		}
		r.fields().References(&refs, r.errs)
	}
	if err := refs.Check(w); err != nil {
		return nil, err
	}
	out := make([]ImportRow, len(planned))
	for i := range planned {
		planned[i].decide()
		out[i] = *planned[i].row
	}
	return out, nil
}

func (r *plannedRow) fields() *catalog.CatalogItemFields {
	if r.create != nil {
		return &r.create.CatalogItemFields
	}
	return &r.patch.CatalogItemFields
}

// decide sets the row's outcome and planned change. A create's change,
// most rows of a large file, is written straight from its fields.
func (r *plannedRow) decide() {
	if r.create != nil {
		if !r.row.invalid(r.errs) {
			sent := sentFields(r.fields())
			r.row.Outcome, r.row.Planned = OutcomeCreate, createJSON(sent[:])
		}
		return
	}
	sent := sentFields(r.fields())
	current := itemValues(r.item)
	diff := map[string]FieldChange{}
	for field, v := range sentValues(sent[:]) {
		if !sameText(current[field], v) {
			diff[field] = FieldChange{From: current[field], To: v}
		}
	}
	outcome := OutcomeUpdate
	if len(diff) == 0 {
		outcome = OutcomeUnchanged
	}
	r.row.decide(r.errs, outcome, RowChange{CatalogItem: r.item.ID, Revision: r.item.Revision, Changes: diff})
}

// sentField is a field as sent: its API name and, when sent, its value as
// comparable text, or null.
type sentField struct {
	name       string
	text       string
	sent, null bool
}

// sentFields are an item's fields as sent, in the order of their names,
// the order json.Marshal writes a map's keys in. They are an array rather
// than a map, which every row would allocate. A string, number or boolean
// sent as null is left out, as not sent; a folder or family sent as null
// is null.
func sentFields(in *catalog.CatalogItemFields) [14]sentField {
	return [...]sentField{uuidField("family", in.Family), uuidField("folder", in.Folder),
		textField("foodContactStatus", in.FoodContactStatus), decimalField("innerHeightMm", in.InnerHeightMm),
		decimalField("innerLengthMm", in.InnerLengthMm), decimalField("innerWidthMm", in.InnerWidthMm),
		textField("internalCode", in.InternalCode), textField("mainMaterialCode", in.MainMaterialCode),
		decimalField("massG", in.MassG), textField("name", in.Name), textField("reuseType", in.ReuseType),
		textField("sourcingType", in.SourcingType), boolField("stockTracked", in.StockTracked),
		textField("stockUnit", in.StockUnit)}
}

func textField(name string, v input.Opt[string]) sentField {
	return sentField{name: name, text: v.Value, sent: v.Set()}
}

func decimalField(name string, v input.Opt[decimal.Decimal]) sentField {
	if !v.Set() {
		return sentField{name: name}
	}
	return sentField{name: name, text: v.Value.String(), sent: true}
}

func boolField(name string, v input.Opt[bool]) sentField {
	return sentField{name: name, text: boolText(v.Value), sent: v.Set()}
}

func uuidField(name string, v input.Opt[uuid.UUID]) sentField {
	if !v.Set() {
		return sentField{name: name, sent: v.Null, null: v.Null}
	}
	return sentField{name: name, text: v.Value.String(), sent: true}
}

// sentValues are the fields sent by API name, as comparable text (nil for
// null), so an update's diff is a plain comparison.
func sentValues(fields []sentField) map[string]*string {
	out := make(map[string]*string, len(fields))
	for _, f := range fields {
		switch {
		case f.null:
			out[f.name] = nil
		case f.sent:
			out[f.name] = text(f.text)
		}
	}
	return out
}

// itemValues are an item's fields in the form of values.
func itemValues(it *catalog.CatalogItem) map[string]*string {
	ref := func(id *uuid.UUID) *string {
		if id == nil {
			return nil
		}
		return text(id.String())
	}
	return map[string]*string{
		"internalCode": text(it.InternalCode), "name": text(it.Name), "sourcingType": text(it.SourcingType), "massG": text(it.MassG.String()),
		"mainMaterialCode": text(it.MainMaterialCode), "stockUnit": text(it.StockUnit), "stockTracked": text(boolText(it.StockTracked)),
		"foodContactStatus": text(it.FoodContactStatus), "reuseType": text(it.ReuseType), "folder": ref(it.FolderID), "family": ref(it.FamilyID),
		"innerLengthMm": decimalText(it.InnerLengthMm), "innerWidthMm": decimalText(it.InnerWidthMm), "innerHeightMm": decimalText(it.InnerHeightMm),
	}
}

// decimalText is an optional decimal in the form of values.
func decimalText(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	return text(d.String())
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// itemsWithCodes reads the organization's items that have one of a batch's
// codes, with one probe of the unique index per code: an import runs this
// batch after batch while the catalogue grows, and any plan that scans the
// organization's items would make each batch slower than the one before.
// Two things kept PostgreSQL from that plan. OFFSET 0 keeps it from
// flattening the lateral subquery into a join, which it hashed against all
// the organization's items. And the statement is prepared once per
// connection: the generic plan PostgreSQL settled on while the catalogue
// was small probed the organization's index and filtered every item by
// code (a 100,000-row import took minutes), so this statement alone is
// planned for its parameters on each call (planning the batch's large
// inserts each time would cost more than it saves).
func itemsWithCodes(w *work.Unit, codes []string) ([]catalog.CatalogItem, error) {
	if err := database.PlanForValues(w.Tx()); err != nil {
		return nil, err
	}
	var items []catalog.CatalogItem
	err := w.Tx().Raw(`SELECT c.* FROM unnest(?::text[]) AS k (code)
		CROSS JOIN LATERAL (SELECT * FROM catalog_items WHERE organization_id = ? AND internal_code = k.code OFFSET 0) AS c`,
		batchKeys(codes), w.Organization()).Scan(&items).Error
	if err != nil {
		return nil, err
	}
	return items, w.Tx().Exec("SET LOCAL plan_cache_mode TO DEFAULT").Error
}

// applyCatalogRows applies a batch of planned rows. The unique index would
// only refuse a code taken since the preview at commit, failing the whole
// batch, so the creates' codes are checked first, in one query: a taken
// one fails its row.
func applyCatalogRows(w *work.Unit, rows []ImportRow) ([]rowApplied, error) {
	planned := make(map[uuid.UUID]map[string]string, len(rows))
	var codes []string
	for i := range rows {
		cells, err := plannedCells(&rows[i])
		if err != nil {
			return nil, err
		}
		planned[rows[i].ID] = cells
		if rows[i].Outcome == OutcomeCreate {
			codes = append(codes, cells["internalCode"])
		}
	}
	var taken []string
	if len(codes) > 0 {
		items, err := itemsWithCodes(w, codes)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			taken = append(taken, it.InternalCode)
		}
	}
	return rowByRow(func(w *work.Unit, row *ImportRow) (RowChange, error) {
		return applyCatalogRow(w, row, planned[row.ID], taken)
	})(w, rows)
}

// applyCatalogRow applies one planned row, given its planned cells: a
// create, or an update at the revision the preview saw. What the preview
// could not know (the item changed or was archived since, the code was
// taken) makes the row invalid; anything else is an error that fails the
// batch.
func applyCatalogRow(w *work.Unit, row *ImportRow, cells map[string]string, taken []string) (RowChange, error) {
	var (
		item *catalog.CatalogItem
		err  error
	)
	if row.Outcome == OutcomeCreate {
		if slices.Contains(taken, cells["internalCode"]) {
			return RowChange{}, input.Invalidf("internalCode", "field.taken")
		}
		in := &catalog.CatalogItemCreate{}
		input.FromCells(cells, in)
		item, err = catalog.CreateCatalogItem(w, in)
	} else {
		var plan RowChange
		if plan, err = row.PlannedChange(); err != nil {
			return RowChange{}, err
		}
		in := &catalog.CatalogItemPatch{}
		input.FromCells(cells, in)
		item, err = catalog.UpdateCatalogItem(w, plan.CatalogItem, domain.ExpectRevision(plan.Revision), in)
	}
	switch {
	case errors.Is(err, domain.ErrRevisionConflict):
		return RowChange{}, input.Invalidf("internalCode", "field.changed_since_preview")
	case errors.Is(err, domain.ErrItemArchived):
		return RowChange{}, input.Invalidf("internalCode", "field.item_archived_in_import")
	case err != nil:
		return RowChange{}, err
	}
	return RowChange{CatalogItem: item.ID, Revision: item.Revision}, nil
}
