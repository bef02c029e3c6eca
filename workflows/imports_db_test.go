package workflows

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// importWithRows records a catalog import of n planned creates in status.
func importWithRows(t *testing.T, status string, n int) (*imports.Import, *activities.Imports) {
	t.Helper()
	ctx, db := context.Background(), testenv.DB(t)
	org, err := accounts.CreateOrganization(ctx, db, "Workflow Test", "wf-"+uuid.NewString()[:8])
	require.NoError(t, err)
	w := work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org.ID, Reference: "test"})
	imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog, FileName: "t.csv", Size: 1})
	require.NoError(t, err)
	var cells []map[string]string
	for i := 1; i <= n; i++ {
		cells = append(cells, map[string]string{
			"internalCode": fmt.Sprintf("WF-%d", i), "name": "Row", "sourcingType": "purchased", "massG": "2",
			"mainMaterialCode": "GLASS", "stockUnit": "piece", "foodContactStatus": "unknown", "reuseType": "single_use",
		})
	}
	rows, err := imports.NewRowPlanner(imp).Plan(w, imp.ID, 1, cells)
	require.NoError(t, err)
	require.NoError(t, w.Commit())
	require.NoError(t, db.Create(&rows).Error)
	imp.Status = status
	require.NoError(t, db.Model(imp).Update("status", status).Error)
	return imp, &activities.Imports{DB: db}
}

// runApply runs an apply workflow for imp with the real activities and
// returns its result.
func runApply(t *testing.T, a *activities.Imports, imp *imports.Import) string {
	t.Helper()
	env := newTestEnv()
	env.RegisterActivity(a)
	env.ExecuteWorkflow(ImportApply, imports.ImportInput{Org: domain.OrgOf(imp.OrganizationID), ImportID: imp.ID})
	require.NoError(t, env.GetWorkflowError())
	var got string
	require.NoError(t, env.GetWorkflowResult(&got))
	return got
}

func itemCount(t *testing.T, a *activities.Imports, imp *imports.Import) int64 {
	var n int64
	require.NoError(t, a.DB.Model(&catalog.CatalogItem{}).Where("organization_id = ?", imp.OrganizationID).Count(&n).Error)
	return n
}

// An apply run for an import that is not applying (a run started before
// the preview was ready, or a second one) changes nothing and ends with
// the import's status.
func TestImportApplyOfAnImportNotApplyingChangesNothing(t *testing.T) {
	imp, a := importWithRows(t, imports.ImportReadyStatus, 2)
	assert.Equal(t, imports.ImportReadyStatus, runApply(t, a, imp))
	assert.Zero(t, itemCount(t, a, imp))
}

// A re-driven apply (a new run after one that failed half way) applies
// only the rows the failed run did not commit.
func TestImportApplyRedrivenAfterAFailedRunAppliesTheRest(t *testing.T) {
	imp, a := importWithRows(t, imports.ImportApplying, 3)
	ctx := context.Background()
	// The failed run committed one batch of two rows.
	_, n, err := imports.ApplyImportBatch(work.New(ctx, a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: imp.OrganizationID, Reference: "failed run", Quiet: true}), imp, 0, 2)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	assert.Equal(t, imports.ImportCompletedStatus, runApply(t, a, imp))
	assert.Equal(t, int64(3), itemCount(t, a, imp), "each row applied once")
	var batches int64
	require.NoError(t, a.DB.Model(&domain.AuditEntry{}).Where("organization_id = ? AND operation = ?", imp.OrganizationID, "applyImport").Count(&batches).Error)
	assert.Equal(t, int64(2), batches, "the failed run's batch and the re-drive's")
}
