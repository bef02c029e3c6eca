// Package ratelimit enforces per-user request limits that every API
// replica shares through Postgres (ppwr_take_rate_tokens).
//
// Under limits of up to 20 requests per second (the spec's 120 per minute
// among them) every request costs one Postgres call and is limited exactly.
// Under higher limits a client that spends its requests faster than they
// expire makes its replica take them in growing batches (leases), spent
// locally for up to a second, so that such a client does not write to
// Postgres on every request. Leased requests are already counted in the
// shared bucket, so a limit is never exceeded; an unspent lease only means
// the client is refused a little early, by at most one lease (a twentieth
// of a second's worth of requests) per replica.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"gorm.io/gorm"
)

const (
	// leaseLife is how long leased requests may be spent locally.
	leaseLife = time.Second
	// maxLease caps a lease at this many requests.
	maxLease = 256
)

// Limiter holds this replica's leases.
type Limiter struct {
	db     *gorm.DB
	mu     sync.Mutex
	leases map[string]*lease
}

type lease struct {
	mu      sync.Mutex
	left    int
	expires time.Time
	size    int
	// taken is how many requests the lease took, fewer than size near
	// the limit.
	taken int
}

// New returns a limiter on db.
func New(db *gorm.DB) *Limiter { return &Limiter{db: db, leases: map[string]*lease{}} }

// Allow charges one request against bucket (perMinute requests per rolling
// minute). When it refuses, it returns the whole seconds to wait.
func (l *Limiter) Allow(ctx context.Context, bucket string, perMinute int) (bool, int, error) {
	ls := l.lease(bucket)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := time.Now()
	if ls.left > 0 && now.Before(ls.expires) {
		ls.left--
		return true, 0, nil
	}
	// A lease spent before it expired means the client is fast: take twice
	// as many next time. One that expired takes what the client spent of
	// it in its life, so a steady client keeps to its rate rather than
	// growing its leases again from one, and a slower one goes back
	// towards exact, one at a time.
	largest := min(maxLease, max(1, perMinute/1200))
	if ls.left == 0 && now.Before(ls.expires) {
		ls.size = min(2*ls.size, largest)
	} else {
		ls.size = min(max(1, ls.taken-ls.left), largest)
	}
	granted, wait, err := takeTokens(ctx, l.db, bucket, perMinute, ls.size)
	if err != nil {
		return false, 0, err
	}
	if granted == 0 {
		ls.left = 0
		return false, wait, nil
	}
	ls.taken, ls.left, ls.expires = granted, granted-1, now.Add(leaseLife)
	return true, 0, nil
}

func (l *Limiter) lease(bucket string) *lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls, ok := l.leases[bucket]
	if !ok {
		if len(l.leases) > 100_000 { // idle buckets of a long run: start over
			l.leases = map[string]*lease{}
		}
		ls = &lease{size: 1}
		l.leases[bucket] = ls
	}
	return ls
}

// takeTokens takes up to want requests from bucket under a limit of
// perMinute requests per rolling minute (ppwr_take_rate_tokens in the
// migrations). It returns how many were granted and, when none was, the
// whole seconds to wait (at least 1).
func takeTokens(ctx context.Context, db *gorm.DB, bucket string, perMinute, want int) (int, int, error) {
	var granted int
	var waitSeconds float64
	// At least a microsecond: limits above 60 million a minute (load tests)
	// are treated as that.
	interval := max(1, (time.Minute / time.Duration(perMinute)).Microseconds())
	// Read by position: nearly every request under the spec's limit makes
	// this call, and matching the columns to a struct's fields by
	// reflection cost it more than the values themselves.
	err := db.WithContext(ctx).Raw(`SELECT granted, wait_seconds FROM ppwr_take_rate_tokens(?, ?, ?)`, bucket, interval, want).
		Row().Scan(&granted, &waitSeconds)
	if err != nil || granted > 0 {
		return granted, 0, err
	}
	return 0, max(1, int(math.Ceil(waitSeconds))), nil
}

// PurgeIdle deletes buckets whose state has fully drained: they
// behave exactly like a missing row.
func PurgeIdle(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM rate_limit_buckets WHERE tat < clock_timestamp()`)
	return res.RowsAffected, res.Error
}
