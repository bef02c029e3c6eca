package packing

import (
	"github.com/google/uuid"

	"ppwr/domain"
)

// The areas below are not built yet; their data is the changed record's id
// and revision or status, and may gain fields (never lose any) when built.

// PackagingSystemRevision is the data of the packaging-system events.
type PackagingSystemRevision struct {
	PackagingSystemID uuid.UUID `json:"packaging_system_id"`
	Revision          int       `json:"revision"`
}

type PackagingSystemCreated PackagingSystemRevision

type PackagingSystemUpdated PackagingSystemRevision

type PackagingSystemArchived PackagingSystemRevision

type PackagingSystemRestored PackagingSystemRevision

type PackagingSystemConsumed PackagingSystemRevision

func (PackagingSystemCreated) EventType() string { return "packaging_system.created" }

func (PackagingSystemUpdated) EventType() string { return "packaging_system.updated" }

func (PackagingSystemArchived) EventType() string { return "packaging_system.archived" }

func (PackagingSystemRestored) EventType() string { return "packaging_system.restored" }

func (PackagingSystemConsumed) EventType() string { return "packaging_system.consumed" }

// ReservationStatus is the data of the reservation events.
type ReservationStatus struct {
	ReservationID uuid.UUID `json:"reservation_id"`
	Status        string    `json:"status"`
}

type ReservationCreated ReservationStatus

type ReservationConsumed ReservationStatus

type ReservationReleased ReservationStatus

type ReservationExpired ReservationStatus

func (ReservationCreated) EventType() string { return "reservation.created" }

func (ReservationConsumed) EventType() string { return "reservation.consumed" }

func (ReservationReleased) EventType() string { return "reservation.released" }

func (ReservationExpired) EventType() string { return "reservation.expired" }

type PackingConsumptionCreated domain.RecordCreated

func (PackingConsumptionCreated) EventType() string { return "packing_consumption.created" }
