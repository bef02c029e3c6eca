package database_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/database"
	"ppwr/internal/testenv"
)

// A notification reaches the listener; a connection the server drops is
// reopened, and notifications reach the listener again.
func TestListenFollowsTheChannelAcrossReconnections(t *testing.T) {
	db := testenv.DB(t)
	channel := "test_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	var listening atomic.Bool
	var sessions atomic.Int32
	notified := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		database.Listen(ctx, testenv.DatabaseURL(t), channel, func(on bool) {
			listening.Store(on)
			if on {
				sessions.Add(1)
			}
		}, func() { notified <- struct{}{} })
	}()
	t.Cleanup(func() { cancel(); <-stopped })

	notifyAndWait := func() {
		t.Helper()
		require.NoError(t, db.Exec("SELECT pg_notify(?, '')", channel).Error)
		select {
		case <-notified:
		case <-time.After(10 * time.Second):
			t.Fatal("the notification did not arrive")
		}
	}
	require.Eventually(t, listening.Load, 10*time.Second, 10*time.Millisecond)
	notifyAndWait()

	var dropped int
	require.NoError(t, db.Raw(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = current_database() AND query = ?`, `LISTEN "`+channel+`"`).Scan(&dropped).Error)
	require.Equal(t, 1, dropped, "the listening session was found and dropped")
	require.Eventually(t, func() bool { return sessions.Load() == 2 && listening.Load() }, 10*time.Second, 10*time.Millisecond,
		"listening again on a new connection")
	notifyAndWait()

	cancel()
	<-stopped
	assert.False(t, listening.Load(), "not listening once stopped")
}
