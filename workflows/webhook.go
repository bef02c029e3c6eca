package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/webhooks"
)

// webhookMaxAttempts is far above what the retry window admits (about 20
// attempts in 72 hours), so the window is what ends the retries. It is not
// 0 (unlimited) because the SDK's test environment turns 0 into 10
// attempts, and the schedule test must see the real one.
const webhookMaxAttempts = 1000

// DeliverWebhook POSTs one event to one endpoint. Retries come from the
// activity's retry policy: exponential backoff from RetryInitial, doubling
// up to six hours (webhooks.RetryBackoff and MaxRetryInterval, from which
// each failed attempt records its next one), for RetryFor in total. Then the delivery is recorded as
// failed and the run fails, so operators see it in the Temporal UI.
func DeliverWebhook(ctx workflow.Context, in webhooks.DeliveryInput) error {
	withOrganization(ctx, &in.Org)
	attemptCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// The HTTP call itself is bounded at 10 s; the rest is database work.
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: in.RetryFor,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        in.RetryInitial,
			BackoffCoefficient:     webhooks.RetryBackoff,
			MaximumInterval:        webhooks.MaxRetryInterval,
			MaximumAttempts:        webhookMaxAttempts,
			NonRetryableErrorTypes: []string{activities.ErrEndpointUnusable},
		},
	})
	var w *activities.Webhooks
	err := workflow.ExecuteActivity(attemptCtx, w.Deliver, in).Get(ctx, nil)
	if err == nil {
		setOutcome(ctx, webhooks.DeliverySucceeded)
		return nil
	}
	recordCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	if ferr := workflow.ExecuteActivity(recordCtx, w.MarkFailed, in, err.Error()).Get(ctx, nil); ferr != nil {
		return ferr
	}
	setOutcome(ctx, webhooks.DeliveryFailed)
	return temporal.NewNonRetryableApplicationError("webhook delivery failed", "WebhookDeliveryFailed", err)
}
