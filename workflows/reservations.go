package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/packing"
)

// ReservationEndedSignal tells a reservation's expiry run that the
// reservation was consumed or released; it carries the new status.
const ReservationEndedSignal = "reservation-ended"

// ReservationExpiry waits, on a durable timer, until the reservation's
// hold ends and then expires it if it is still held. A consumption or a
// release before then ends the wait (ReservationEndedSignal, or the
// reservation's status read when the run starts: recordEnd), with the
// reservation's status as the run's outcome, so the run closes when the
// reservation does. It returns whether it expired the reservation.
func ReservationExpiry(ctx workflow.Context, in packing.ReservationInput) (bool, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Reservations
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	end := recordEnd{signal: ReservationEndedSignal, status: a.Status,
		ended: func(status string) bool { return status != packing.ReservationStatusHeld }}
	ended, status, err := end.waitUntil(ctx, in, in.FireAt)
	if err != nil {
		return false, err
	}
	if ended {
		setOutcome(ctx, status)
		return false, nil
	}
	var expired bool
	if err := workflow.ExecuteActivity(ctx, a.Expire, in).Get(ctx, &expired); err != nil {
		return false, err
	}
	if expired {
		setOutcome(ctx, packing.ReservationStatusExpired)
	}
	return expired, nil
}

// ReservationEnded signals the reservation's expiry run that the
// reservation was consumed or released.
func ReservationEnded(ctx workflow.Context, in packing.ReservationEndedInput) error {
	expiry := packing.ReservationInput{Org: in.Org, ReservationID: in.ReservationID}
	return signalRun(ctx, packing.ReservationExpiryWorkflow.ID(expiry), ReservationEndedSignal, in.Status)
}
