package webhooks

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain/imports"
	"ppwr/domain/webhooks"
	a "ppwr/internal/access"
	"ppwr/internal/work"
)

const (
	endpoints  = kit.Org + "/webhook-endpoints"
	endpoint   = endpoints + "/{endpointId}"
	deliveries = endpoint + "/deliveries"
)

func (h *handlers) endpoints() kit.Area {
	// Every operation on endpoints has the same access rule.
	write := func(method, id, path string) kit.Operation {
		return kit.Write(method, id, path, webhooksTag, a.WebhooksManage, a.WebhooksManagePerm).Extension()
	}
	read := func(id, path string) kit.Operation {
		return kit.Get(id, path, webhooksTag, a.WebhooksManage, a.WebhooksManagePerm).Extension()
	}
	list := func(id, path string) kit.Operation {
		return kit.List(id, path, webhooksTag, a.WebhooksManage, a.WebhooksManagePerm).Extension()
	}
	return kit.Area{
		Operations: []kit.Operation{
			list("listWebhookEndpoints", endpoints).Handle(kit.Do(h.listEndpoints), kit.ListOK("WebhookEndpoint")),
			write(http.MethodPost, "createWebhookEndpoint", endpoints).
				Handle(kit.JSON(h.createEndpoint), kit.CreatedResponse(kit.Ref("WebhookEndpointWithSecret"), "getWebhookEndpoint")),
			read("getWebhookEndpoint", endpoint).Handle(kit.Do(h.getEndpoint), kit.OK(kit.Ref("WebhookEndpoint"))),
			write(http.MethodPatch, "updateWebhookEndpoint", endpoint).
				Handle(kit.JSON(kit.Change("endpointId", h.update, endpointToJSON)), kit.OK(kit.Ref("WebhookEndpoint"))),
			write(http.MethodPost, "disableWebhookEndpoint", endpoint+"/disable").
				Handle(kit.Do(h.disableEndpoint), kit.OK(kit.Ref("WebhookEndpoint"))),
			write(http.MethodDelete, "deleteWebhookEndpoint", endpoint).
				Handle(kit.Do(h.deleteEndpoint), kit.OK(kit.Ref("WebhookEndpointDeleted"))),
			write(http.MethodPost, "rotateWebhookEndpointSecret", endpoint+"/rotate-secret").
				Handle(kit.JSON(kit.Change("endpointId", rotate, secretToJSON)), kit.OK(kit.Ref("WebhookEndpointWithSecret"))),
			list("listWebhookDeliveries", deliveries).Handle(kit.Do(h.listDeliveries), kit.ListOK("WebhookDelivery")),
			read("getWebhookDelivery", deliveries+"/{deliveryId}").Handle(kit.Do(h.getDelivery), kit.OK(kit.Ref("WebhookDelivery"))),
			write(http.MethodPost, "resendWebhookDelivery", deliveries+"/{deliveryId}/resend").
				Handle(kit.Do(h.resendDelivery), kit.AcceptedResponse(kit.Ref("WebhookDelivery"))).
				Answers(webhooks.ErrEndpointDisabled),
		},
		Models: []kit.Model{
			kit.ModelOf[endpointJSON]("WebhookEndpoint").Example(endpointExample()),
			kit.ModelOf[endpointSecretJSON]("WebhookEndpointWithSecret").Example(endpointSecretJSON{endpointJSON: endpointExample(),
				Secret: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"}),
			kit.ModelOf[deletedJSON]("WebhookEndpointDeleted"), kit.ModelOf[deliveryJSON]("WebhookDelivery").Example(deliveryExample()),
		},
	}
}

type endpointJSON struct {
	ID     uuid.UUID `json:"id"`
	URL    string    `json:"url" schema:"uri,desc=schema.webhook_url_shown"`
	Events []string  `json:"events"`
	Status string    `json:"status"`
	// PreviousSecretExpiresAt is when the secret a rotation replaced stops
	// signing; null when none signs.
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at" schema:"desc=schema.webhook_previous_secret"`
	CreatedAt               time.Time  `json:"created_at"`
	UpdatedAt               time.Time  `json:"updated_at"`
}

func (endpointJSON) Declare(s *kit.Shape) {
	s.Enum("events", append([]string{webhooks.AllEvents}, webhooks.EventTypes()...)...)
	s.Enum("status", webhooks.EndpointActive, webhooks.EndpointDisabled)
}

// endpointSecretJSON is an endpoint with its signing secret, answered
// once: by the create and by a rotation.
type endpointSecretJSON struct {
	endpointJSON
	Secret string `json:"secret" schema:"desc=schema.webhook_secret"`
}

func endpointToJSON(e *webhooks.WebhookEndpoint) endpointJSON {
	var previous *time.Time
	if len(e.SigningSecrets(time.Now())) > 1 {
		previous = kit.UTC(e.PreviousSecretExpiresAt)
	}
	return endpointJSON{ID: e.ID, URL: webhooks.RedactedURL(e.URL), Events: e.Events, Status: e.Status,
		PreviousSecretExpiresAt: previous, CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC()}
}

// endpointExample is the document's example of an endpoint.
func endpointExample() endpointJSON {
	return endpointJSON{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e09"), URL: "https://erp.example.com/hooks/ppwr", Events: []string{imports.ImportCompleted{}.EventType(), imports.ImportFailed{}.EventType()},
		Status: webhooks.EndpointActive, CreatedAt: kit.ExampleAt.AddDate(0, -1, 0), UpdatedAt: kit.ExampleAt.AddDate(0, -1, 0)}
}

func secretToJSON(e *webhooks.WebhookEndpoint) endpointSecretJSON {
	return endpointSecretJSON{endpointJSON: endpointToJSON(e), Secret: e.Secret}
}

// deletedJSON acknowledges a deletion; Deleted is always true.
type deletedJSON struct {
	ID      uuid.UUID `json:"id"`
	Deleted bool      `json:"deleted" schema:"const=true"`
}

type attemptJSON struct {
	AttemptedAt time.Time `json:"attempted_at"`
	StatusCode  *int      `json:"status_code"`
	DurationMs  int       `json:"duration_ms"`
	Error       string    `json:"error"`
}

type deliveryJSON struct {
	ID        uuid.UUID `json:"id"`
	EventID   uuid.UUID `json:"event_id"`
	EventType string    `json:"event_type"`
	Status    string    `json:"status"`
	Attempts  int       `json:"attempts"`
	// LastStatus is the HTTP status of the last attempt.
	LastStatus *int   `json:"last_status" schema:"desc=schema.webhook_last_status"`
	LastError  string `json:"last_error"`
	// NextAttemptAt is when a failed attempt is tried again.
	NextAttemptAt *time.Time    `json:"next_attempt_at" schema:"desc=schema.webhook_next_attempt_at"`
	CreatedAt     time.Time     `json:"created_at"`
	CompletedAt   *time.Time    `json:"completed_at"`
	AttemptLog    []attemptJSON `json:"attempt_log"`
}

func (deliveryJSON) Declare(s *kit.Shape) {
	s.Enum("event_type", webhooks.EventTypes()...)
	s.Enum("status", webhooks.DeliveryPending, webhooks.DeliverySucceeded, webhooks.DeliveryFailed)
}

// deliveryExample is the document's example of a delivery of the
// example event whose first attempt failed and which is tried again.
func deliveryExample() deliveryJSON {
	unavailable, first, next := http.StatusServiceUnavailable, kit.ExampleAt.Add(150*time.Millisecond), kit.ExampleAt.Add(30*time.Second)
	return deliveryJSON{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e0a"), EventID: exampleEventID, EventType: eventExample().Type,
		Status: webhooks.DeliveryPending, Attempts: 1, LastStatus: &unavailable, LastError: "receiver answered 503", NextAttemptAt: &next,
		CreatedAt: kit.ExampleAt, AttemptLog: []attemptJSON{{AttemptedAt: first, StatusCode: &unavailable, DurationMs: 212, Error: "receiver answered 503"}}}
}

func deliveryToJSON(d *webhooks.DeliveryLog) deliveryJSON {
	log := make([]attemptJSON, len(d.AttemptLog))
	for i, at := range d.AttemptLog {
		log[i] = attemptJSON{AttemptedAt: at.AttemptedAt.UTC(), StatusCode: at.StatusCode, DurationMs: at.DurationMs, Error: at.Error}
	}
	return deliveryJSON{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		LastStatus: d.LastStatus(), LastError: d.LastError, NextAttemptAt: kit.UTC(d.NextAttemptAt),
		CreatedAt: d.CreatedAt.UTC(), CompletedAt: kit.UTC(d.CompletedAt),
		AttemptLog: log}
}

func (h *handlers) listEndpoints(c *gin.Context) error {
	return kit.Paginate(c, webhooks.Endpoints(c.Request.Context(), h.DB, kit.OrgID(c)), kit.NewestFirst, endpointToJSON)
}

func (h *handlers) createEndpoint(c *gin.Context, in *webhooks.EndpointCreate) error {
	e, err := webhooks.CreateEndpoint(kit.Work(c), in, h.Config.WebhookAllowHTTPLoopback)
	if err != nil {
		return err
	}
	return kit.Created(c, e.ID, secretToJSON(e))
}

func (h *handlers) getEndpoint(c *gin.Context) error {
	id, err := kit.PathID(c, "endpointId")
	if err != nil {
		return err
	}
	e, err := webhooks.FindEndpoint(c.Request.Context(), h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, endpointToJSON(e))
	return nil
}

func (h *handlers) update(w *work.Unit, id uuid.UUID, in *webhooks.EndpointUpdate) (*webhooks.WebhookEndpoint, error) {
	return webhooks.UpdateEndpoint(w, id, in, h.Config.WebhookAllowHTTPLoopback)
}

func rotate(w *work.Unit, id uuid.UUID, in *webhooks.SecretRotation) (*webhooks.WebhookEndpoint, error) {
	return webhooks.RotateSecret(w, id, in.Grace())
}

// onEndpoint runs command on the endpoint the path names, in the
// request's unit of work.
func onEndpoint(c *gin.Context, command func(*work.Unit, uuid.UUID) error) error {
	id, err := kit.PathID(c, "endpointId")
	if err != nil {
		return err
	}
	return command(kit.Work(c), id)
}

func (h *handlers) disableEndpoint(c *gin.Context) error {
	return onEndpoint(c, func(w *work.Unit, id uuid.UUID) error {
		e, err := webhooks.DisableEndpoint(w, id)
		if err == nil {
			c.JSON(http.StatusOK, endpointToJSON(e))
		}
		return err
	})
}

func (h *handlers) deleteEndpoint(c *gin.Context) error {
	return onEndpoint(c, func(w *work.Unit, id uuid.UUID) error {
		err := webhooks.DeleteEndpoint(w, id)
		if err == nil {
			c.JSON(http.StatusOK, deletedJSON{ID: id, Deleted: true})
		}
		return err
	})
}

func (h *handlers) listDeliveries(c *gin.Context) error {
	id, err := kit.PathID(c, "endpointId")
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	q, err := webhooks.Deliveries(ctx, h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	return kit.PaginatePage(c, q, kit.NewestFirst, func(rows []webhooks.DeliveryLog) ([]deliveryJSON, error) {
		rows, err := webhooks.WithAttempts(ctx, h.DB, rows)
		if err != nil {
			return nil, err
		}
		out := make([]deliveryJSON, len(rows))
		for i := range rows {
			out[i] = deliveryToJSON(&rows[i])
		}
		return out, nil
	})
}

func (h *handlers) getDelivery(c *gin.Context) error {
	return kit.ShowOf(c, h.DB, "endpointId", "deliveryId", webhooks.FindDelivery, deliveryToJSON)
}

func (h *handlers) resendDelivery(c *gin.Context) error {
	return onEndpoint(c, func(w *work.Unit, endpointID uuid.UUID) error {
		id, err := kit.PathID(c, "deliveryId")
		if err != nil {
			return err
		}
		d, err := webhooks.ResendDelivery(w, endpointID, id, webhooks.Retry{Initial: h.Config.WebhookRetryInitial, For: h.Config.WebhookRetryFor})
		if err != nil {
			return err
		}
		return kit.Accepted(c, deliveryToJSON(d))
	})
}
