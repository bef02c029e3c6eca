package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/packing"
)

// ReservationExpiry waits, on a durable timer, until the reservation's
// hold ends and then expires it if it is still held. A consumption or a
// release before then leaves the workflow waiting: its expiry finds
// nothing held and changes nothing, which costs less than cancelling it
// from the request. It returns whether it expired the reservation.
func ReservationExpiry(ctx workflow.Context, in packing.ReservationInput) (bool, error) {
	withOrganization(ctx, &in.Org)
	if wait := in.FireAt.Sub(workflow.Now(ctx)); wait > 0 {
		if err := workflow.Sleep(ctx, wait); err != nil {
			return false, err
		}
	}
	var a *activities.Reservations
	var expired bool
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	if err := workflow.ExecuteActivity(ctx, a.Expire, in).Get(ctx, &expired); err != nil {
		return false, err
	}
	if expired {
		setOutcome(ctx, packing.ReservationStatusExpired)
	}
	return expired, nil
}
