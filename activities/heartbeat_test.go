package activities

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// blockedCall stands for a call that waits on a frozen service for
// several heartbeat timeouts.
const blockedCall = 4 * heartbeatTimeout

// heartbeatTimeout leaves a beat a third of it, and two beats of slack: at
// 150 ms a loaded CI machine (load 20 on 2 cores) delayed a beat past it.
const heartbeatTimeout = 500 * time.Millisecond

// runOnce runs wait as a one-attempt activity with a short heartbeat
// timeout and answers its error.
func runOnce(t *testing.T, wait func(context.Context) error) error {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(wait, activity.RegisterOptions{Name: "Wait"})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: heartbeatTimeout,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		return workflow.ExecuteActivity(ctx, "Wait").Get(ctx, nil)
	})
	require.True(t, env.IsWorkflowCompleted())
	return env.GetWorkflowError()
}

// An attempt blocked on a call it cannot measure stays alive while it
// beats, where the same wait without beating is taken for dead.
func TestABlockedAttemptIsNotTakenForDeadWhileItBeats(t *testing.T) {
	err := runOnce(t, func(ctx context.Context) error {
		time.Sleep(blockedCall)
		return nil
	})
	var timeout *temporal.TimeoutError
	require.ErrorAs(t, err, &timeout, "the control: silence past the heartbeat timeout ends the attempt")
	assert.Equal(t, "Heartbeat", timeout.TimeoutType().String())

	assert.NoError(t, runOnce(t, func(ctx context.Context) error {
		stop := beating(ctx)
		defer stop()
		time.Sleep(blockedCall)
		return nil
	}))
}
