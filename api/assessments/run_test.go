package assessments_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// A bulk run survives its worker: stopped mid-run, the run goes on on the
// next worker from the last item done, and assesses every item once.
func TestABulkRunSurvivesAWorkerRestart(t *testing.T) {
	a := apitest.New(t, apitest.WithServices())
	tn := a.NewTenant(apitest.TenantSpec{})
	const items = 260 // two batches
	for i := range items {
		res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token,
			Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
			Body: map[string]any{"internalCode": "BULK-" + uuid.NewString()[:8], "name": "Karton " + string(rune('A'+i%26)),
				"sourcingType": "purchased", "massG": "120", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece",
				"reuseType": "single_use", "foodContactStatus": "not_food_contact"}})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	}
	ctx := context.Background()
	c, queue := testenv.Temporal(t), "ppwr-assessments-"+uuid.NewString()
	deps := worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue}
	first := worker.New(deps)
	require.NoError(t, first.Start())

	run, err := assessments.StartAssessmentRun(ctx, a.DB, tn.Org, "marking")
	require.NoError(t, err)
	assert.Equal(t, items, run.Total)
	_, err = (&worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}).StartWorkflows(ctx)
	require.NoError(t, err)

	progress := func() assessments.AssessmentRun {
		var r assessments.AssessmentRun
		require.NoError(t, a.DB.Take(&r, "id = ?", run.ID).Error)
		return r
	}
	assessed := func() int64 {
		var n int64
		require.NoError(t, a.DB.Model(&assessments.Assessment{}).Where("run_id = ?", run.ID).Count(&n).Error)
		return n
	}
	require.Eventually(t, func() bool { return assessed() >= 20 }, time.Minute, 5*time.Millisecond)
	first.Stop()
	require.Less(t, assessed(), int64(items), "the worker stopped mid-run")

	second := worker.New(deps)
	require.NoError(t, second.Start())
	t.Cleanup(second.Stop)
	// The progress read along the way, across the restart, never goes
	// back, and ends with every item done.
	var seen []int64
	require.Eventually(t, func() bool {
		r := progress()
		if r.Progress.Stage == assessments.StageAssessing {
			seen = append(seen, r.Progress.Done)
		}
		return r.Status == assessments.RunCompleted
	}, 3*time.Minute, 50*time.Millisecond)
	assert.True(t, slices.IsSorted(seen), "progress never decreases: %v", seen)
	final := progress()
	assert.Equal(t, items, final.Done)
	assert.Equal(t, assessments.StageAssessing, final.Progress.Stage)
	assert.Equal(t, int64(items), final.Progress.Done)
	assert.Equal(t, int64(items), *final.Progress.Total)

	var counts []int
	require.NoError(t, a.DB.Model(&assessments.Assessment{}).Where("organization_id = ?", tn.Org).Group("catalog_item_id").
		Pluck("count(*)", &counts).Error)
	require.Len(t, counts, items, "every item assessed")
	for _, n := range counts {
		require.Equal(t, 1, n, "no item assessed twice")
	}
	// The run's last activity marks it completed; the workflow itself
	// completes a moment later.
	assert.Eventually(t, func() bool {
		desc, err := c.DescribeWorkflowExecution(ctx, "assessment-run/"+run.ID.String(), "")
		return err == nil && desc.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, time.Minute, 50*time.Millisecond, "the run's workflow completes")
}

// A batch retried after its items committed but before the run moved past
// it (the worker died in between) assesses none of them again.
func TestARetriedBatchSkipsTheItemsItAssessed(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	const items = 3
	for range items {
		res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token,
			Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
			Body: map[string]any{"internalCode": "RETRY-" + uuid.NewString()[:8], "name": "Karton", "sourcingType": "purchased",
				"massG": "120", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece", "reuseType": "single_use",
				"foodContactStatus": "not_food_contact"}})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	}
	run, err := assessments.StartAssessmentRun(context.Background(), a.DB, tn.Org, "")
	require.NoError(t, err)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	act := &activities.Assessments{DB: a.DB}
	env.RegisterActivity(act)
	in := assessments.AssessmentRunInput{Org: domain.OrgOf(tn.Org), RunID: run.ID}
	batch := func() int {
		res, err := env.ExecuteActivity(act.AssessBatch, in)
		require.NoError(t, err)
		var n int
		require.NoError(t, res.Get(&n))
		return n
	}
	require.Equal(t, items, batch())
	require.NoError(t, a.DB.Exec(`UPDATE assessment_runs SET last_item = NULL WHERE id = ?`, run.ID).Error)
	assert.Equal(t, items, batch(), "the retry reads the same batch")

	var counts []int
	require.NoError(t, a.DB.Model(&assessments.Assessment{}).Where("run_id = ?", run.ID).Group("catalog_item_id").
		Pluck("count(*)", &counts).Error)
	assert.Equal(t, []int{1, 1, 1}, counts, "each item assessed once")
	assert.Zero(t, batch(), "nothing left after the batch")
}
