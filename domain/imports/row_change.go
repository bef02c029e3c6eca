package imports

import "github.com/google/uuid"

// RowChange is a row's planned change, or the change applying it made, as
// stored in the row's planned and applied columns: the record it names
// (a catalogue item at a revision, a party, a code mapping, a document),
// the fields of a create or the ones an update sends, and an update's
// changes. Rows stored before it was a type hold the same JSON: its
// fields are declared in the order of their names, the order a map's
// keys were written in, and the ones a change lacks are left out (a
// record id is never nil, a revision never 0), while an empty map of
// fields or changes is written.
type RowChange struct {
	CatalogItem uuid.UUID              `json:"catalogItem,omitzero"`
	Changes     map[string]FieldChange `json:"changes,omitzero"`
	CodeMapping uuid.UUID              `json:"codeMapping,omitzero"`
	Document    uuid.UUID              `json:"document,omitzero"`
	// Fields are values by field name, as text (nil for null).
	Fields      map[string]*string `json:"fields,omitzero"`
	Party       uuid.UUID          `json:"party,omitzero"`
	PlannedOnly bool               `json:"plannedOnly,omitzero"`
	Revision    int                `json:"revision,omitzero"`
}

// FieldChange is an update's change of a field, as text (nil for null).
type FieldChange struct {
	From *string `json:"from"`
	To   *string `json:"to"`
}

// Record is the record the change names, or uuid.Nil.
func (c RowChange) Record() uuid.UUID {
	for _, id := range []uuid.UUID{c.CatalogItem, c.Party, c.CodeMapping, c.Document} {
		if id != uuid.Nil {
			return id
		}
	}
	return uuid.Nil
}

// text is s as a field's value.
func text(s string) *string { return &s }

// sameText reports whether two values of a field are the same.
func sameText(a, b *string) bool { return a == b || a != nil && b != nil && *a == *b }
