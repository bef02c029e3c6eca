package activities_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/input"
)

// Rows a rule refuses at the apply (an item changed since the preview, a
// code taken meanwhile) turn invalid, and the completed import counts them
// as a count of every row's outcome does.
func TestCompletedImportCountsTheRowsTheApplyFoundInvalid(t *testing.T) {
	db, _, first, unit := plannedCatalogImport(t, "done", 2, func([]map[string]string) {})
	_, _, err := imports.ApplyImportBatch(unit(), first, 0, 10)
	require.NoError(t, err)
	imp := planCatalogImport(t, unit, "done", 5, func(cells []map[string]string) {
		for _, c := range cells {
			c["name"] = "Renamed"
		}
		cells[4]["massG"] = "heavy"
	})
	w := unit()
	require.NoError(t, imports.ReadyImport(w, imp))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.ready"}))
	require.Equal(t, []int{2, 2, 0, 1}, []int{imp.CreateCount, imp.UpdateCount, imp.UnchangedCount, imp.InvalidCount},
		"rows 1 and 2 update the items, 3 and 4 create theirs, 5 is invalid")

	w = unit()
	var changed catalog.CatalogItem
	require.NoError(t, db.Where("organization_id = ? AND internal_code = 'done-1'", w.Organization()).Take(&changed).Error)
	patch := &catalog.CatalogItemPatch{}
	input.FromCells(map[string]string{"name": "Changed since"}, patch)
	_, err = catalog.UpdateCatalogItem(w, changed.ID, domain.ExpectRevision(changed.Revision), patch)
	require.NoError(t, err)
	taken := &catalog.CatalogItemCreate{}
	input.FromCells(map[string]string{"internalCode": "done-3", "name": "Taken meanwhile", "sourcingType": "purchased", "massG": "2",
		"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "foodContactStatus": "unknown", "reuseType": "single_use"}, taken)
	_, err = catalog.CreateCatalogItem(w, taken)
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.meanwhile"}))

	w = unit()
	imp, err = imports.RequestImportApply(w, imp.ID)
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.apply"}))
	_, n, err := imports.ApplyImportBatch(unit(), imp, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 4, n)
	w = unit()
	status, err := imports.CompleteImport(w, imp)
	require.NoError(t, err)
	require.NoError(t, w.Commit())
	assert.Equal(t, imports.ImportCompletedWithErrors, status)
	assert.Equal(t, []int{1, 1, 0, 3}, []int{imp.CreateCount, imp.UpdateCount, imp.UnchangedCount, imp.InvalidCount})

	var stored imports.Import
	require.NoError(t, db.Take(&stored, "id = ?", imp.ID).Error)
	w = unit()
	defer w.Rollback()
	counted := stored
	require.NoError(t, imports.CountImportRows(w, &counted))
	for _, c := range []*imports.Import{&stored, &counted} {
		assert.Equal(t, []int{1, 1, 0, 3}, []int{c.CreateCount, c.UpdateCount, c.UnchangedCount, c.InvalidCount})
	}
}
