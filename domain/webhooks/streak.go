package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// StreakWindow is how many of an endpoint's latest attempted deliveries a
// streak reads: enough to tell a receiver down for a while from a hiccup,
// without walking an endpoint's whole history on every page view.
const StreakWindow = 50

// Streak is how an endpoint's latest attempted deliveries went, for an
// operator who asks whether a receiver is down and since when.
type Streak struct {
	// Failing is how many of the latest attempted deliveries failed, or
	// are being retried after failing, since the last that succeeded.
	Failing int
	// Beyond says no delivery within the window succeeded, so Failing is
	// only the least the streak can be.
	Beyond bool
	// LastSuccessAt is when the latest success within the window was
	// delivered.
	LastSuccessAt *time.Time
	// LastError is the latest failing delivery's error.
	LastError string
}

// Streaks are the streaks of the organization's endpoints that have had
// an attempted delivery, by endpoint.
func Streaks(ctx context.Context, db *gorm.DB, orgID uuid.UUID) (map[uuid.UUID]Streak, error) {
	var rows []struct {
		EndpointID  uuid.UUID
		Status      string
		LastError   string
		CompletedAt *time.Time
	}
	err := db.WithContext(ctx).Raw(`SELECT d.endpoint_id, d.status, d.last_error, d.completed_at
		FROM webhook_endpoints e CROSS JOIN LATERAL (
			SELECT d.endpoint_id, d.id, d.status, d.last_error, d.completed_at FROM webhook_deliveries d
			WHERE d.endpoint_id = e.id AND d.attempts > 0 ORDER BY d.id DESC LIMIT ?) d
		WHERE e.organization_id = ? ORDER BY d.endpoint_id, d.id DESC`, StreakWindow, orgID).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	streaks := map[uuid.UUID]Streak{}
	ended := map[uuid.UUID]bool{}
	for _, r := range rows {
		s := streaks[r.EndpointID]
		switch {
		case ended[r.EndpointID]:
			continue
		case r.Status == DeliverySucceeded:
			s.LastSuccessAt, ended[r.EndpointID] = r.CompletedAt, true
		default:
			if s.Failing == 0 {
				s.LastError = r.LastError
			}
			s.Failing++
		}
		streaks[r.EndpointID] = s
	}
	for id, s := range streaks {
		if !ended[id] && s.Failing == StreakWindow {
			s.Beyond = true
			streaks[id] = s
		}
	}
	return streaks, nil
}
