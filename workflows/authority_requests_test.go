package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/records"
)

// authorityDesk is a request workflow environment whose activities
// answer as a test says; the run reads the request's deadline status
// (status) as its wait begins.
type authorityDesk struct {
	env    *testsuite.TestWorkflowEnvironment
	a      *activities.AuthorityRequests
	in     records.AuthorityRequestInput
	status string
}

// newAuthorityDesk is a request received today, due in 10 days, not
// answered.
func newAuthorityDesk() *authorityDesk {
	d := &authorityDesk{env: newTestEnv(), a: &activities.AuthorityRequests{}, status: records.DeadlineOpen}
	d.env.RegisterActivity(d.a)
	d.env.OnActivity(d.a.AuthorityRequestDeadlineStatus, mock.Anything, mock.Anything).Return(
		func(context.Context, records.AuthorityRequestInput) (string, error) { return d.status, nil }).Maybe()
	received := d.env.Now().UTC().Truncate(24 * time.Hour)
	d.in = records.AuthorityRequestInput{Org: domain.OrgOf(uuid.New()), RequestID: uuid.New(),
		DueOn: received.AddDate(0, 0, records.AuthorityAnswerDays)}
	return d
}

// allowReminder lets the reminder run, so that a test can assert that it
// did not (an activity without a mock would fail the run instead).
func (d *authorityDesk) allowReminder() {
	d.env.OnActivity(d.a.OpenAuthorityRequestDueIssue, mock.Anything, d.in).Return(true, nil).Maybe()
}

// requireAnsweredWithin runs the workflow and checks that it ends within
// the time given, answered, reminding no one.
func (d *authorityDesk) requireAnsweredWithin(t *testing.T, within time.Duration, why string) {
	t.Helper()
	start := d.env.Now()
	set := outcomes(d.env)
	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.True(t, d.env.IsWorkflowCompleted())
	require.NoError(t, d.env.GetWorkflowError())
	d.env.AssertNotCalled(t, "OpenAuthorityRequestDueIssue", mock.Anything, mock.Anything)
	assert.Equal(t, []string{OutcomeAnswered}, *set)
	assert.Less(t, d.env.Now().Sub(start), within, why)
}

func TestTheReminderOpensThreeDaysBeforeTheDueDate(t *testing.T) {
	d := newAuthorityDesk()
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(nil).Once()
	var remindedAt time.Time
	d.env.OnActivity(d.a.OpenAuthorityRequestDueIssue, mock.Anything, d.in).Return(
		func(context.Context, records.AuthorityRequestInput) (bool, error) {
			remindedAt = d.env.Now()
			return true, nil
		}).Once()

	set := outcomes(d.env)
	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.True(t, d.env.IsWorkflowCompleted())
	require.NoError(t, d.env.GetWorkflowError())
	d.env.AssertExpectations(t)
	assert.Equal(t, []string{OutcomeReminded}, *set)
	remindOn := d.in.DueOn.AddDate(0, 0, -records.AuthorityReminderDays)
	assert.False(t, remindedAt.Before(remindOn), "not before 3 days ahead of the due date: %s", remindedAt)
	assert.Less(t, remindedAt.Sub(remindOn), time.Hour, "at the start of that day: %s", remindedAt)
}

func TestAnAnswerStopsTheReminderTimer(t *testing.T) {
	d := newAuthorityDesk()
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(nil).Once()
	d.allowReminder()
	d.env.RegisterDelayedCallback(func() { d.env.SignalWorkflow(AuthorityRequestAnsweredSignal, nil) }, 48*time.Hour)
	d.requireAnsweredWithin(t, 72*time.Hour, "the workflow ends at the signal, not at the reminder")
}

func TestAnAnswerDuringTheBuildLeavesNoWait(t *testing.T) {
	d := newAuthorityDesk()
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).After(time.Hour).Return(nil).Once()
	d.allowReminder()
	start := d.env.Now()
	d.env.RegisterDelayedCallback(func() { d.env.SignalWorkflow(AuthorityRequestAnsweredSignal, nil) }, time.Minute)

	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.NoError(t, d.env.GetWorkflowError())
	d.env.AssertNotCalled(t, "OpenAuthorityRequestDueIssue", mock.Anything, mock.Anything)
	assert.Less(t, d.env.Now().Sub(start), 24*time.Hour, "a signal received while building is not lost")
}

// A request answered before its run started (the answer's signal,
// started first, found no run) has no wait: the run reads the request
// answered as its wait begins and ends then, answered.
func TestARequestAnsweredBeforeItsRunStartedHasNoWait(t *testing.T) {
	d := newAuthorityDesk()
	d.status = records.DeadlineAnsweredInTime
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(nil).Once()
	d.allowReminder()
	d.requireAnsweredWithin(t, time.Hour, "the bundle is built and nothing waits")
}

// A run started before the request was read as its wait begins replays
// without that read: its history, a request answered during the wait, was
// recorded by the code before the read (testdata/README.md).
func TestAnAuthorityRequestRunStartedBeforeTheCheckReplays(t *testing.T) {
	requireReplays(t, AuthorityRequest, records.AuthorityRequestWorkflow.Type, "authority-request-answered-v0.json")
}

func TestARequestRecordedAnsweredHasNoReminder(t *testing.T) {
	d := newAuthorityDesk()
	d.in.Answered = true
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(nil).Once()
	d.allowReminder()
	start := d.env.Now()

	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.NoError(t, d.env.GetWorkflowError())
	d.env.AssertExpectations(t)
	d.env.AssertNotCalled(t, "OpenAuthorityRequestDueIssue", mock.Anything, mock.Anything)
	assert.Less(t, d.env.Now().Sub(start), time.Hour, "the bundle is built and nothing waits")
}

func TestALateRequestIsRemindedAtOnce(t *testing.T) {
	d := newAuthorityDesk()
	d.in.DueOn = d.in.DueOn.AddDate(0, 0, -9)
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(nil).Once()
	d.env.OnActivity(d.a.OpenAuthorityRequestDueIssue, mock.Anything, d.in).Return(true, nil).Once()
	start := d.env.Now()

	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.NoError(t, d.env.GetWorkflowError())
	d.env.AssertExpectations(t)
	assert.Less(t, d.env.Now().Sub(start), time.Hour, "a request recorded within 3 days of its due date is reminded of right away")
}

func TestABundleThatCannotBeBuiltIsMarkedFailedAndTheDeadlineKept(t *testing.T) {
	d := newAuthorityDesk()
	attempts := 0
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(func(context.Context, records.AuthorityRequestInput) error {
		attempts++
		return errors.New("object store unavailable")
	})
	var reason string
	d.env.OnActivity(d.a.FailAuthorityBundle, mock.Anything, d.in, mock.Anything).Return(
		func(_ context.Context, _ records.AuthorityRequestInput, r string) error { reason = r; return nil }).Once()
	d.env.OnActivity(d.a.OpenAuthorityRequestDueIssue, mock.Anything, d.in).Return(true, nil).Once()

	set := outcomes(d.env)
	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.True(t, d.env.IsWorkflowCompleted())
	assert.Equal(t, []string{OutcomeFailed}, *set, "a bundle that failed is the outcome, whatever the deadline came to")
	assert.ErrorContains(t, d.env.GetWorkflowError(), "object store unavailable", "the run ends failed, for an operator to see")
	assert.Equal(t, 8, attempts, "the build is retried before it gives up")
	assert.Contains(t, reason, "object store unavailable", "the bundle records why it failed")
	d.env.AssertExpectations(t)
}

func TestABuildThatSucceedsOnRetryIsNotMarkedFailed(t *testing.T) {
	d := newAuthorityDesk()
	d.in.Answered = true
	attempts := 0
	d.env.OnActivity(d.a.BuildAuthorityBundle, mock.Anything, d.in).Return(func(context.Context, records.AuthorityRequestInput) error {
		if attempts++; attempts < 3 {
			return errors.New("s3: connection refused")
		}
		return nil
	})

	d.env.ExecuteWorkflow(AuthorityRequest, d.in)
	require.NoError(t, d.env.GetWorkflowError())
	assert.Equal(t, 3, attempts)
	d.env.AssertNotCalled(t, "FailAuthorityBundle", mock.Anything, mock.Anything, mock.Anything)
}

func TestAnsweringSignalsTheRequestsWorkflowAndToleratesItsEnd(t *testing.T) {
	id := uuid.New()
	in := records.AuthorityRequestInput{Org: domain.OrgOf(uuid.New()), RequestID: id, Answered: true}

	env := newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, "authority-request/"+id.String(), "", AuthorityRequestAnsweredSignal, nil).Return(nil).Once()
	env.ExecuteWorkflow(AuthorityRequestAnswered, in)
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)

	env = newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).
		Return(&temporal.UnknownExternalWorkflowExecutionError{})
	env.ExecuteWorkflow(AuthorityRequestAnswered, in)
	assert.NoError(t, env.GetWorkflowError(), "a workflow whose wait is over has nothing to stop")

	env = newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).
		Return(errors.New("unable to signal"))
	env.ExecuteWorkflow(AuthorityRequestAnswered, in)
	assert.Error(t, env.GetWorkflowError())
	assert.Equal(t, "authority-request/"+id.String()+"/answered", records.AuthorityRequestAnsweredWorkflow.ID(in))
}
