package models

import (
	"github.com/google/uuid"

	"ppwr/internal/work"
)

// One packing path per parcel: a reservation (then its consumption), a set
// consumption or a packing consumption claims the parcel's order reference
// in its transaction; any other path, or a second use of the same one,
// finds the claim and is refused. A concurrent claim of the same reference
// waits for the first to commit or roll back.

// Packing paths that claim a parcel.
const (
	PathReservation        = "reservation"
	PathSetConsumption     = "set_consumption"
	PathPackingConsumption = "packing_consumption"
)

// ErrOrderReferenceUsed refuses a second packing of one parcel.
var ErrOrderReferenceUsed = &ConflictError{Code: "order_reference_used", Key: "error.order_reference_used"}

// ClaimParcel claims orderReference for the record packing it by path.
func ClaimParcel(w *work.Unit, orderReference, path string, recordID uuid.UUID) error {
	res := w.Tx().Exec(`INSERT INTO parcel_claims (organization_id, order_reference, path, record_id) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, w.Organization(), orderReference, path, recordID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrOrderReferenceUsed
	}
	return nil
}

// ReleaseParcel gives up the claim of a record that packed nothing (a
// released or expired reservation), so the parcel can be packed again.
func ReleaseParcel(w *work.Unit, recordID uuid.UUID) error {
	return w.Tx().Exec(`DELETE FROM parcel_claims WHERE organization_id = ? AND record_id = ?`, w.Organization(), recordID).Error
}
