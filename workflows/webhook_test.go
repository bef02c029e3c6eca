package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/webhooks"
)

// attemptClock records the virtual time of every delivery attempt.
type attemptClock struct {
	env   *testsuite.TestWorkflowEnvironment
	times []time.Time
}

func (a *attemptClock) fail(n int) func(context.Context, webhooks.DeliveryInput) error {
	return func(context.Context, webhooks.DeliveryInput) error {
		a.times = append(a.times, a.env.Now())
		if len(a.times) <= n {
			return errors.New("receiver answered 500")
		}
		return nil
	}
}

func (a *attemptClock) gaps() []time.Duration {
	var out []time.Duration
	for i := 1; i < len(a.times); i++ {
		out = append(out, a.times[i].Sub(a.times[i-1]).Round(time.Second))
	}
	return out
}

func newWebhookEnv(t *testing.T) (*testsuite.TestWorkflowEnvironment, *activities.Webhooks) {
	env := newTestEnv()
	w := &activities.Webhooks{}
	env.RegisterActivity(w)
	return env, w
}

var defaultSchedule = webhooks.DeliveryInput{Org: domain.OrgOf(uuid.New()), DeliveryID: uuid.New(), EventID: uuid.New(), EndpointID: uuid.New(),
	RetryInitial: 30 * time.Second, RetryFor: 72 * time.Hour}

// Failed attempts are retried with exponential backoff from the initial
// interval; time skipping lets the test see the real schedule.
func TestWebhookRetriesWithExponentialBackoff(t *testing.T) {
	env, w := newWebhookEnv(t)
	clock := &attemptClock{env: env}
	env.OnActivity(w.Deliver, mock.Anything, defaultSchedule).Return(clock.fail(4))

	env.ExecuteWorkflow(DeliverWebhook, defaultSchedule)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	assert.Len(t, clock.times, 5, "four failures, then the success")
	assert.Equal(t, []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute}, clock.gaps())
	env.AssertNotCalled(t, "MarkFailed", mock.Anything, mock.Anything, mock.Anything)
}

// A receiver that never answers 2xx is retried for about three days, the
// gaps capped at six hours; then the delivery is recorded as failed and the
// run fails so operators see it.
func TestWebhookGivesUpAfterTheRetryWindow(t *testing.T) {
	env, w := newWebhookEnv(t)
	clock := &attemptClock{env: env}
	env.OnActivity(w.Deliver, mock.Anything, defaultSchedule).Return(clock.fail(1 << 30))
	var failedReason string
	env.OnActivity(w.MarkFailed, mock.Anything, defaultSchedule, mock.Anything).Return(func(_ context.Context, _ webhooks.DeliveryInput, reason string) error {
		failedReason = reason
		return nil
	})
	start := env.Now()

	env.ExecuteWorkflow(DeliverWebhook, defaultSchedule)
	require.True(t, env.IsWorkflowCompleted())
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &appErr)
	assert.Equal(t, "WebhookDeliveryFailed", appErr.Type())
	assert.Contains(t, failedReason, "receiver answered 500")

	gaps := clock.gaps()
	assert.Equal(t, 6*time.Hour, gaps[len(gaps)-1], "the backoff is capped at six hours")
	last := clock.times[len(clock.times)-1]
	assert.WithinDuration(t, start.Add(72*time.Hour), last, 6*time.Hour, "attempts continue for about three days")
	assert.Greater(t, len(clock.times), 15)
}

// A disabled endpoint cannot be fixed by retrying: one attempt, then failed.
func TestWebhookStopsForUnusableEndpoints(t *testing.T) {
	env, w := newWebhookEnv(t)
	calls := 0
	env.OnActivity(w.Deliver, mock.Anything, defaultSchedule).Return(func(context.Context, webhooks.DeliveryInput) error {
		calls++
		return temporal.NewNonRetryableApplicationError("endpoint is disabled", activities.ErrEndpointUnusable, nil)
	})
	env.OnActivity(w.MarkFailed, mock.Anything, defaultSchedule, mock.Anything).Return(nil)

	env.ExecuteWorkflow(DeliverWebhook, defaultSchedule)
	require.Error(t, env.GetWorkflowError())
	assert.Equal(t, 1, calls)
	env.AssertCalled(t, "MarkFailed", mock.Anything, defaultSchedule, mock.Anything)
}
