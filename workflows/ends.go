package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// recordEnd is how a run that waits for a deadline learns that its record
// ended first: a reservation consumed or released before it expires, an
// authority request answered before its reminder, a supplier request
// closed before it is overdue. The change that ends the record records
// the start of a small run of its own, which signals this one
// (signalRun). Relays on several workers start recorded runs at once, so
// that run may start before this one; its signal then finds no run and is
// dropped. But the end committed before its start was recorded, so this
// run reads its record's status before it waits, and does not wait for a
// record that has ended. Runs that came here before that check existed
// replay without it (the version marker): their end was signalled, or
// the deadline's own activity checks the record.
type recordEnd struct {
	// signal tells the run that its record ended; a reservation's carries
	// its new status, the others nothing.
	signal string
	// status is the activity that reads the record's status, and ended
	// tells a status of a record that has ended.
	status any
	ended  func(status string) bool
}

// waitUntil waits until at unless the record of in ends first, and
// reports whether it ended, with the status it ended in: the one read, or
// the one the signal carried ("" for a signal that carries none). ctx
// carries the status activity's options.
func (e recordEnd) waitUntil(ctx workflow.Context, in any, at time.Time) (bool, string, error) {
	if workflow.GetVersion(ctx, "ended-before-start", workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		var status string
		if err := workflow.ExecuteActivity(ctx, e.status, in).Get(ctx, &status); err != nil {
			return false, "", err
		}
		if e.ended(status) {
			return true, status, nil
		}
	}
	wait := at.Sub(workflow.Now(ctx))
	if wait <= 0 {
		return false, "", nil
	}
	timerCtx, stopTimer := workflow.WithCancel(ctx)
	ended, status := false, ""
	workflow.NewSelector(ctx).
		AddFuture(workflow.NewTimer(timerCtx, wait), func(workflow.Future) {}).
		AddReceive(workflow.GetSignalChannel(ctx, e.signal), func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &status)
			ended = true
			stopTimer()
		}).
		Select(ctx)
	return ended, status, nil
}
