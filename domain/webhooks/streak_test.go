package webhooks_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
)

// A streak counts the failures since the latest success, newest first, and
// says when it reaches past the deliveries it reads.
func TestStreaksCountFailuresSinceTheLatestSuccess(t *testing.T) {
	db := testenv.DB(t)
	o := attentiontest.NewOrg(t, db)
	recovering := o.Endpoint(t, "http://127.0.0.1:9/recovering")
	o.Delivery(t, recovering.ID, webhooks.DeliveryFailed, "receiver answered 500")
	ok := o.Delivery(t, recovering.ID, webhooks.DeliverySucceeded, "")
	o.Delivery(t, recovering.ID, webhooks.DeliveryFailed, "receiver answered 502")
	o.Delivery(t, recovering.ID, webhooks.DeliveryPending, "receiver answered 503")
	healthy := o.Endpoint(t, "http://127.0.0.1:9/healthy")
	o.Delivery(t, healthy.ID, webhooks.DeliveryFailed, "receiver answered 500")
	o.Delivery(t, healthy.ID, webhooks.DeliverySucceeded, "")
	down := o.Endpoint(t, "http://127.0.0.1:9/down")
	for range webhooks.StreakWindow + 1 {
		o.Delivery(t, down.ID, webhooks.DeliveryFailed, "connection refused")
	}
	never := o.Endpoint(t, "http://127.0.0.1:9/never")
	o.Delivery(t, never.ID, webhooks.DeliveryFailed, "certificate expired")
	quiet := o.Endpoint(t, "http://127.0.0.1:9/quiet")
	other := attentiontest.NewOrg(t, db)
	other.Delivery(t, other.Endpoint(t, "http://127.0.0.1:9/other").ID, webhooks.DeliveryFailed, "elsewhere")

	streaks, err := webhooks.Streaks(t.Context(), db, o.ID)
	require.NoError(t, err)
	require.Len(t, streaks, 4, "endpoints with an attempted delivery, of this organization only")
	assert.NotContains(t, streaks, quiet.ID)

	r := streaks[recovering.ID]
	assert.Equal(t, 2, r.Failing, "the pending retry and the failure after the success")
	assert.Equal(t, "receiver answered 503", r.LastError, "the newest failure's")
	require.NotNil(t, r.LastSuccessAt)
	assert.WithinDuration(t, *ok.CompletedAt, *r.LastSuccessAt, time.Microsecond, "the success's, as PostgreSQL keeps it")
	assert.False(t, r.Beyond)

	h := streaks[healthy.ID]
	assert.Zero(t, h.Failing)
	assert.Empty(t, h.LastError, "a failure before the success is over")
	assert.NotNil(t, h.LastSuccessAt)

	d := streaks[down.ID]
	assert.Equal(t, webhooks.StreakWindow, d.Failing)
	assert.True(t, d.Beyond, "no success among the deliveries read")
	assert.Nil(t, d.LastSuccessAt)

	n := streaks[never.ID]
	assert.Equal(t, 1, n.Failing)
	assert.False(t, n.Beyond, "every delivery was read")
	assert.Nil(t, n.LastSuccessAt)
	assert.Equal(t, "certificate expired", n.LastError)
}
