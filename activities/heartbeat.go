package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// beating heartbeats the activity while a call that cannot report
// progress waits, such as a file streamed to clamd. Without it an attempt
// that waits on a frozen service longer than its heartbeat timeout is
// taken for dead: Temporal starts another attempt while the first still
// waits, and the two finish in any order. With it, only a worker that
// stops is taken for dead. stop ends the heartbeats.
func beating(ctx context.Context) (stop func()) {
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
