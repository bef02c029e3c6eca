package imports

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/datatypes"
)

// A typed change is written as the maps it replaced were, byte for byte,
// so rows stored before and after read back alike.
func TestRowChangeIsWrittenAsTheMapsItReplaced(t *testing.T) {
	id, other := uuid.New(), uuid.New()
	for name, c := range map[string]struct {
		typed RowChange
		was   map[string]any
	}{
		"create": {RowChange{Fields: map[string]*string{"name": text("Box"), "folder": nil}},
			map[string]any{"fields": map[string]any{"name": "Box", "folder": nil}}},
		"catalog update": {RowChange{CatalogItem: id, Revision: 3, Changes: map[string]FieldChange{"name": {From: text("A"), To: text("B")}, "family": {From: nil, To: text(other.String())}}},
			map[string]any{"catalogItem": id, "revision": 3, "changes": map[string]any{"name": map[string]any{"from": "A", "to": "B"}, "family": map[string]any{"from": nil, "to": other.String()}}}},
		"catalog unchanged": {RowChange{CatalogItem: id, Revision: 1, Changes: map[string]FieldChange{}},
			map[string]any{"catalogItem": id, "revision": 1, "changes": map[string]any{}}},
		"party": {RowChange{Party: id}, map[string]any{"party": id}},
		"code mapping update": {RowChange{CodeMapping: id, Fields: map[string]*string{"code": text("PLASTIC_PET")}, Changes: map[string]FieldChange{"code": {From: text("PAPER"), To: text("PLASTIC_PET")}}},
			map[string]any{"codeMapping": id, "fields": map[string]any{"code": "PLASTIC_PET"}, "changes": map[string]any{"code": map[string]any{"from": "PAPER", "to": "PLASTIC_PET"}}}},
		"document": {RowChange{Document: id, Fields: map[string]*string{}, PlannedOnly: true},
			map[string]any{"document": id, "fields": map[string]any{}, "plannedOnly": true}},
	} {
		typed, err := json.Marshal(c.typed)
		require.NoError(t, err)
		was, err := json.Marshal(c.was)
		require.NoError(t, err)
		assert.Equal(t, string(was), string(typed), name)
		var back RowChange
		require.NoError(t, json.Unmarshal(was, &back), name)
		assert.Equal(t, c.typed, back, name)
	}
}

// A stored value that does not decode is an error naming the row and the
// column, never an empty value.
func TestCorruptStoredValuesAreErrors(t *testing.T) {
	id := uuid.New()
	corrupt := datatypes.JSON(`{"name": 1}`)
	row := func(set func(*ImportRow)) *ImportRow {
		r := &ImportRow{ID: id, Outcome: OutcomeCreate, Input: datatypes.JSON(`{}`), Errors: datatypes.JSON(`[]`), Planned: datatypes.JSON(`{}`)}
		set(r)
		return r
	}
	checks := map[string]func() error{
		"mapping": func() error { _, err := (&Import{ID: id, Mapping: corrupt}).ColumnMapping(); return err },
		"error_args": func() error {
			_, _, err := (&Import{ID: id, ErrorKey: "error.import_file_empty", ErrorArgs: corrupt}).ErrorReason()
			return err
		},
		"input": func() error {
			_, err := row(func(r *ImportRow) { r.Input = datatypes.JSON(`[1]`) }).Cells()
			return err
		},
		"errors": func() error { _, err := row(func(r *ImportRow) { r.Errors = corrupt }).FieldErrors(); return err },
		"planned": func() error {
			_, err := row(func(r *ImportRow) { r.Planned = datatypes.JSON(`{"fields": [1]}`) }).PlannedChange()
			return err
		},
		"applied": func() error {
			_, err := row(func(r *ImportRow) { r.Applied = datatypes.JSON(`{"party": 5}`) }).AppliedChange()
			return err
		},
	}
	_, err := row(func(r *ImportRow) { r.Planned = nil }).PlannedChange()
	assert.ErrorContains(t, err, "no stored planned change", "a row to create has a plan")
	for column, check := range checks {
		err := check()
		require.Error(t, err, column)
		assert.Contains(t, err.Error(), id.String(), column)
		assert.Contains(t, err.Error(), "stored "+column, column)
	}
}

// What is absent is not corrupt: an invalid row's plan, a change not
// applied yet, the reason of an import that did not fail.
func TestAbsentStoredValuesDecodeAsNone(t *testing.T) {
	r := &ImportRow{Outcome: OutcomeInvalid, Input: datatypes.JSON(`{"name": "Box"}`), Errors: datatypes.JSON(`[]`)}
	plan, err := r.PlannedChange()
	require.NoError(t, err)
	assert.Equal(t, uuid.Nil, plan.Record())
	done, err := r.AppliedChange()
	require.NoError(t, err)
	assert.Zero(t, done)
	key, args, err := (&Import{ErrorArgs: datatypes.JSON(`{"not": "read"}`)}).ErrorReason()
	require.NoError(t, err, "the arguments of an import that did not fail are not read")
	assert.Empty(t, key)
	assert.Nil(t, args)
	cells, err := r.Cells()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"name": "Box"}, cells)
}
