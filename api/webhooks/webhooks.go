// Package webhooks is the events feed and the organization's own webhook
// endpoints: operations beyond the spec's table (it leaves endpoints to
// operators), marked as extensions in the document. An integration that
// missed deliveries catches up through GET /events, which answers the
// same ids and bodies the deliveries POST.
package webhooks

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/imports"
	"ppwr/domain/webhooks"
	a "ppwr/internal/access"
	"ppwr/internal/input"
)

const (
	eventsTag   = "events"
	webhooksTag = "webhooks"
)

type handlers struct{ kit.Deps }

// Area declares the events feed and the endpoints' operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Join(kit.Area{
		Operations: []kit.Operation{
			kit.List("listEvents", kit.Org+"/events", eventsTag, a.EventsRead, a.WebhooksManagePerm).Extension().
				Handle(kit.Query(h.listEvents), kit.ListOK("Event")),
			kit.Get("getEvent", kit.Org+"/events/{eventId}", eventsTag, a.EventsRead, a.WebhooksManagePerm).Extension().
				Handle(kit.Do(h.getEvent), kit.OK(kit.Ref("Event"))),
		},
		Models: []kit.Model{kit.ModelOf[domain.EventEnvelope]("Event").Described("schema.event").With(func(s *kit.Shape) {
			s.Enum("type", webhooks.EventTypes()...)
			s.Derived("data", kit.Schema{"type": "object"})
			s.DescribeField("data", "schema.event_data")
		}).Example(eventExample())},
	}, h.endpoints())
}

// exampleEventID is the id of the document's example event, which the
// example delivery delivers.
var exampleEventID = uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e07")

// eventExample is the document's example of an event: an import applied.
func eventExample() domain.EventEnvelope {
	return domain.EventEnvelope{ID: exampleEventID, Type: imports.ImportCompleted{}.EventType(), SchemaVersion: domain.EventSchemaVersion,
		OrganizationID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e08"), CreatedAt: kit.ExampleAt,
		Data: imports.ImportCompleted{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e02"), Status: imports.ImportCompletedStatus}}
}

// eventBody is an event as every delivery of it POSTs it: the stored
// body, byte for byte.
func eventBody(e *domain.Event) json.RawMessage { return json.RawMessage(e.Body) }

// eventFilter narrows the events feed.
type eventFilter struct {
	input.Errors
	Type         input.Opt[string]
	Resource     input.Opt[uuid.UUID]
	CreatedAfter input.Opt[time.Time]
}

func (q *eventFilter) Declare(f *input.Fields) {
	f.Enum("type", &q.Type, input.Enum{Values: webhooks.EventTypes()})
	f.Ref("resource", &q.Resource, input.Ref{})
	f.DateTime("created_after", &q.CreatedAfter, input.DateTime{})
}

// listEvents pages through the organization's events, newest first.
func (h *handlers) listEvents(c *gin.Context, f *eventFilter) error {
	q := kit.Filter(domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&domain.Event{}), "type", f.Type)
	if f.Resource.Set() {
		q = domain.EventsAbout(q, f.Resource.Value)
	}
	if f.CreatedAfter.Set() {
		q = q.Where("created_at > ?", f.CreatedAfter.Value)
	}
	return kit.Paginate(c, q, kit.NewestFirst, eventBody)
}

func (h *handlers) getEvent(c *gin.Context) error {
	return kit.Show(c, h.DB, "eventId", eventBody)
}
