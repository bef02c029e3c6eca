package models

import (
	"context"
	"math"
	"time"

	"gorm.io/gorm"
)

// RateBucket is a per-user limit to charge: the bucket key is
// "user:<id>" plus Suffix.
type RateBucket struct {
	Suffix    string
	PerMinute int
}

// intervalMicros is the spacing of requests once the burst is spent.
func (b RateBucket) intervalMicros() int64 {
	return (time.Minute / time.Duration(b.PerMinute)).Microseconds()
}

// retryAfter turns the database's fractional wait into the whole seconds
// of a Retry-After header (at least 1).
func retryAfter(waitSeconds float64) int { return max(1, int(math.Ceil(waitSeconds))) }

// PurgeIdleRateBuckets deletes buckets whose state has fully drained: they
// behave exactly like a missing row.
func PurgeIdleRateBuckets(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM rate_limit_buckets WHERE tat < clock_timestamp()`)
	return res.RowsAffected, res.Error
}
