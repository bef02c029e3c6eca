package domain

import (
	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"ppwr/internal/input"
	"ppwr/internal/work"
)

// References collects the records that inputs name, so that they are
// checked with one query per table however many inputs there are (an
// import checks its rows in one go).
type References struct {
	ByTable map[string][]reference
}

type reference struct {
	id    uuid.UUID
	field string
	errs  *input.Errors
}

// Add notes a reference sent in field, unless it was null, absent or
// already invalid.
func (r *References) Add(table, field string, v input.Opt[uuid.UUID], errs *input.Errors) {
	if !v.Set() || v.Value == uuid.Nil || errs.Has(field) {
		return
	}
	if r.ByTable == nil {
		r.ByTable = map[string][]reference{}
	}
	r.ByTable[table] = append(r.ByTable[table], reference{id: v.Value, field: field, errs: errs})
}

// Check fails every reference that is not a record of the unit's
// organization. The records found are kept from deletion (KEY SHARE)
// until the unit commits, so the references being written stay valid.
func (r *References) Check(w *work.Unit) error {
	for table, refs := range r.ByTable {
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
