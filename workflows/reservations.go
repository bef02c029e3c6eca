package workflows

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
)

// ReservationExpiryType is the registered type name of the reservation
// workflow: recorded starts name their workflow by type.
const ReservationExpiryType = "ReservationExpiry"

// ReservationInput names the reservation and when its hold ends.
type ReservationInput struct {
	ReservationID uuid.UUID `json:"reservation_id"`
	FireAt        time.Time `json:"fire_at"`
}

// ReservationWorkflowID is the expiry workflow of a reservation.
func ReservationWorkflowID(id uuid.UUID) string { return "reservation/" + id.String() }

// ReservationExpiry waits, on a durable timer, until the reservation's
// hold ends and then expires it if it is still held. A consumption or a
// release before then leaves the workflow waiting: its expiry finds
// nothing held and changes nothing, which costs less than cancelling it
// from the request. It returns whether it expired the reservation.
func ReservationExpiry(ctx workflow.Context, in ReservationInput) (bool, error) {
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
	err := workflow.ExecuteActivity(ctx, a.Expire, in.ReservationID).Get(ctx, &expired)
	return expired, err
}
