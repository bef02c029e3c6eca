package apitest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"ppwr/internal/temporalclient"
	"ppwr/worker"
)

// StartEndFirst starts the recorded workflow starts with relay in the
// order a record's end can race its deadline's run: the start of target
// is held by another transaction, as by a relay on another worker that
// took its row and is slow to start it, while relay starts the rest,
// among them end, recorded later, whose run (a signal to target) closes
// first. Only then is target started. The signal has then found no run.
func StartEndFirst(t testing.TB, relay *worker.Relay, target, end string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	slowRelay := relay.DB.Begin()
	t.Cleanup(func() { slowRelay.Rollback() })
	var held []string
	require.NoError(t, slowRelay.Raw("SELECT workflow_id FROM workflow_starts WHERE workflow_id = ? AND started_at IS NULL FOR UPDATE",
		target).Scan(&held).Error)
	require.Equal(t, []string{target}, held, "the target's start is recorded and not started")
	_, err := relay.StartWorkflows(ctx)
	require.NoError(t, err)
	require.NoError(t, relay.Temporal.GetWorkflow(ctx, end, "").Get(ctx, nil), "the end ran first")
	_, err = relay.Temporal.DescribeWorkflow(ctx, target, "")
	var missing *serviceerror.NotFound
	require.True(t, errors.As(err, &missing), "the target has no run yet: %v", err)
	require.NoError(t, slowRelay.Rollback().Error)
	_, err = relay.StartWorkflows(ctx)
	require.NoError(t, err)
}

// RequireOutcome waits for the run of workflowID to close, and checks
// that it set the Outcome search attribute to outcome; result, unless
// nil, receives the run's result.
func RequireOutcome(t testing.TB, c client.Client, workflowID, outcome string, result any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, c.GetWorkflow(ctx, workflowID, "").Get(ctx, result), "the run of %s closes", workflowID)
	desc, err := c.DescribeWorkflow(ctx, workflowID, "")
	require.NoError(t, err)
	got, _ := desc.TypedSearchAttributes.GetKeyword(temporalclient.Outcome)
	require.Equal(t, outcome, got, "the outcome of %s", workflowID)
}
