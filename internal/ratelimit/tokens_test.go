package ratelimit

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
)

func take(t *testing.T, bucket string, perMinute, want int) (int, int) {
	t.Helper()
	granted, wait, err := takeTokens(context.Background(), testenv.DB(t), bucket, perMinute, want)
	require.NoError(t, err)
	return granted, wait
}

func TestTakeRateTokensAllowsExactlyTheBurst(t *testing.T) {
	bucket := "user:" + uuid.NewString()
	// A low limit makes the emission interval (20 s) far longer than the
	// test, so nothing is refilled while it runs.
	for i := range 3 {
		granted, wait := take(t, bucket, 3, 1)
		assert.Equal(t, 1, granted, "request %d of the burst", i+1)
		assert.Zero(t, wait)
	}
	granted, wait := take(t, bucket, 3, 1)
	assert.Zero(t, granted, "beyond the burst")
	assert.GreaterOrEqual(t, wait, 1)
	assert.LessOrEqual(t, wait, 20, "one emission interval frees the next request")

	// A refused request does not push the bucket further into the future.
	_, again := take(t, bucket, 3, 1)
	assert.LessOrEqual(t, again, wait)
}

// A lease takes what fits and never more than the burst in total.
func TestTakeRateTokensLeases(t *testing.T) {
	bucket := "user:" + uuid.NewString()
	granted, _ := take(t, bucket, 10, 4)
	assert.Equal(t, 4, granted)
	granted, _ = take(t, bucket, 10, 4)
	assert.Equal(t, 4, granted)
	granted, _ = take(t, bucket, 10, 4)
	assert.Equal(t, 2, granted, "only two are left of the ten")
	granted, wait := take(t, bucket, 10, 4)
	assert.Zero(t, granted)
	assert.GreaterOrEqual(t, wait, 1)

	fresh := "user:" + uuid.NewString()
	granted, _ = take(t, fresh, 5, 50)
	assert.Equal(t, 5, granted, "a new bucket grants at most its burst")
	other, _ := take(t, "user:"+uuid.NewString(), 5, 1)
	assert.Equal(t, 1, other, "buckets are independent")
}

func TestPurgeIdleRateBucketsKeepsLiveState(t *testing.T) {
	db := testenv.DB(t)
	live := "user:" + uuid.NewString()
	take(t, live, 1, 1)
	require.NoError(t, db.Exec(`INSERT INTO rate_limit_buckets (bucket, tat, granted) VALUES ('user:drained', now() - interval '1 second', 1)`).Error)

	_, err := PurgeIdle(context.Background(), db)
	require.NoError(t, err)
	var buckets []string
	require.NoError(t, db.Table("rate_limit_buckets").Pluck("bucket", &buckets).Error)
	assert.Contains(t, buckets, live)
	assert.NotContains(t, buckets, "user:drained")
}
