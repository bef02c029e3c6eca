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
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/domain/suppliers"
)

// send matches the input of the n-th send.
func send(n int) any {
	return mock.MatchedBy(func(in suppliers.RequestInput) bool { return in.Send == n })
}

// sending is a send workflow environment whose activities answer as a
// test says; a first send reads the request's status (status) as its
// wait begins.
type sending struct {
	env    *testsuite.TestWorkflowEnvironment
	a      *activities.Suppliers
	status string
}

// newSending sends a request that is still open.
func newSending() *sending {
	s := &sending{env: newTestEnv(), a: &activities.Suppliers{}, status: suppliers.RequestSent}
	s.env.RegisterActivity(s.a)
	s.env.OnActivity(s.a.RequestStatus, mock.Anything, mock.Anything).Return(
		func(context.Context, suppliers.RequestInput) (string, error) { return s.status, nil }).Maybe()
	return s
}

func (s *sending) run(t *testing.T, in suppliers.RequestInput) bool {
	s.env.ExecuteWorkflow(SupplierRequestSend, in)
	require.True(t, s.env.IsWorkflowCompleted())
	require.NoError(t, s.env.GetWorkflowError())
	var delivered bool
	require.NoError(t, s.env.GetWorkflowResult(&delivered))
	return delivered
}

func TestASendRetriesATransientFailureThenWaitsForTheDueDate(t *testing.T) {
	s := newSending()
	attempts := 0
	s.env.OnActivity(s.a.SendRequestEmail, mock.Anything, send(1)).Return(func(context.Context, suppliers.RequestInput) error {
		attempts++
		if attempts < 3 {
			return errors.New("451 4.3.0 try again later")
		}
		return nil
	})
	var overdueAt time.Time
	s.env.OnActivity(s.a.MarkRequestOverdue, mock.Anything, mock.Anything).Return(func(context.Context, suppliers.RequestInput) (bool, error) {
		overdueAt = s.env.Now()
		return true, nil
	}).Once()
	due := s.env.Now().AddDate(0, 0, 10).Truncate(24 * time.Hour)

	assert.True(t, s.run(t, suppliers.RequestInput{RequestID: uuid.New(), Send: 1, DueOn: due}))
	assert.Equal(t, 3, attempts)
	assert.False(t, overdueAt.Before(due.AddDate(0, 0, 1)), "the overdue check comes after the whole due day: %s", overdueAt)
	s.env.AssertNotCalled(t, "RecordRequestEmailFailure", mock.Anything, mock.Anything, mock.Anything)
}

func TestAPermanentRefusalIsRecordedAtOnce(t *testing.T) {
	s := newSending()
	s.env.OnActivity(s.a.SendRequestEmail, mock.Anything, send(1)).Return(
		temporal.NewNonRetryableApplicationError("550 5.1.1 no such user", activities.ErrorTypeSMTPPermanent, nil)).Once()
	var reason string
	s.env.OnActivity(s.a.RecordRequestEmailFailure, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ suppliers.RequestInput, r string) error { reason = r; return nil }).Once()
	s.env.OnActivity(s.a.MarkRequestOverdue, mock.Anything, mock.Anything).Return(false, nil)

	assert.False(t, s.run(t, suppliers.RequestInput{RequestID: uuid.New(), Send: 1, DueOn: s.env.Now()}))
	assert.Contains(t, reason, "550 5.1.1")
	s.env.AssertExpectations(t)
}

func TestSendingAgainDeliversWithoutASecondTimer(t *testing.T) {
	s := newSending()
	s.env.OnActivity(s.a.SendRequestEmail, mock.Anything, send(2)).Return(nil).Once()

	assert.True(t, s.run(t, suppliers.RequestInput{RequestID: uuid.New(), Send: 2, DueOn: s.env.Now().AddDate(0, 1, 0)}))
	s.env.AssertNotCalled(t, "MarkRequestOverdue", mock.Anything, mock.Anything)
}

func TestSupplierRequestWorkflowIDs(t *testing.T) {
	id := uuid.MustParse("0190a4b2-0000-7000-8000-000000000002")
	sendID := func(n int) string {
		return suppliers.RequestSendWorkflow.ID(suppliers.RequestInput{RequestID: id, Send: n})
	}
	assert.Equal(t, "supplier-request/0190a4b2-0000-7000-8000-000000000002/send", sendID(1))
	assert.Equal(t, "supplier-request/0190a4b2-0000-7000-8000-000000000002/send/2", sendID(2))
	assert.Equal(t, "supplier-request/0190a4b2-0000-7000-8000-000000000002/close",
		suppliers.RequestCloseWorkflow.ID(suppliers.RequestInput{RequestID: id}))
}

func TestClosingTheRequestStopsTheOverdueTimer(t *testing.T) {
	s := newSending()
	s.env.OnActivity(s.a.SendRequestEmail, mock.Anything, send(1)).Return(nil).Once()
	start := s.env.Now()
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(SupplierRequestClosedSignal, nil) }, 48*time.Hour)

	assert.True(t, s.run(t, suppliers.RequestInput{RequestID: uuid.New(), Send: 1, DueOn: start.AddDate(0, 0, 30)}))
	s.env.AssertNotCalled(t, "MarkRequestOverdue", mock.Anything, mock.Anything)
	assert.Less(t, s.env.Now().Sub(start), 72*time.Hour, "the workflow ends at the signal, not at the due date")
}

// A request cancelled before its first send started (the close's
// signal, started first, found no run) has no wait: the send reads the
// request closed once its e-mail is delivered and ends then, closed, with
// no overdue check.
func TestARequestClosedBeforeItsSendStartedHasNoWait(t *testing.T) {
	s := newSending()
	s.status = suppliers.RequestCancelled
	s.env.OnActivity(s.a.SendRequestEmail, mock.Anything, send(1)).Return(nil).Once()
	set := outcomes(s.env)
	start := s.env.Now()

	assert.True(t, s.run(t, suppliers.RequestInput{RequestID: uuid.New(), Send: 1, DueOn: start.AddDate(0, 0, 30)}))
	s.env.AssertNotCalled(t, "MarkRequestOverdue", mock.Anything, mock.Anything)
	assert.Equal(t, []string{OutcomeClosed}, *set)
	assert.Less(t, s.env.Now().Sub(start), time.Hour, "the workflow ends at once, not at the due date")
}

// A first send started before the request was read as its wait begins
// replays without that read: its history, a request closed during the
// wait, was recorded by the code before the read (testdata/README.md).
func TestASendStartedBeforeTheCheckReplays(t *testing.T) {
	requireReplays(t, SupplierRequestSend, suppliers.RequestSendWorkflow.Type, "supplier-request-send-closed-v0.json")
}

func TestClosingSignalsTheFirstSendAndToleratesItsAbsence(t *testing.T) {
	id := uuid.New()

	env := newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, "supplier-request/"+id.String()+"/send", "", SupplierRequestClosedSignal, nil).Return(nil).Once()
	env.ExecuteWorkflow(SupplierRequestClose, suppliers.RequestInput{RequestID: id})
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)

	env = newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).
		Return(&temporal.UnknownExternalWorkflowExecutionError{})
	env.ExecuteWorkflow(SupplierRequestClose, suppliers.RequestInput{RequestID: id})
	assert.NoError(t, env.GetWorkflowError(), "a request never sent has no wait to stop")

	env = newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).
		Return(errors.New("unable to signal"))
	env.ExecuteWorkflow(SupplierRequestClose, suppliers.RequestInput{RequestID: id})
	assert.Error(t, env.GetWorkflowError())
}

func TestAReplysFilesAreProcessedLikeUploads(t *testing.T) {
	env := newTestEnv()
	a := &activities.Suppliers{}
	env.RegisterActivity(a)
	env.RegisterWorkflowWithOptions(func(workflow.Context, documents.VersionInput) (string, error) { return "", nil },
		workflow.RegisterOptions{Name: documents.ProcessingWorkflow.Type})
	versions := []uuid.UUID{uuid.New(), uuid.New()}
	env.OnActivity(a.FileReply, mock.Anything, mock.Anything).Return(versions, nil).Once()
	var processed []uuid.UUID
	env.OnWorkflow(documents.ProcessingWorkflow.Type, mock.Anything, mock.Anything).Return(
		func(_ workflow.Context, in documents.VersionInput) (string, error) {
			processed = append(processed, in.VersionID)
			return "review_required", nil
		})

	env.ExecuteWorkflow(SupplierReply, suppliers.ReplyInput{Org: domain.OrgOf(uuid.New()), ReplyID: uuid.New(), RequestID: uuid.New()})
	require.NoError(t, env.GetWorkflowError())
	var filed []uuid.UUID
	require.NoError(t, env.GetWorkflowResult(&filed))
	assert.Equal(t, versions, filed)
	assert.ElementsMatch(t, versions, processed, "each version's processing starts")
}

func TestAnUnreadableReplyIsRecordedNotRetried(t *testing.T) {
	env := newTestEnv()
	a := &activities.Suppliers{}
	env.RegisterActivity(a)
	env.OnActivity(a.FileReply, mock.Anything, mock.Anything).Return(nil,
		temporal.NewNonRetryableApplicationError("mailin: malformed message: no boundary", activities.ErrorTypeUnreadableReply, nil)).Once()
	var reason string
	env.OnActivity(a.RecordReplyFailure, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ suppliers.ReplyInput, r string) error { reason = r; return nil }).Once()

	env.ExecuteWorkflow(SupplierReply, suppliers.ReplyInput{Org: domain.OrgOf(uuid.New()), ReplyID: uuid.New(), RequestID: uuid.New()})
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)
	assert.Contains(t, reason, "no boundary")
}

func TestAnObjectStoreOutageIsRetried(t *testing.T) {
	env := newTestEnv()
	a := &activities.Suppliers{}
	env.RegisterActivity(a)
	calls := 0
	env.OnActivity(a.FileReply, mock.Anything, mock.Anything).Return(func(context.Context, suppliers.ReplyInput) ([]uuid.UUID, error) {
		if calls++; calls < 3 {
			return nil, errors.New("s3: connection refused")
		}
		return nil, nil
	})

	env.ExecuteWorkflow(SupplierReply, suppliers.ReplyInput{Org: domain.OrgOf(uuid.New()), ReplyID: uuid.New(), RequestID: uuid.New()})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, 3, calls)
	env.AssertNotCalled(t, "RecordReplyFailure", mock.Anything, mock.Anything, mock.Anything)
}
