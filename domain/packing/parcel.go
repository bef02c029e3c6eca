package packing

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

// ClaimParcel claims orderReference for the record packing it by path,
// with w's other writes at its commit: a parcel claimed already fails the
// commit with ErrOrderReferenceUsed, and nothing of w is written.
func ClaimParcel(w *work.Unit, orderReference, path string, recordID uuid.UUID) {
	w.DeferExec(`INSERT INTO parcel_claims (organization_id, order_reference, path, record_id) VALUES ($1, $2, $3, $4)`,
		w.Organization(), orderReference, path, recordID)
}

// ReleaseParcel gives up the claim of a record that packed nothing (a
// released or expired reservation), so the parcel can be packed again.
func ReleaseParcel(w *work.Unit, recordID uuid.UUID) error {
	return w.Tx().Exec(`DELETE FROM parcel_claims WHERE organization_id = ? AND record_id = ?`, w.Organization(), recordID).Error
}
