package models_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
	"ppwr/models"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestTakeRateTokenAllowsExactlyTheBurst(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	// A low limit makes the emission interval (20s) far longer than the
	// test, so no token can be refilled while it runs.
	const perMinute = 3
	bucket := "user:" + uuid.NewString()

	for i := range perMinute {
		ok, wait, err := models.TakeRateToken(ctx, db, bucket, perMinute)
		require.NoError(t, err)
		assert.True(t, ok, "request %d of the burst", i+1)
		assert.Zero(t, wait)
	}
	ok, wait, err := models.TakeRateToken(ctx, db, bucket, perMinute)
	require.NoError(t, err)
	assert.False(t, ok, "request beyond the burst")
	assert.GreaterOrEqual(t, wait, 1)
	assert.LessOrEqual(t, wait, 60/perMinute, "one emission interval frees the next token")

	// A refused request must not push the bucket further into the future.
	_, wait2, err := models.TakeRateToken(ctx, db, bucket, perMinute)
	require.NoError(t, err)
	assert.LessOrEqual(t, wait2, wait)

	var allowed bool
	require.NoError(t, db.Raw(`SELECT allowed FROM rate_limit_buckets WHERE bucket = ?`, bucket).Scan(&allowed).Error)
	assert.False(t, allowed)
}

func TestTakeRateTokenBucketsAreIndependent(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	exhausted, other := "user:"+uuid.NewString(), "user:"+uuid.NewString()

	ok, _, err := models.TakeRateToken(ctx, db, exhausted, 1)
	require.NoError(t, err)
	require.True(t, ok)
	ok, _, err = models.TakeRateToken(ctx, db, exhausted, 1)
	require.NoError(t, err)
	require.False(t, ok)

	ok, wait, err := models.TakeRateToken(ctx, db, other, 1)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Zero(t, wait)
}
