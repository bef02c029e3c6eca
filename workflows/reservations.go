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
// reservation does. It returns whether it expired the reservation.
//
// The end's signal is sent by a run of its own (ReservationEnded), which
// the relays may start before this one: several workers relay starts at
// once, and one may start the end while another is still starting the
// expiry. That signal finds no run and is dropped; but the end committed
// before its start was made, so this run, starting later, reads the
// reservation ended and closes at once. Runs started before this check
// existed go without it (their end was signalled or is checked by the
// expiry).
func ReservationExpiry(ctx workflow.Context, in packing.ReservationInput) (bool, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Reservations
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	if workflow.GetVersion(ctx, "ended-before-start", workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		var status string
		if err := workflow.ExecuteActivity(ctx, a.Status, in).Get(ctx, &status); err != nil {
			return false, err
		}
		if status != packing.ReservationStatusHeld {
			setOutcome(ctx, status)
			return false, nil
		}
	}
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
