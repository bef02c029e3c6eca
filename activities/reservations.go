package activities

import (
	"context"

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
func (a *Reservations) Expire(ctx context.Context, in packing.ReservationInput) (bool, error) {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	expired, err := packing.ExpireReservation(w, in.ReservationID)
	if err != nil || !expired {
		w.Rollback()
		return false, err
	}
	return true, domain.Commit(w, domain.AuditEntry{Operation: "expireReservation"})
}

// Status reads the reservation's status, for an expiry run to find out
// whether its reservation ended before the run started.
func (a *Reservations) Status(ctx context.Context, in packing.ReservationInput) (string, error) {
	r, err := domain.Find[packing.Reservation](ctx, a.DB, in.OrganizationID, in.ReservationID)
	if err != nil {
		return "", err
	}
	return r.Status, nil
}
