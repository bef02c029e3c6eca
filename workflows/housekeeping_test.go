package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"github.com/stretchr/testify/suite"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
)

type housekeepingSuite struct {
	suite.Suite
	env *testsuite.TestWorkflowEnvironment
}

func TestHousekeeping(t *testing.T) { suite.Run(t, new(housekeepingSuite)) }

func (s *housekeepingSuite) SetupTest() {
	s.env = newTestEnv()
	// The real activity is registered so the mocks below replace exactly the
	// function the workflow schedules, by its registered name.
	s.env.RegisterActivity(&activities.Housekeeping{})
	s.env.OnActivity((*activities.Housekeeping)(nil).OpenExpiryIssues, mock.Anything).Return(2, nil).Maybe()
}

func (s *housekeepingSuite) AfterTest(_, _ string) { s.env.AssertExpectations(s.T()) }

// purgeFunc is the method the workflow schedules; a nil receiver is enough
// to name it.
var purgeFunc = (*activities.Housekeeping)(nil).PurgeExpired

func (s *housekeepingSuite) TestReturnsActivityResult() {
	want := activities.PurgeResult{IdempotencyKeys: 7, RateBuckets: 3}
	s.env.OnActivity(purgeFunc, mock.Anything).Return(want, nil).Once()

	s.env.ExecuteWorkflow(Housekeeping)

	s.True(s.env.IsWorkflowCompleted())
	s.Require().NoError(s.env.GetWorkflowError())
	var got activities.PurgeResult
	s.Require().NoError(s.env.GetWorkflowResult(&got))
	want.ExpiryIssues = 2
	s.Equal(want, got, "the purge's counts and the expiry issues opened after it")
}

func (s *housekeepingSuite) TestRetriesTransientFailuresWithBackoff() {
	want := activities.PurgeResult{IdempotencyKeys: 1}
	// The mock records the virtual clock at every attempt, so the test sees
	// the retry policy's backoff without waiting for it in real time.
	var attempts []time.Time
	s.env.OnActivity(purgeFunc, mock.Anything).Return(func(context.Context) (activities.PurgeResult, error) {
		attempts = append(attempts, s.env.Now())
		if len(attempts) <= 2 {
			return activities.PurgeResult{}, temporal.NewApplicationError("database unavailable", "Transient")
		}
		return want, nil
	}).Times(3)

	started := s.env.Now()
	s.env.ExecuteWorkflow(Housekeeping)

	s.True(s.env.IsWorkflowCompleted())
	s.Require().NoError(s.env.GetWorkflowError())
	var got activities.PurgeResult
	s.Require().NoError(s.env.GetWorkflowResult(&got))
	want.ExpiryIssues = 2
	s.Equal(want, got)

	s.Require().Len(attempts, 3)
	s.GreaterOrEqual(attempts[1].Sub(attempts[0]), 5*time.Second, "first retry waits InitialInterval")
	s.GreaterOrEqual(attempts[2].Sub(attempts[1]), 10*time.Second, "second retry doubles the interval")
	// The workflow's clock moved past both backoffs although the test never
	// waited: the test environment skipped the time.
	s.GreaterOrEqual(s.env.Now().Sub(started), 15*time.Second)
}

func (s *housekeepingSuite) TestFailsAfterMaximumAttempts() {
	calls := 0
	s.env.OnActivity(purgeFunc, mock.Anything).Return(func(context.Context) (activities.PurgeResult, error) {
		calls++
		return activities.PurgeResult{}, temporal.NewApplicationError("database unavailable", "Transient")
	})

	s.env.ExecuteWorkflow(Housekeeping)

	s.True(s.env.IsWorkflowCompleted())
	err := s.env.GetWorkflowError()
	s.Require().Error(err)
	var actErr *temporal.ActivityError
	s.Require().True(errors.As(err, &actErr), "workflow error wraps the activity failure: %v", err)
	var appErr *temporal.ApplicationError
	s.Require().True(errors.As(err, &appErr))
	s.Equal("Transient", appErr.Type())
	s.Equal(10, calls, "MaximumAttempts bounds the retries")
}

func TestNonRetryableFailureIsNotRetried(t *testing.T) {
	env := newTestEnv()
	env.RegisterActivity(&activities.Housekeeping{})
	calls := 0
	env.OnActivity(purgeFunc, mock.Anything).Return(func(context.Context) (activities.PurgeResult, error) {
		calls++
		return activities.PurgeResult{}, temporal.NewNonRetryableApplicationError("bad schema", "Fatal", nil)
	})

	env.ExecuteWorkflow(Housekeeping)

	require.True(t, env.IsWorkflowCompleted())
	assert.Error(t, env.GetWorkflowError())
	assert.Equal(t, 1, calls)
}
