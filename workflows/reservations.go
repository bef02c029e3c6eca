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
// release before then ends the wait (ReservationEndedSignal), with the
// reservation's status as the run's outcome, so the run closes when the
// reservation does. The expiry checks the record all the same, so a
// signal that never came (the run had not started yet) changes nothing
// but how long the run waits. It returns whether it expired the
// reservation.
func ReservationExpiry(ctx workflow.Context, in packing.ReservationInput) (bool, error) {
	withOrganization(ctx, &in.Org)
	if wait := in.FireAt.Sub(workflow.Now(ctx)); wait > 0 {
		timerCtx, stopTimer := workflow.WithCancel(ctx)
		var ended string
		workflow.NewSelector(ctx).
			AddFuture(workflow.NewTimer(timerCtx, wait), func(workflow.Future) {}).
			AddReceive(workflow.GetSignalChannel(ctx, ReservationEndedSignal), func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, &ended)
				stopTimer()
			}).
			Select(ctx)
		if ended != "" {
			setOutcome(ctx, ended)
			return false, nil
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

// ReservationEnded signals the reservation's expiry run that the
// reservation was consumed or released.
func ReservationEnded(ctx workflow.Context, in packing.ReservationEndedInput) error {
	expiry := packing.ReservationInput{Org: in.Org, ReservationID: in.ReservationID}
	return signalRun(ctx, packing.ReservationExpiryWorkflow.ID(expiry), ReservationEndedSignal, in.Status)
}
