package webhooks_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/webhooks"
)

// A failed attempt records the attempt Temporal's retry policy makes next:
// RetryInitial after the first, doubling up to six hours, none past the
// retry window.
func TestWebhookNextAttemptFollowsTheRetryPolicy(t *testing.T) {
	in := webhooks.DeliveryInput{RetryInitial: 30 * time.Second, RetryFor: 72 * time.Hour}
	created := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for attempt, pause := range map[int]time.Duration{
		1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 10: 30 * time.Second << 9,
		11: 6 * time.Hour, 500: 6 * time.Hour,
	} {
		failed := created.Add(time.Hour)
		next := in.NextAttempt(created, failed, attempt)
		require.NotNil(t, next, "attempt %d", attempt)
		assert.Equal(t, failed.Add(pause), *next, "attempt %d", attempt)
	}
	assert.Nil(t, in.NextAttempt(created, created.Add(70*time.Hour), 20), "past the window nothing follows")
}
