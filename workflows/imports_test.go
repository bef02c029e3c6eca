package workflows

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/imports"
)

func newImportEnv() (*testsuite.TestWorkflowEnvironment, *activities.Imports) {
	env := newTestEnv()
	a := &activities.Imports{}
	env.RegisterActivity(a)
	return env, a
}

func TestImportPreviewEndsWithTheImportsStatus(t *testing.T) {
	for _, status := range []string{imports.ImportReadyStatus, imports.ImportFailedStatus} {
		env, a := newImportEnv()
		id := uuid.New()
		in := imports.ImportInput{Org: domain.OrgOf(uuid.New()), ImportID: id}
		env.OnActivity(a.Preview, mock.Anything, in).Return(status, nil).Once()
		set := outcomes(env)
		env.ExecuteWorkflow(ImportPreview, in)
		require.True(t, env.IsWorkflowCompleted())
		require.NoError(t, env.GetWorkflowError())
		var got string
		require.NoError(t, env.GetWorkflowResult(&got))
		assert.Equal(t, status, got, "an unreadable file is a failed import, not a failed run")
		assert.Equal(t, []string{status}, *set, "operators find a failed import by its outcome")
		env.AssertExpectations(t)
	}
}

// A preview attempt that fails (the database away) is retried, and the
// retry's answer is the run's.
func TestImportPreviewRetriesAFailedAttempt(t *testing.T) {
	env, a := newImportEnv()
	id := uuid.New()
	attempts := 0
	env.OnActivity(a.Preview, mock.Anything, mock.Anything).Return(func(context.Context, imports.ImportInput) (string, error) {
		attempts++
		if attempts == 1 {
			return "", errors.New("connection refused")
		}
		return imports.ImportReadyStatus, nil
	})
	env.ExecuteWorkflow(ImportPreview, imports.ImportInput{ImportID: id})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, 2, attempts)
}

// An apply attempt that dies half way is retried with the progress it
// heartbeat, so it resumes after the last committed row.
func TestImportApplyResumesFromHeartbeatProgress(t *testing.T) {
	env, a := newImportEnv()
	id := uuid.New()
	var resumedAfter []int
	env.OnActivity(a.Apply, mock.Anything, mock.Anything).Return(func(ctx context.Context, _ imports.ImportInput) (string, error) {
		after := 0
		if activityHasProgress(ctx, &after) {
			resumedAfter = append(resumedAfter, after)
			return imports.ImportCompletedWithErrors, nil
		}
		recordProgress(ctx, 200)
		return "", errors.New("worker lost")
	})
	env.ExecuteWorkflow(ImportApply, imports.ImportInput{ImportID: id})
	require.NoError(t, env.GetWorkflowError())
	var got string
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, imports.ImportCompletedWithErrors, got)
	assert.Equal(t, []int{200}, resumedAfter, "the retry saw the last heartbeat")
}

func activityHasProgress(ctx context.Context, after *int) bool {
	return activity.HasHeartbeatDetails(ctx) && activity.GetHeartbeatDetails(ctx, after) == nil
}

func recordProgress(ctx context.Context, n int) { activity.RecordHeartbeat(ctx, n) }
