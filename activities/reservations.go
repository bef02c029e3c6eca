package activities

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/packing"
)

// Reservations runs the expiry of reservations.
type Reservations struct {
	DB *gorm.DB
}

// Expire expires the reservation if it is still held, acting as the
// system in its workflow; otherwise it changes nothing, so a retry or a
// timer firing after a consumption or release is harmless. It reports
// whether it expired the reservation.
func (a *Reservations) Expire(ctx context.Context, reservationID uuid.UUID) (bool, error) {
	var r packing.Reservation
	if err := a.DB.WithContext(ctx).Select("id", "organization_id").First(&r, "id = ?", reservationID).Error; err != nil {
		return false, err
	}
	w := systemUnit(ctx, a.DB, r.OrganizationID)
	expired, err := packing.ExpireReservation(w, r.ID)
	if err != nil || !expired {
		w.Rollback()
		return false, err
	}
	return true, domain.Commit(w, domain.AuditEntry{Operation: "expireReservation"})
}
