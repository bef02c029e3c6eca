package models

import (
	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"ppwr/internal/input"
	"ppwr/internal/work"
)

// references collects the records that inputs name, so that they are
// checked with one query per table however many inputs there are (an
// import checks its rows in one go).
type references struct {
	byTable map[string][]reference
}

type reference struct {
	id    uuid.UUID
	field string
	errs  *input.Errors
}

// add notes a reference sent in field, unless it was null, absent or
// already invalid.
func (r *references) add(table, field string, v input.Opt[uuid.UUID], errs *input.Errors) {
	if !v.Set() || v.Value == uuid.Nil || errs.Has(field) {
		return
	}
	if r.byTable == nil {
		r.byTable = map[string][]reference{}
	}
	r.byTable[table] = append(r.byTable[table], reference{id: v.Value, field: field, errs: errs})
}

// check fails every reference that is not a record of the unit's
// organization. The records found are kept from deletion (KEY SHARE)
// until the unit commits, so the references being written stay valid.
func (r *references) check(w *work.Unit) error {
	for table, refs := range r.byTable {
		ids := make([]uuid.UUID, len(refs))
		for i, ref := range refs {
			ids[i] = ref.id
		}
		var found []uuid.UUID
		err := Tenant(w.Context(), w.Tx(), w.Organization()).Table(table).Clauses(clause.Locking{Strength: "KEY SHARE"}).
			Where("id IN ?", ids).Pluck("id", &found).Error
		if err != nil {
			return err
		}
		exists := make(map[uuid.UUID]bool, len(found))
		for _, id := range found {
			exists[id] = true
		}
		for _, ref := range refs {
			if !exists[ref.id] {
				ref.errs.Fail(ref.field, "field.not_found")
			}
		}
	}
	return nil
}
