package workflows

import (
	"strconv"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
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
// request is still waiting for answers (a completed or cancelled one is
// left alone). It returns whether the e-mail was delivered.
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
		if err := workflow.Sleep(ctx, wait); err != nil {
			return delivered, err
		}
	}
	return delivered, workflow.ExecuteActivity(record, a.MarkRequestOverdue, in.RequestID).Get(ctx, nil)
}
