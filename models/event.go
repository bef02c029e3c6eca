package models

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// EventSchemaVersion is the version of the delivered body's shape.
const EventSchemaVersion = 1

// EventTypes is the catalogue of outbound event types: one stable dotted
// name per state change of the spec's resources. Each area emits its
// types as it is built; the README and the OpenAPI "webhooks" section are
// generated from this list.
var EventTypes = []string{
	"catalog_item.created", "catalog_item.updated", "catalog_item.archived", "catalog_item.restored",
	"component.created", "markets.changed",
	"family.created", "family.updated", "folder.created", "folder.updated", "folder.deleted", "party.created",
	"packaging_system.created", "packaging_system.updated", "packaging_system.archived", "packaging_system.restored",
	"packaging_system.consumed",
	"reservation.created", "reservation.consumed", "reservation.released", "reservation.expired",
	"packing_consumption.created", "supply_event.created", "flow.created",
	"document_version.created", "document_version.processed", "document_version.decided",
	"evidence_proposal.created", "evidence_proposal.decided", "traceability_link.created", "generated_document.created",
	"supplier_request.created", "supplier_request.sent", "supplier_request.cancelled", "supplier_request_line.reviewed",
	"import.ready", "import.completed", "import.failed",
	"assessment.created", "assessment.reviewed", "register_entry.created", "register_entry.reviewed",
	"bdo_report.prepared", "carbon_calculation.created", "carbon_factor.created", "carbon_factor.archived",
}

// Event is an outbox row: written in the transaction of the change it
// announces, so it exists if and only if that change committed.
type Event struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Type           string
	Body           string
	CreatedAt      time.Time
	RelayedAt      *time.Time
}

// eventBody is the delivered JSON. It holds ids and a few scalars, never
// whole resources: receivers read current state through the API.
type eventBody struct {
	ID             uuid.UUID      `json:"id"`
	Type           string         `json:"type"`
	SchemaVersion  int            `json:"schema_version"`
	OrganizationID uuid.UUID      `json:"organization_id"`
	CreatedAt      time.Time      `json:"created_at"`
	Data           map[string]any `json:"data"`
}

// NewEvent builds an outbox row with its final body; the caller inserts it
// in the transaction of the change it announces, so it exists if and only
// if that change committed.
func NewEvent(orgID uuid.UUID, eventType string, data map[string]any) (*Event, error) {
	if !slices.Contains(EventTypes, eventType) {
		return nil, fmt.Errorf("emit: %q is not in the event catalogue", eventType)
	}
	for k, v := range data {
		switch v.(type) {
		case nil, string, bool, int, int32, int64, float64, uuid.UUID, time.Time, fmt.Stringer:
		default:
			return nil, fmt.Errorf("emit %s: data field %q is a %T; events carry ids and scalars only", eventType, k, v)
		}
	}
	if data == nil {
		data = map[string]any{}
	}
	e := &Event{ID: NewID(), OrganizationID: orgID, Type: eventType, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	body, err := json.Marshal(eventBody{
		ID: e.ID, Type: eventType, SchemaVersion: EventSchemaVersion, OrganizationID: orgID, CreatedAt: e.CreatedAt, Data: data,
	})
	if err != nil {
		return nil, err
	}
	e.Body = string(body)
	return e, nil
}
