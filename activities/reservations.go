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
	return recordStatus(ctx, a.DB, in.OrganizationID, in.ReservationID, func(r *packing.Reservation) string { return r.Status })
}

// recordStatus reads the organization's record id of type T and answers
// its status, for a run that waits for a deadline to find out whether its
// record ended before the run started (the end's signal, sent then, was
// lost).
func recordStatus[T any](ctx context.Context, db *gorm.DB, org, id uuid.UUID, status func(*T) string) (string, error) {
	r, err := domain.Find[T](ctx, db, org, id)
	if err != nil {
		return "", err
	}
	return status(r), nil
}
