package workflows

import (
	"errors"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/documents"
	"ppwr/domain/suppliers"
	"ppwr/internal/temporalclient"
)

// deliveryRetry retries transient SMTP failures (4xx replies, refused
// connections) for about a day; a 5xx refusal is final at once.
var deliveryRetry = &temporal.RetryPolicy{InitialInterval: 10 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Hour,
	MaximumAttempts: 30, NonRetryableErrorTypes: []string{activities.ErrorTypeSMTPPermanent}}

// SupplierRequestSend delivers the request's e-mail and records a
// delivery that gave up. The first send then waits, on a durable timer,
// until the end of the due date and opens the overdue issue if the
// request is still waiting for answers. A request cancelled or completed
// before then stops the wait (SupplierRequestClosedSignal, or the request
// read as the wait begins: recordEnd); the overdue activity leaves a
// closed request alone all the same. It returns whether the e-mail was
// delivered.
func SupplierRequestSend(ctx workflow.Context, in suppliers.RequestInput) (bool, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Suppliers
	deliver := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, RetryPolicy: deliveryRetry})
	record := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}})
	delivered := true
	if err := workflow.ExecuteActivity(deliver, a.SendRequestEmail, in).Get(ctx, nil); err != nil {
		delivered = false
		if err := workflow.ExecuteActivity(record, a.RecordRequestEmailFailure, in, err.Error()).Get(ctx, nil); err != nil {
			return false, err
		}
	}
	// An e-mail that did not go out is the outcome to find, whatever the
	// wait for answers then came to.
	end := func(outcome string) (bool, error) {
		if !delivered {
			outcome = OutcomeDeliveryFailed
		}
		setOutcome(ctx, outcome)
		return delivered, nil
	}
	if in.Send > 1 {
		return end(OutcomeDelivered)
	}
	closedFirst := recordEnd{signal: SupplierRequestClosedSignal, status: a.RequestStatus, ended: suppliers.RequestClosed}
	closed, _, err := closedFirst.waitUntil(record, in, in.DueOn.AddDate(0, 0, 1))
	if err != nil {
		return delivered, err
	}
	if closed {
		return end(OutcomeClosed)
	}
	if err := workflow.ExecuteActivity(record, a.MarkRequestOverdue, in).Get(ctx, nil); err != nil {
		return delivered, err
	}
	return end(OutcomeOverdue)
}

// Outcomes of a supplier request's send: its e-mail's delivery, and for
// the first send how the wait for answers ended.
const (
	OutcomeDelivered      = "delivered"
	OutcomeDeliveryFailed = "delivery_failed"
	OutcomeClosed         = "closed"
	OutcomeOverdue        = "overdue"
)

// SupplierRequestClosedSignal tells a request's first send workflow that
// the request was cancelled or completed: no overdue issue can follow.
const SupplierRequestClosedSignal = "request-closed"

// SupplierRequestClose signals the request's send workflow that the
// request closed. It is a workflow, started durably with the change that
// closed the request, so that the signal survives a crash right after the
// commit; a request never sent, or whose wait is over, has no workflow to
// signal and needs none.
func SupplierRequestClose(ctx workflow.Context, in suppliers.RequestInput) error {
	first := suppliers.RequestInput{Org: in.Org, RequestID: in.RequestID, Send: 1}
	return signalRun(ctx, suppliers.RequestSendWorkflow.ID(first), SupplierRequestClosedSignal, nil)
}

// SupplierReply files a reply's attachments as document versions of the
// request, then starts each version's processing, exactly as for an
// upload: it outlives this workflow (abandoned on close) and carries the
// version's own id. A message that cannot be read is recorded as failed,
// kept in the object store for a person to look at. It returns the
// versions filed.
func SupplierReply(ctx workflow.Context, in suppliers.ReplyInput) ([]uuid.UUID, error) {
	var a *activities.Suppliers
	file := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout: 2 * time.Minute, RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 5 * time.Minute, NonRetryableErrorTypes: []string{activities.ErrorTypeUnreadableReply}}})
	var versions []uuid.UUID
	if err := workflow.ExecuteActivity(file, a.FileReply, in).Get(ctx, &versions); err != nil {
		var unreadable *temporal.ApplicationError
		if !errors.As(err, &unreadable) || unreadable.Type() != activities.ErrorTypeUnreadableReply {
			return nil, err
		}
		record := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}})
		if err := workflow.ExecuteActivity(record, a.RecordReplyFailure, in, unreadable.Message()).Get(ctx, nil); err != nil {
			return nil, err
		}
		setOutcome(ctx, suppliers.ReplyFailed)
		return nil, nil
	}
	for _, v := range versions {
		version := documents.VersionInput{Org: in.Org, VersionID: v}
		processing := documents.ProcessingWorkflow
		child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID:            processing.ID(version),
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
			ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
			TypedSearchAttributes: temporal.NewSearchAttributes(temporalclient.OrganizationID.ValueSet(in.OrganizationID.String()),
				temporalclient.ResourceID.ValueSet(processing.Resource(version).String())),
		})
		run := workflow.ExecuteChildWorkflow(child, processing.Type, version)
		if err := run.GetChildWorkflowExecution().Get(ctx, nil); err != nil && !isAlreadyStarted(err) {
			return nil, err
		}
	}
	setOutcome(ctx, suppliers.ReplyFiled)
	return versions, nil
}

// isAlreadyStarted tells a child that runs already: started before this
// workflow was reset or re-driven.
func isAlreadyStarted(err error) bool {
	var started *temporal.ChildWorkflowExecutionAlreadyStartedError
	return errors.As(err, &started)
}
