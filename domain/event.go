package domain

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/internal/work"
)

// EventSchemaVersion is the version of the delivered body's shape.
const EventSchemaVersion = 1

// Payload is the data of one event type: a Go type per type, whose JSON
// fields are the event's data. Data holds ids and a few scalars, never
// whole resources: receivers read current state through the API.
type Payload interface {
	EventType() string
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

// EventEnvelope is the delivered JSON: the envelope of every event, its
// data the event's payload.
type EventEnvelope struct {
	ID             uuid.UUID `json:"id"`
	Type           string    `json:"type"`
	SchemaVersion  int       `json:"schema_version"`
	OrganizationID uuid.UUID `json:"organization_id"`
	CreatedAt      time.Time `json:"created_at"`
	Data           Payload   `json:"data"`
}

// NewEvent builds an outbox row with its final body; the caller inserts it
// in the transaction of the change it announces.
func NewEvent(orgID uuid.UUID, data Payload) (*Event, error) {
	e := &Event{ID: NewID(), OrganizationID: orgID, Type: data.EventType(), CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	typ, err := json.Marshal(e.Type)
	if err != nil {
		return nil, err
	}
	// The EventEnvelope as encoding/json writes it (a test holds them
	// together), written around its encoded data: encoding the envelope
	// by reflection was most of an event's cost.
	var body strings.Builder
	body.Grow(190 + len(typ) + len(payload))
	body.WriteString(`{"id":"`)
	body.WriteString(e.ID.String())
	body.WriteString(`","type":`)
	body.Write(typ)
	body.WriteString(`,"schema_version":`)
	body.WriteString(strconv.Itoa(EventSchemaVersion))
	body.WriteString(`,"organization_id":"`)
	body.WriteString(orgID.String())
	body.WriteString(`","created_at":"`)
	var stamp [len(time.RFC3339Nano)]byte
	body.Write(e.CreatedAt.AppendFormat(stamp[:0], time.RFC3339Nano))
	body.WriteString(`","data":`)
	body.Write(payload)
	body.WriteByte('}')
	e.Body = body.String()
	return e, nil
}

// EventsAbout narrows q, a query of events, to those whose data names the
// record id: any value of the data is the id.
func EventsAbout(q *gorm.DB, id uuid.UUID) *gorm.DB {
	return q.Where("EXISTS (SELECT 1 FROM jsonb_each_text((body::jsonb) -> 'data') AS d WHERE d.value = ?)", id.String())
}

// Emit writes the event announcing a change in w, with the change.
func Emit(w *work.Unit, data Payload) error {
	if w.Actor().Quiet {
		// An import's apply is recorded by its rows and announced by the
		// import's own events, not row by row.
		return nil
	}
	e, err := NewEvent(w.Organization(), data)
	if err != nil {
		return err
	}
	return w.Defer(e)
}

// ItemRevision is the data of the events that make a new revision of a
// catalogue item.
type ItemRevision struct {
	CatalogItemID uuid.UUID `json:"catalog_item_id"`
	Revision      int       `json:"revision"`
}

// RecordCreated is the data of events that announce a new record by id.
type RecordCreated struct {
	ID uuid.UUID `json:"id"`
}

// RecordStatus is the data of events that announce a record's new status.
type RecordStatus struct {
	ID     uuid.UUID `json:"id"`
	Status string    `json:"status"`
}
