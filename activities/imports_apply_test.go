package activities_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// plannedCatalogImport stores a catalog import of n planned rows (codes
// prefix-1…), after edit changed their cells, and answers the database,
// the organization, the import and a unit-of-work maker acting for the
// system applying it.
func plannedCatalogImport(t *testing.T, prefix string, n int, edit func([]map[string]string)) (*gorm.DB, uuid.UUID, *imports.Import, func() *work.Unit) {
	t.Helper()
	ctx := context.Background()
	db := testenv.DB(t)
	org, err := accounts.CreateOrganization(ctx, db, "Apply Test", prefix+uuid.NewString()[:8])
	require.NoError(t, err)
	actor := work.Actor{Kind: work.ActorSystem, OrganizationID: org.ID, Reference: "import/test/" + prefix, Quiet: true}
	unit := func() *work.Unit { return work.New(ctx, db, actor) }
	return db, org.ID, planCatalogImport(t, unit, prefix, n, edit), unit
}

// planCatalogImport stores, with units of work from unit, a catalog
// import of n planned rows (codes prefix-1…) after edit changed their
// cells.
func planCatalogImport(t *testing.T, unit func() *work.Unit, prefix string, n int, edit func([]map[string]string)) *imports.Import {
	t.Helper()
	w := unit()
	imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog, FileName: "t.csv", Size: 1})
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.upload"}))
	var cells []map[string]string
	for i := 1; i <= n; i++ {
		cells = append(cells, map[string]string{
			"internalCode": fmt.Sprintf("%s-%d", prefix, i), "name": "Row", "sourcingType": "purchased", "massG": "1.5",
			"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "foodContactStatus": "unknown", "reuseType": "single_use",
		})
	}
	edit(cells)
	w = unit()
	rows, err := imports.NewRowPlanner(imp).Plan(w, imp.ID, 1, cells)
	require.NoError(t, err)
	require.NoError(t, w.Tx().Create(&rows).Error)
	require.NoError(t, w.Commit())
	return imp
}

// An apply attempt that committed a batch and died before heartbeating it
// is retried from the start: the committed rows are skipped, because each
// row's mark commits with its change.
func TestApplyBatchNeverAppliesARowTwice(t *testing.T) {
	db, org, imp, unit := plannedCatalogImport(t, "apply", 3, func([]map[string]string) {})

	_, n, err := imports.ApplyImportBatch(unit(), imp, 0, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the first attempt commits a batch, then dies")
	last, n, err := imports.ApplyImportBatch(unit(), imp, 0, 200)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the retry, without progress, applies only the row left")
	assert.Equal(t, 3, last)
	_, n, err = imports.ApplyImportBatch(unit(), imp, 0, 200)
	require.NoError(t, err)
	assert.Zero(t, n)

	var items int64
	require.NoError(t, db.Model(&catalog.CatalogItem{}).Where("organization_id = ?", org).Count(&items).Error)
	assert.Equal(t, int64(3), items)
	var audits int64
	require.NoError(t, db.Model(&domain.AuditEntry{}).Where("organization_id = ? AND operation = ?", org, "applyImport").Count(&audits).Error)
	assert.Equal(t, int64(2), audits, "one audit entry per batch")
	var events int64
	require.NoError(t, db.Model(&domain.Event{}).Where("organization_id = ? AND type LIKE ?", org, "catalog_item.%").Count(&events).Error)
	assert.Zero(t, events, "the import's rows record what changed, not one event per row")
}

// Batches applied at the same time are cut by row number: a batch applies
// only its own pending rows, and the next batch's end counts only rows
// not applied yet.
func TestApplyRangeKeepsToItsRows(t *testing.T) {
	ctx := context.Background()
	db, org, imp, unit := plannedCatalogImport(t, "range", 5, func(cells []map[string]string) {
		cells[1]["massG"] = "heavy" // row 2 is invalid, so never pending
	})
	require.True(t, imports.ImportRowsIndependent(imp))

	end, err := imports.ImportBatchEnd(ctx, db, imp.ID, 0, 2)
	require.NoError(t, err)
	assert.Equal(t, 3, end, "rows 1 and 3 are the first two pending")
	last, n, err := imports.ApplyImportRange(unit(), imp, 3, 5, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{5, 2}, []int{last, n}, "the later batch commits first")
	last, n, err = imports.ApplyImportRange(unit(), imp, 0, 3, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 2}, []int{last, n})
	end, err = imports.ImportBatchEnd(ctx, db, imp.ID, 3, 2)
	require.NoError(t, err)
	assert.Zero(t, end, "nothing is pending after row 3")

	var items int64
	require.NoError(t, db.Model(&catalog.CatalogItem{}).Where("organization_id = ?", org).Count(&items).Error)
	assert.Equal(t, int64(4), items)
}

// A planned change that does not decode fails its batch, which Temporal
// retries and then reports, rather than applying the row as if it planned
// nothing.
func TestApplyFailsTheBatchOfACorruptPlannedRow(t *testing.T) {
	db, org, imp, unit := plannedCatalogImport(t, "corrupt", 2, func([]map[string]string) {})
	require.NoError(t, db.Exec(`UPDATE import_rows SET planned = '{"fields": ["name"]}' WHERE import_id = ? AND number = 2`, imp.ID).Error)

	_, n, err := imports.ApplyImportBatch(unit(), imp, 0, 10)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stored planned")
	assert.Zero(t, n)
	var items int64
	require.NoError(t, db.Model(&catalog.CatalogItem{}).Where("organization_id = ?", org).Count(&items).Error)
	assert.Zero(t, items, "the batch's other row is not applied either")
}

// An attempt Temporal gave up on may still be running when its retry
// applies the same batch. Both read the batch's rows before either
// commits; whichever comes second rolls back, so each row is applied once
// and keeps the mark of the attempt that applied it, not a refusal caused
// by the other's change.
func TestApplyAttemptsRacingOnOneBatchApplyItOnce(t *testing.T) {
	db, org, created, unit := plannedCatalogImport(t, "race", 2, func([]map[string]string) {})
	_, _, err := imports.ApplyImportBatch(unit(), created, 0, 10)
	require.NoError(t, err)
	imp := planCatalogImport(t, unit, "race", 2, func(cells []map[string]string) {
		for _, c := range cells {
			c["name"] = "Renamed"
		}
	})

	// Both attempts wait for the first item once they have read the rows.
	hold := db.Begin()
	defer hold.Rollback()
	require.NoError(t, hold.Exec("SELECT 1 FROM catalog_items WHERE organization_id = ? AND internal_code = 'race-1' FOR UPDATE", org).Error)
	first, second := raceTwoAttempts(t, db, hold, func() (int, error) {
		_, n, err := imports.ApplyImportBatch(unit(), imp, 0, 10)
		return n, err
	})
	require.NoError(t, first.err)
	assert.Equal(t, 2, first.n)
	assert.Error(t, second.err, "the second attempt rolls back")

	var rows []imports.ImportRow
	require.NoError(t, db.Where("import_id = ?", imp.ID).Order("number").Find(&rows).Error)
	for _, r := range rows {
		assert.Equal(t, imports.OutcomeUpdate, r.Outcome, "row %d", r.Number)
		assert.NotNil(t, r.Applied, "row %d", r.Number)
	}
	var items []catalog.CatalogItem
	require.NoError(t, db.Where("organization_id = ?", org).Find(&items).Error)
	for _, it := range items {
		assert.Equal(t, []any{"Renamed", 2}, []any{it.Name, it.Revision}, "item %s is changed once", it.InternalCode)
	}
}

// Two attempts racing on a batch of new items, large enough to be written
// by COPY: whichever marks the rows first writes the items, the other
// waits on those marks and rolls back, so each item is created once.
func TestApplyAttemptsRacingOnABatchOfCreatesCreateEachItemOnce(t *testing.T) {
	const rows = 150
	db, org, imp, unit := plannedCatalogImport(t, "copyrace", rows, func([]map[string]string) {})

	// The first attempt to mark the rows waits, before it writes its
	// items, for the items' table, which the test holds against writes;
	// the other waits for its marks.
	hold := db.Begin()
	defer hold.Rollback()
	require.NoError(t, hold.Exec("LOCK TABLE catalog_items IN SHARE MODE").Error)
	first, second := raceTwoAttempts(t, db, hold, func() (int, error) {
		_, n, err := imports.ApplyImportBatch(unit(), imp, 0, rows)
		return n, err
	})
	require.NoError(t, first.err)
	assert.Equal(t, rows, first.n)
	assert.Error(t, second.err, "the second attempt rolls back")

	var items, codes int64
	require.NoError(t, db.Raw("SELECT count(*), count(DISTINCT internal_code) FROM catalog_items WHERE organization_id = ?", org).
		Row().Scan(&items, &codes))
	assert.Equal(t, []int64{rows, rows}, []int64{items, codes})
	var versions, applied, audits int64
	require.NoError(t, db.Model(&catalog.DataVersion{}).Where("organization_id = ?", org).Count(&versions).Error)
	assert.Equal(t, int64(rows), versions, "one data version per item")
	require.NoError(t, db.Model(&imports.ImportRow{}).Where("import_id = ? AND applied IS NOT NULL", imp.ID).Count(&applied).Error)
	assert.Equal(t, int64(rows), applied)
	require.NoError(t, db.Model(&domain.AuditEntry{}).Where("organization_id = ? AND operation = ?", org, "applyImport").Count(&audits).Error)
	assert.Equal(t, int64(1), audits, "one batch committed")
}

// attempt is what an apply attempt of a race answered.
type attempt struct {
	n   int
	err error
}

// raceTwoAttempts runs apply twice at the same time, waits until both
// wait on a lock (the one hold took, or each other's), then rolls hold
// back; it answers the attempt that succeeded (if either did) first.
func raceTwoAttempts(t *testing.T, db, hold *gorm.DB, apply func() (int, error)) (first, second attempt) {
	t.Helper()
	attempts := make(chan attempt, 2)
	for range 2 {
		go func() {
			n, err := apply()
			attempts <- attempt{n, err}
		}()
	}
	require.Eventually(t, func() bool {
		var waiting int64
		db.Raw("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(&waiting)
		return waiting == 2
	}, 10*time.Second, 10*time.Millisecond)
	hold.Rollback()
	first, second = <-attempts, <-attempts
	if first.err != nil {
		first, second = second, first
	}
	return first, second
}
