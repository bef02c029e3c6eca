package models

import (
	"context"
	"math"
	"time"

	"gorm.io/gorm"
)

// TakeRateTokens takes up to want requests from bucket under a limit of
// perMinute requests per rolling minute (ppwr_take_rate_tokens in the
// migrations). It returns how many were granted and, when none was, the
// whole seconds to wait (at least 1).
func TakeRateTokens(ctx context.Context, db *gorm.DB, bucket string, perMinute, want int) (int, int, error) {
	var row struct {
		Granted     int
		WaitSeconds float64
	}
	// At least a microsecond: limits above 60 million a minute (load tests)
	// are treated as that.
	interval := max(1, (time.Minute / time.Duration(perMinute)).Microseconds())
	err := db.WithContext(ctx).Raw(`SELECT granted, wait_seconds FROM ppwr_take_rate_tokens(?, ?, ?)`, bucket, interval, want).Scan(&row).Error
	if err != nil || row.Granted > 0 {
		return row.Granted, 0, err
	}
	return 0, max(1, int(math.Ceil(row.WaitSeconds))), nil
}

// PurgeIdleRateBuckets deletes buckets whose state has fully drained: they
// behave exactly like a missing row.
func PurgeIdleRateBuckets(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM rate_limit_buckets WHERE tat < clock_timestamp()`)
	return res.RowsAffected, res.Error
}
