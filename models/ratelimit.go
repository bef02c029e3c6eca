package models

import (
	"context"
	"math"
	"time"

	"gorm.io/gorm"
)

// TakeRateToken charges one request against bucket under a limit of
// perMinute requests per rolling minute (generic cell rate algorithm: a burst
// of perMinute is allowed, then one request every minute/perMinute). It
// returns whether the request is allowed and, if not, the whole seconds to
// wait. The database clock is used so that replicas with skewed clocks agree.
func TakeRateToken(ctx context.Context, db *gorm.DB, bucket string, perMinute int) (bool, int, error) {
	us := (time.Minute / time.Duration(perMinute)).Microseconds()
	var row struct {
		Allowed bool
		WaitMs  float64
	}
	// tat is the theoretical arrival time: the moment the bucket would be
	// empty again. A request fits when advancing tat by one interval keeps it
	// within a minute of now.
	err := db.WithContext(ctx).Raw(`
WITH now AS (SELECT clock_timestamp() AS t)
INSERT INTO rate_limit_buckets AS b (bucket, tat, allowed)
SELECT ?, now.t + (?::bigint * interval '1 microsecond'), true FROM now
ON CONFLICT (bucket) DO UPDATE SET
    allowed = GREATEST(b.tat, clock_timestamp()) + (?::bigint * interval '1 microsecond') <= clock_timestamp() + interval '1 minute',
    tat = CASE WHEN GREATEST(b.tat, clock_timestamp()) + (?::bigint * interval '1 microsecond') <= clock_timestamp() + interval '1 minute'
               THEN GREATEST(b.tat, clock_timestamp()) + (?::bigint * interval '1 microsecond') ELSE b.tat END
RETURNING allowed,
    EXTRACT(EPOCH FROM (tat + (?::bigint * interval '1 microsecond') - interval '1 minute' - clock_timestamp())) * 1000 AS wait_ms`,
		bucket, us, us, us, us, us).Scan(&row).Error
	if err != nil {
		return false, 0, err
	}
	if row.Allowed {
		return true, 0, nil
	}
	return false, max(1, int(math.Ceil(row.WaitMs/1000))), nil
}

// PurgeIdleRateBuckets deletes buckets whose state has fully drained: they
// behave exactly like a missing row.
func PurgeIdleRateBuckets(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM rate_limit_buckets WHERE tat < clock_timestamp()`)
	return res.RowsAffected, res.Error
}
