package temporalclient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
)

// runsWorkflow ends as its argument says: "complete", "fail" (an activity
// fails for good, as an import whose file cannot be read) or "stuck" (an
// activity fails and is retried for ever, as one whose supplier's server
// does not answer).
func runsWorkflow(ctx workflow.Context, outcome string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 50 * time.Millisecond, BackoffCoefficient: 1},
	})
	return workflow.ExecuteActivity(ctx, "RunsTestStep", outcome).Get(ctx, nil)
}

func runsStep(_ context.Context, outcome string) error {
	switch outcome {
	case "fail":
		return temporal.NewNonRetryableApplicationError("the catalogue has no EAN column", "BadFile", nil)
	case "stuck":
		return errors.New("the supplier's server does not answer")
	}
	return nil
}

func startRunsWorker(t *testing.T, c client.Client) string {
	t.Helper()
	queue := "runs-test-" + uuid.NewString()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(runsWorkflow, workflow.RegisterOptions{Name: "RunsTest"})
	w.RegisterActivityWithOptions(runsStep, activity.RegisterOptions{Name: "RunsTestStep"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return queue
}

func TestRunsListsEveryRunOfAWorkflowWithWhyItStopped(t *testing.T) {
	c := testenv.Temporal(t)
	queue := startRunsWorker(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A quote in the id: the visibility query must escape it.
	id := "import/" + uuid.NewString() + "/o'brien"
	start := func(outcome string) client.WorkflowRun {
		t.Helper()
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, "RunsTest", outcome)
		require.NoError(t, err)
		return run
	}

	// Running, and retrying an activity: the retry's failure says why it
	// makes no progress.
	stuck := start("stuck")
	var runs []temporalclient.Run
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var err error
		runs, err = temporalclient.Runs(ctx, c, id)
		require.NoError(ct, err)
		require.Len(ct, runs, 1)
		require.NotEmpty(ct, runs[0].Failure)
	}, 30*time.Second, 100*time.Millisecond)
	assert.Equal(t, temporalclient.Run{
		WorkflowID: id, RunID: stuck.GetRunID(), Type: "RunsTest", Status: temporalclient.RunRunning,
		Started: runs[0].Started, Failure: "the supplier's server does not answer",
	}, runs[0])
	assert.False(t, runs[0].Started.IsZero())

	// Terminated by an operator, then run again twice.
	require.NoError(t, c.TerminateWorkflow(ctx, id, stuck.GetRunID(), "stuck on the supplier's server"))
	failed := start("fail")
	require.Error(t, failed.Get(ctx, nil))
	completed := start("complete")
	require.NoError(t, completed.Get(ctx, nil))

	// Visibility records a run a moment after it starts.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var err error
		runs, err = temporalclient.Runs(ctx, c, id)
		require.NoError(ct, err)
		require.Len(ct, runs, 3)
	}, 30*time.Second, 100*time.Millisecond)
	type summary struct {
		RunID   string
		Status  temporalclient.RunStatus
		Failure string
	}
	var got []summary
	for i, r := range runs {
		got = append(got, summary{r.RunID, r.Status, r.Failure})
		assert.Equal(t, id, r.WorkflowID)
		assert.Equal(t, "RunsTest", r.Type)
		assert.False(t, r.Closed.Before(r.Started), "run %s closed before it started", r.RunID)
		if i > 0 {
			assert.True(t, runs[i-1].Started.After(r.Started), "not newest first: %v", runs)
		}
	}
	assert.Equal(t, []summary{
		{completed.GetRunID(), temporalclient.RunCompleted, ""},
		// The activity's own message behind the wrapper Temporal adds.
		{failed.GetRunID(), temporalclient.RunFailed, "activity error: the catalogue has no EAN column"},
		{stuck.GetRunID(), temporalclient.RunTerminated, "stuck on the supplier's server"},
	}, got)
}

func TestRunsOfAWorkflowThatNeverRanAreNone(t *testing.T) {
	c := testenv.Temporal(t)
	runs, err := temporalclient.Runs(context.Background(), c, "import/"+uuid.NewString()+"/apply")
	require.NoError(t, err)
	assert.Empty(t, runs)
}

func TestUILink(t *testing.T) {
	// The workflow id is one segment of the UI's route: its slashes are
	// escaped, as the UI's own links escape them.
	assert.Equal(t,
		"http://127.0.0.1:8233/namespaces/default/workflows/import%2F0b8e%2Fapply/4f1c-run/history",
		temporalclient.UILink("http://127.0.0.1:8233/", "default", "import/0b8e/apply", "4f1c-run"))
	assert.Equal(t,
		"https://ppwr.tmprl.cloud/ui/namespaces/ppwr.a1b2c/workflows/report%2Fx%20y/r/history",
		temporalclient.UILink("https://ppwr.tmprl.cloud/ui", "ppwr.a1b2c", "report/x y", "r"))
}
