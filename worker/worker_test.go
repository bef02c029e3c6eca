package worker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/worker"
	"ppwr/workflows"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// waitForRelease stands in for any long-running ppwr workflow: it stays open
// until signalled, so the test controls when the run closes.
func waitForRelease(ctx workflow.Context) (string, error) {
	var msg string
	workflow.GetSignalChannel(ctx, "release").Receive(ctx, &msg)
	return msg, nil
}

// startWorker runs a worker from worker.New on a task queue of its own, so
// tests cannot steal each other's tasks.
func startWorker(t *testing.T) (client.Client, string) {
	t.Helper()
	c := testenv.Temporal(t)
	queue := "ppwr-test-" + uuid.NewString()
	w := worker.New(worker.Deps{DB: testenv.DB(t), Temporal: c, TaskQueue: queue, WebhookAllowHTTPLoopback: true})
	w.RegisterWorkflow(waitForRelease)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return c, queue
}

func keyword(t *testing.T, sa *commonpb.SearchAttributes, name string) string {
	t.Helper()
	p, ok := sa.GetIndexedFields()[name]
	require.True(t, ok, "search attribute %s missing", name)
	var v string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &v))
	return v
}

func TestHousekeepingRunsOnWorkerWithSearchAttributes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, queue := startWorker(t)
	ref := temporalclient.Ref{
		WorkflowID:     "housekeeping-test/" + uuid.NewString(),
		OrganizationID: temporalclient.SystemOrganization,
		ResourceID:     "housekeeping-" + uuid.NewString(),
		TaskQueue:      queue,
	}

	// A drained rate-limit bucket the run must purge: the package's other
	// tests may leave state of their own, so the run is judged by this one.
	db := testenv.DB(t)
	bucket := "housekeeping-test-" + uuid.NewString()
	require.NoError(t, db.Exec(`INSERT INTO rate_limit_buckets (bucket, tat, granted) VALUES (?, now() - interval '5 seconds', 1)`, bucket).Error)

	run, err := temporalclient.Start(ctx, c, ref, workflows.Housekeeping)
	require.NoError(t, err)
	assert.Equal(t, ref.WorkflowID, run.GetID())
	var res activities.PurgeResult
	require.NoError(t, run.Get(ctx, &res), "the activity ran against the real database")
	assert.GreaterOrEqual(t, res.RateBuckets, int64(1))
	var left int64
	require.NoError(t, db.Raw(`SELECT count(*) FROM rate_limit_buckets WHERE bucket = ?`, bucket).Scan(&left).Error)
	assert.Zero(t, left, "the drained bucket is purged")

	desc, err := c.DescribeWorkflowExecution(ctx, ref.WorkflowID, run.GetRunID())
	require.NoError(t, err)
	info := desc.GetWorkflowExecutionInfo()
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, info.GetStatus())
	assert.Equal(t, "Housekeeping", info.GetType().GetName())
	assert.Equal(t, ref.OrganizationID, keyword(t, info.GetSearchAttributes(), "OrganizationId"))
	assert.Equal(t, ref.ResourceID, keyword(t, info.GetSearchAttributes(), "ResourceId"))
}

// A retried API request starts the same workflow again while the first run
// is open; both must end up on one run, never two.
func TestConcurrentStartsJoinTheOpenRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, queue := startWorker(t)
	orgID, recordID := uuid.NewString(), uuid.NewString()
	ref := temporalclient.Ref{
		WorkflowID:     "test-record/" + recordID,
		OrganizationID: orgID,
		ResourceID:     recordID,
		TaskQueue:      queue,
	}

	const starters = 2
	var (
		wg   sync.WaitGroup
		gate = make(chan struct{})
		runs = make([]client.WorkflowRun, starters)
		errs = make([]error, starters)
	)
	for i := range starters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			runs[i], errs[i] = temporalclient.Start(ctx, c, ref, waitForRelease)
		}()
	}
	close(gate)
	wg.Wait()
	for i := range starters {
		require.NoError(t, errs[i], "start %d", i)
	}
	assert.Equal(t, runs[0].GetRunID(), runs[1].GetRunID())

	// A later retry, still while the run is open, joins it as well.
	again, err := temporalclient.Start(ctx, c, ref, waitForRelease)
	require.NoError(t, err)
	assert.Equal(t, runs[0].GetRunID(), again.GetRunID())

	require.NoError(t, c.SignalWorkflow(ctx, ref.WorkflowID, "", "release", "done"))
	var msg string
	require.NoError(t, runs[1].Get(ctx, &msg))
	assert.Equal(t, "done", msg)

	// After the run has closed, a late retry gets that run back instead of
	// starting a second one.
	late, err := temporalclient.Start(ctx, c, ref, waitForRelease)
	require.NoError(t, err)
	assert.Equal(t, runs[0].GetRunID(), late.GetRunID())
	require.NoError(t, late.Get(ctx, &msg))
	assert.Equal(t, "done", msg)

	desc, err := c.DescribeWorkflowExecution(ctx, ref.WorkflowID, runs[0].GetRunID())
	require.NoError(t, err)
	assert.Equal(t, orgID, keyword(t, desc.GetWorkflowExecutionInfo().GetSearchAttributes(), "OrganizationId"))
	assert.Equal(t, recordID, keyword(t, desc.GetWorkflowExecutionInfo().GetSearchAttributes(), "ResourceId"))
}

func TestEnsureSchedulesIsIdempotent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := testenv.Temporal(t)
	// No worker polls this queue: should the hourly schedule fire during the
	// test, its run simply waits.
	queue := "ppwr-schedule-test-" + uuid.NewString()

	require.NoError(t, worker.EnsureSchedules(ctx, c, queue))
	t.Cleanup(func() {
		_ = c.ScheduleClient().GetHandle(context.Background(), workflows.HousekeepingScheduleID).Delete(context.Background())
	})
	// Every replica calls it at start; all but the first find the schedule
	// and bring it in line with their configuration.
	queue = "ppwr-schedule-test-moved-" + uuid.NewString()
	require.NoError(t, worker.EnsureSchedules(ctx, c, queue))

	desc, err := c.ScheduleClient().GetHandle(ctx, workflows.HousekeepingScheduleID).Describe(ctx)
	require.NoError(t, err)
	action, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
	require.True(t, ok, "action is %T", desc.Schedule.Action)
	assert.Equal(t, workflows.HousekeepingWorkflowID, action.ID)
	assert.Equal(t, "Housekeeping", action.Workflow)
	assert.Equal(t, queue, action.TaskQueue)
	org, ok := action.TypedSearchAttributes.GetKeyword(temporalclient.OrganizationID)
	assert.True(t, ok)
	assert.Equal(t, temporalclient.SystemOrganization, org)
	res, ok := action.TypedSearchAttributes.GetKeyword(temporalclient.ResourceID)
	assert.True(t, ok)
	assert.Equal(t, workflows.HousekeepingWorkflowID, res)
	require.Len(t, desc.Schedule.Spec.Intervals, 1)
	assert.Equal(t, time.Hour, desc.Schedule.Spec.Intervals[0].Every)
}
