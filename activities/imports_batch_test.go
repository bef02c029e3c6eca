package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/imports"
)

// An import whose every row is a planned change is cut into batches by
// row number; one with rows left as they are (here an invalid one) by
// its pending rows, as ImportBatchEnd counts them. Either way each row is
// applied once, a batch of rows an earlier attempt applied being empty.
func TestNextImportBatchCutsByNumberWhenEveryRowIsAChange(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]struct {
		edit func([]map[string]string)
		ends []int
	}{
		"every row a change": {func([]map[string]string) {}, []int{2, 4, 5, 0}},
		"an invalid row":     {func(cells []map[string]string) { cells[1]["massG"] = "heavy" }, []int{5, 0}},
	} {
		db, _, imp, unit := plannedCatalogImport(t, "next", 5, c.edit)
		w := unit()
		require.NoError(t, imports.ReadyImport(w, imp), name)
		require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.ready"}), name)
		// An earlier attempt applied rows 3 and 4.
		_, n, err := imports.ApplyImportRange(unit(), imp, 2, 4, 2)
		require.NoError(t, err, name)
		require.Equal(t, 2, n, name)

		var ends []int
		applied := 0
		for after := 0; ; {
			end, err := imports.NextImportBatch(ctx, db, imp, after, 2)
			require.NoError(t, err, name)
			ends = append(ends, end)
			if end == 0 {
				break
			}
			_, n, err := imports.ApplyImportRange(unit(), imp, after, end, 2)
			require.NoError(t, err, name)
			applied, after = applied+n, end
		}
		assert.Equal(t, c.ends, ends, name)
		assert.Equal(t, imp.CreateCount-2, applied, name)
	}
}
