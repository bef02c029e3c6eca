package database

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reconnection delays of Listen: short at first, so a restarted server is
// followed again at once, and bounded, so a long outage is retried often
// enough.
const (
	listenMinBackoff = 100 * time.Millisecond
	listenMaxBackoff = 10 * time.Second
)

// Listen follows the notification channel until ctx ends, on a connection
// of its own: LISTEN is session state, which a pooled connection (or a
// transaction-pooling proxy) does not keep. listening(true) runs once
// LISTEN is in place, from when no notification can be missed, and
// listening(false) when that connection is gone; notified runs for every
// notification. A lost connection is reopened after a backoff that starts
// over once listening again. Notifications sent while not listening are
// lost, so a caller that needs them must catch up on listening(true).
func Listen(ctx context.Context, url, channel string, listening func(on bool), notified func()) {
	backoff := listenMinBackoff
	for {
		err := listenOnce(ctx, url, channel, func() {
			backoff = listenMinBackoff
			listening(true)
		}, notified)
		listening(false)
		if ctx.Err() != nil {
			return
		}
		slog.WarnContext(ctx, "stopped listening for notifications; reconnecting", "channel", channel, "error", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, listenMaxBackoff)
	}
}

func listenOnce(ctx context.Context, url, channel string, listening, notified func()) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	listening()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		notified()
	}
}
