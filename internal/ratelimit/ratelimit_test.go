package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// Under the spec's limits every request is charged in Postgres, so two
// replicas together admit exactly the limit.
func TestExactAcrossReplicasUnderSmallLimits(t *testing.T) {
	db := testenv.DB(t)
	replicas := []*Limiter{New(db), New(db)}
	bucket := "user:" + uuid.NewString()
	allowed := 0
	var lastWait int
	for i := range 10 {
		ok, wait, err := replicas[i%2].Allow(context.Background(), bucket, 4)
		require.NoError(t, err)
		if ok {
			allowed++
		} else {
			lastWait = wait
		}
	}
	assert.Equal(t, 4, allowed)
	assert.GreaterOrEqual(t, lastWait, 1)
	for _, l := range replicas {
		assert.Equal(t, 1, l.lease(bucket).size, "no batching at 4 per minute")
	}
}

// Under a high limit a fast client is served from growing leases, and the
// limit still holds across replicas.
func TestLeasesUnderHighLimits(t *testing.T) {
	db := testenv.DB(t)
	replicas := []*Limiter{New(db), New(db)}
	bucket := "user:" + uuid.NewString()
	const perMinute = 120_000 // 2000 per second; the burst is 120 000
	start := time.Now()
	allowed := 0
	for i := range 2000 {
		ok, _, err := replicas[i%2].Allow(context.Background(), bucket, perMinute)
		require.NoError(t, err)
		if ok {
			allowed++
		}
	}
	assert.Equal(t, 2000, allowed, "well within the burst")
	assert.Greater(t, replicas[0].lease(bucket).size, 1, "a fast client is leased in batches")
	assert.LessOrEqual(t, replicas[0].lease(bucket).size, perMinute/1200)

	// Everything taken, leased or spent, is counted in the shared bucket.
	var consumedSeconds float64
	require.NoError(t, db.Raw(`SELECT extract(epoch FROM tat - ?::timestamptz) FROM rate_limit_buckets WHERE bucket = ?`, start, bucket).Scan(&consumedSeconds).Error)
	taken := consumedSeconds * perMinute / 60
	assert.GreaterOrEqual(t, taken, 2000.0-1, "every admitted request was charged")
}

// A lease that expires unspent sizes the next one by what the client
// spent of it, so a steady client is not charged one request at a time
// again, and one that slowed down goes back to exact.
func TestLeaseFollowsTheClientsRate(t *testing.T) {
	l := New(testenv.DB(t))
	bucket := "user:" + uuid.NewString()
	const perMinute = 120_000
	allow := func(n int) {
		t.Helper()
		for range n {
			ok, _, err := l.Allow(context.Background(), bucket, perMinute)
			require.NoError(t, err)
			require.True(t, ok)
		}
	}
	allow(1 + 2 + 4 + 8 + 1)
	ls := l.lease(bucket)
	require.Equal(t, 16, ls.size, "leases doubled while spent at once")
	// Five of the sixteen spent when it expires: the client's rate is
	// five a lease.
	allow(4)
	ls.expires = time.Now().Add(-time.Millisecond)
	allow(1)
	assert.Equal(t, 5, ls.size)
	assert.Equal(t, 4, ls.left)

	ls.expires = time.Now().Add(-time.Millisecond)
	allow(1)
	assert.Equal(t, 1, ls.size, "one of five spent: exact again")
}
