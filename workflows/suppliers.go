package workflows

import (
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/internal/temporalclient"
)

// SupplierRequestSendType is the registered type name of the send
// workflow: recorded starts name their workflow by type.
const SupplierRequestSendType = "SupplierRequestSend"

// SupplierRequestInput names the request, which send of it this is and
// its due date.
type SupplierRequestInput struct {
	RequestID uuid.UUID `json:"request_id"`
	Send      int       `json:"send"`
	DueOn     time.Time `json:"due_on"`
}

// SupplierRequestSendWorkflowID is the workflow of a request's first send;
// sending again after a failed delivery is a workflow of its own.
func SupplierRequestSendWorkflowID(id uuid.UUID, send int) string {
	wid := "supplier-request/" + id.String() + "/send"
	if send > 1 {
		wid += "/" + strconv.Itoa(send)
	}
	return wid
}

// deliveryRetry retries transient SMTP failures (4xx replies, refused
// connections) for about a day; a 5xx refusal is final at once.
var deliveryRetry = &temporal.RetryPolicy{InitialInterval: 10 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Hour,
	MaximumAttempts: 30, NonRetryableErrorTypes: []string{activities.ErrorTypeSMTPPermanent}}

// SupplierRequestSend delivers the request's e-mail and records a
// delivery that gave up. The first send then waits, on a durable timer,
// until the end of the due date and opens the overdue issue if the
// request is still waiting for answers. A request cancelled or completed
// before then stops the wait (SupplierRequestClosedSignal); the overdue
// activity leaves a closed request alone all the same, so a signal that
// comes late changes nothing. It returns whether the e-mail was
// delivered.
func SupplierRequestSend(ctx workflow.Context, in SupplierRequestInput) (bool, error) {
	var a *activities.Suppliers
	deliver := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, RetryPolicy: deliveryRetry})
	record := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}})
	delivered := true
	if err := workflow.ExecuteActivity(deliver, a.SendRequestEmail, in.RequestID, in.Send).Get(ctx, nil); err != nil {
		delivered = false
		if err := workflow.ExecuteActivity(record, a.RecordRequestEmailFailure, in.RequestID, err.Error()).Get(ctx, nil); err != nil {
			return false, err
		}
	}
	if in.Send > 1 {
		return delivered, nil
	}
	if wait := in.DueOn.AddDate(0, 0, 1).Sub(workflow.Now(ctx)); wait > 0 {
		timerCtx, stopTimer := workflow.WithCancel(ctx)
		closed := false
		workflow.NewSelector(ctx).
			AddFuture(workflow.NewTimer(timerCtx, wait), func(f workflow.Future) {}).
			AddReceive(workflow.GetSignalChannel(ctx, SupplierRequestClosedSignal), func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				closed = true
				stopTimer()
			}).
			Select(ctx)
		if closed {
			return delivered, nil
		}
	}
	return delivered, workflow.ExecuteActivity(record, a.MarkRequestOverdue, in.RequestID).Get(ctx, nil)
}

// SupplierRequestClosedSignal tells a request's first send workflow that
// the request was cancelled or completed: no overdue issue can follow.
const SupplierRequestClosedSignal = "request-closed"

// SupplierRequestCloseType is the registered type name of the workflow
// that delivers SupplierRequestClosedSignal.
const SupplierRequestCloseType = "SupplierRequestClose"

// SupplierRequestCloseWorkflowID is the close of a request: cancellation
// and completion each happen at most once, and never both.
func SupplierRequestCloseWorkflowID(id uuid.UUID) string {
	return "supplier-request/" + id.String() + "/close"
}

// SupplierRequestClose signals the request's send workflow that the
// request closed. It is a workflow, started durably with the change that
// closed the request, so that the signal survives a crash right after the
// commit; a request never sent, or whose wait is over, has no workflow to
// signal and needs none.
func SupplierRequestClose(ctx workflow.Context, in SupplierRequestInput) error {
	err := workflow.SignalExternalWorkflow(ctx, SupplierRequestSendWorkflowID(in.RequestID, 1), "", SupplierRequestClosedSignal, nil).Get(ctx, nil)
	var gone *temporal.UnknownExternalWorkflowExecutionError
	if errors.As(err, &gone) {
		return nil
	}
	return err
}

// SupplierReplyType is the registered type name of the workflow that
// files a reply received by e-mail.
const SupplierReplyType = "SupplierReply"

// SupplierReplyInput names a reply received for a request, and the
// request's organization (the search attribute of the processing runs it
// starts).
type SupplierReplyInput struct {
	ReplyID        uuid.UUID `json:"reply_id"`
	RequestID      uuid.UUID `json:"request_id"`
	OrganizationID uuid.UUID `json:"organization_id"`
}

// SupplierReplyWorkflowID is the filing of one reply, under its request
// so that an operator finds every run of a request by its prefix.
func SupplierReplyWorkflowID(requestID, replyID uuid.UUID) string {
	return "supplier-request/" + requestID.String() + "/reply/" + replyID.String()
}

// SupplierReply files a reply's attachments as document versions of the
// request, then starts each version's processing, exactly as for an
// upload: it outlives this workflow (abandoned on close) and carries the
// version's own id. A message that cannot be read is recorded as failed,
// kept in the object store for a person to look at. It returns the
// versions filed.
func SupplierReply(ctx workflow.Context, in SupplierReplyInput) ([]uuid.UUID, error) {
	var a *activities.Suppliers
	file := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout: 2 * time.Minute, RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 5 * time.Minute, NonRetryableErrorTypes: []string{activities.ErrorTypeUnreadableReply}}})
	var versions []uuid.UUID
	if err := workflow.ExecuteActivity(file, a.FileReply, in.ReplyID).Get(ctx, &versions); err != nil {
		var unreadable *temporal.ApplicationError
		if !errors.As(err, &unreadable) || unreadable.Type() != activities.ErrorTypeUnreadableReply {
			return nil, err
		}
		record := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}})
		return nil, workflow.ExecuteActivity(record, a.RecordReplyFailure, in.ReplyID, unreadable.Message()).Get(ctx, nil)
	}
	for _, v := range versions {
		child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID:            DocumentProcessingWorkflowID(v),
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
			ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
			TypedSearchAttributes: temporal.NewSearchAttributes(
				temporalclient.OrganizationID.ValueSet(in.OrganizationID.String()), temporalclient.ResourceID.ValueSet(v.String())),
		})
		run := workflow.ExecuteChildWorkflow(child, DocumentProcessingType, DocumentVersionInput{VersionID: v})
		if err := run.GetChildWorkflowExecution().Get(ctx, nil); err != nil && !isAlreadyStarted(err) {
			return nil, err
		}
	}
	return versions, nil
}

// isAlreadyStarted tells a child that runs already: started before this
// workflow was reset or re-driven.
func isAlreadyStarted(err error) bool {
	var started *temporal.ChildWorkflowExecutionAlreadyStartedError
	return errors.As(err, &started)
}
