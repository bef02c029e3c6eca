package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
	"ppwr/webhooksig"
	"ppwr/worker"
)

// receiver is a customer's webhook endpoint: it records every request and
// answers with the scripted statuses, then 200.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
	script   []int
}

type received struct {
	signature string
	body      []byte
	status    int
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{script: script}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		status := http.StatusOK
		if n := len(r.requests); n < len(r.script) {
			status = r.script[n]
		}
		r.requests = append(r.requests, received{signature: req.Header.Get(webhooksig.Header), body: body, status: status})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.requests...)
}

type eventsFixture struct {
	db       *gorm.DB
	temporal client.Client
	relay    *worker.Relay
	org      uuid.UUID
}

func newEventsFixture(t *testing.T, queue string) *eventsFixture {
	db := testenv.DB(t)
	org, err := accounts.CreateOrganization(context.Background(), db, "Events "+uuid.NewString()[:8], "ev-"+uuid.NewString())
	require.NoError(t, err)
	c := testenv.Temporal(t)
	return &eventsFixture{db: db, temporal: c, org: org.ID, relay: &worker.Relay{
		DB: db, Temporal: c, TaskQueue: queue, RetryInitial: time.Second, RetryFor: time.Minute, Interval: 50 * time.Millisecond,
	}}
}

func (f *eventsFixture) endpoint(t *testing.T, org uuid.UUID, url string, events ...string) *webhooks.WebhookEndpoint {
	if len(events) == 0 {
		events = []string{webhooks.AllEvents}
	}
	ep := &webhooks.WebhookEndpoint{ID: domain.NewID(), OrganizationID: org, URL: url, Events: pq.StringArray(events),
		Secret: webhooks.NewWebhookSecret(), Status: webhooks.EndpointActive}
	require.NoError(t, f.db.Create(ep).Error)
	return ep
}

// emit commits a change that emits an event, as an area's handler would.
func (f *eventsFixture) emit(t *testing.T, data domain.Payload) *domain.Event {
	var e *domain.Event
	require.NoError(t, f.db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&accounts.Organization{}).Where("id = ?", f.org).Update("name", "Changed "+uuid.NewString()[:8]).Error; err != nil {
			return err
		}
		var err error
		if e, err = domain.NewEvent(f.org, data); err != nil {
			return err
		}
		return tx.Create(e).Error
	}))
	return e
}

func (f *eventsFixture) waitForDelivery(t *testing.T, eventID, endpointID uuid.UUID) webhooks.WebhookDelivery {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := f.temporal.GetWorkflow(ctx, "webhook/"+eventID.String()+"/"+endpointID.String(), "")
	require.NoError(t, run.Get(ctx, nil), "the delivery workflow completes")
	var d webhooks.WebhookDelivery
	require.NoError(t, f.db.First(&d, "event_id = ? AND endpoint_id = ?", eventID, endpointID).Error)
	return d
}

func TestEventIsDeliveredOnceAndSigned(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	rcv := newReceiver(t)
	ep := f.endpoint(t, f.org, rcv.URL)

	e := f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	n, err := f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	d := f.waitForDelivery(t, e.ID, ep.ID)
	assert.Equal(t, webhooks.DeliverySucceeded, d.Status)
	assert.Equal(t, 1, d.Attempts)

	n, err = f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "a relayed event is not relayed again")

	got := rcv.received()
	require.Len(t, got, 1, "exactly one delivery")
	require.NoError(t, webhooksig.Verify(ep.Secret, got[0].signature, got[0].body, time.Now()))
	var body map[string]any
	require.NoError(t, json.Unmarshal(got[0].body, &body))
	assert.Equal(t, e.ID.String(), body["id"])
	assert.Equal(t, "catalog_item.updated", body["type"])
	assert.Equal(t, float64(domain.EventSchemaVersion), body["schema_version"])
	assert.Equal(t, f.org.String(), body["organization_id"])
	assert.NotEmpty(t, body["created_at"])
	assert.Equal(t, float64(2), body["data"].(map[string]any)["revision"], "data holds ids and scalars")
}

func TestRetriesKeepTheEventAndSignAfresh(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	rcv := newReceiver(t, http.StatusInternalServerError, http.StatusInternalServerError)
	ep := f.endpoint(t, f.org, rcv.URL)

	e := f.emit(t, catalog.CatalogItemArchived{CatalogItemID: uuid.New(), Revision: 2})
	_, err := f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	d := f.waitForDelivery(t, e.ID, ep.ID)
	assert.Equal(t, webhooks.DeliverySucceeded, d.Status)

	got := rcv.received()
	require.Len(t, got, 3, "two failures, then the success")
	for _, r := range got {
		assert.Equal(t, got[0].body, r.body, "the body never changes")
		assert.NoError(t, webhooksig.Verify(ep.Secret, r.signature, r.body, time.Now()))
	}
	assert.NotEqual(t, got[0].signature, got[1].signature, "each attempt signs afresh")
	assert.NotEqual(t, got[1].signature, got[2].signature)

	var attempts []webhooks.WebhookAttempt
	require.NoError(t, f.db.Where("delivery_id = ?", d.ID).Order("attempted_at").Find(&attempts).Error)
	require.Len(t, attempts, 3)
	assert.Equal(t, 500, *attempts[0].StatusCode)
	assert.Contains(t, attempts[0].Error, "500")
	assert.Equal(t, 200, *attempts[2].StatusCode)
	assert.Empty(t, attempts[2].Error)
}

// The worker dies between attempts; the retry is durable in Temporal, so a
// new worker finishes the delivery, once.
func TestDeliverySurvivesAWorkerRestart(t *testing.T) {
	c := testenv.Temporal(t)
	queue := "ppwr-restart-" + uuid.NewString()
	first := worker.New(worker.Deps{DB: testenv.DB(t), Temporal: c, TaskQueue: queue, WebhookAllowHTTPLoopback: true})
	require.NoError(t, first.Start())
	f := newEventsFixture(t, queue)
	f.relay.RetryInitial = 2 * time.Second
	rcv := newReceiver(t, http.StatusServiceUnavailable)
	ep := f.endpoint(t, f.org, rcv.URL)

	e := f.emit(t, catalog.CatalogItemRestored{CatalogItemID: uuid.New(), Revision: 2})
	_, err := f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	// Between attempts: the first was answered and recorded. (Stopping
	// while the answer is being recorded would cancel the recording, and
	// the test would count one attempt fewer.)
	require.Eventually(t, func() bool {
		var d webhooks.WebhookDelivery
		return f.db.First(&d, "event_id = ? AND endpoint_id = ?", e.ID, ep.ID).Error == nil && d.Attempts == 1
	}, 30*time.Second, 20*time.Millisecond)
	require.Len(t, rcv.received(), 1)
	first.Stop()

	second := worker.New(worker.Deps{DB: testenv.DB(t), Temporal: c, TaskQueue: queue, WebhookAllowHTTPLoopback: true})
	require.NoError(t, second.Start())
	t.Cleanup(second.Stop)
	d := f.waitForDelivery(t, e.ID, ep.ID)
	assert.Equal(t, webhooks.DeliverySucceeded, d.Status)
	assert.Equal(t, 2, d.Attempts)
	got := rcv.received()
	require.Len(t, got, 2)
	assert.Equal(t, http.StatusOK, got[1].status, "completed once, by the new worker")
}

// The outbox guarantee: a change that rolls back leaves no event, so
// nothing is ever delivered for it.
func TestRolledBackChangesEmitNothing(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	rcv := newReceiver(t)
	f.endpoint(t, f.org, rcv.URL)

	errRollback := errors.New("the change failed")
	err := f.db.Transaction(func(tx *gorm.DB) error {
		e, err := domain.NewEvent(f.org, catalog.CatalogItemCreated{CatalogItemID: uuid.New(), Revision: 1})
		if err != nil {
			return err
		}
		if err := tx.Create(e).Error; err != nil {
			return err
		}
		return errRollback
	})
	require.ErrorIs(t, err, errRollback)
	var events int64
	require.NoError(t, f.db.Model(&domain.Event{}).Where("organization_id = ?", f.org).Count(&events).Error)
	assert.Zero(t, events)

	n, err := f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n)
	time.Sleep(200 * time.Millisecond)
	assert.Empty(t, rcv.received())
}

// Endpoints get only their organization's events of the types they
// subscribed to; disabled endpoints get none.
func TestOnlySubscribedEndpointsReceive(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	other, err := accounts.CreateOrganization(context.Background(), f.db, "Other", "other-"+uuid.NewString())
	require.NoError(t, err)
	rcv := newReceiver(t)
	subscribed := f.endpoint(t, f.org, rcv.URL+"/subscribed", "catalog_item.updated")
	f.endpoint(t, f.org, rcv.URL+"/other-type", "import.ready")
	f.endpoint(t, other.ID, rcv.URL+"/other-org")
	disabled := f.endpoint(t, f.org, rcv.URL+"/disabled")
	require.NoError(t, f.db.Model(disabled).Update("status", webhooks.EndpointDisabled).Error)

	e := f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	_, err = f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	f.waitForDelivery(t, e.ID, subscribed.ID)

	var deliveries []webhooks.WebhookDelivery
	require.NoError(t, f.db.Where("event_id = ?", e.ID).Find(&deliveries).Error)
	require.Len(t, deliveries, 1)
	assert.Equal(t, subscribed.ID, deliveries[0].EndpointID)
}

// While a secret is rotated both secrets sign, so a receiver still holding
// the old one keeps accepting deliveries.
func TestRotationSignsWithBothSecrets(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	rcv := newReceiver(t)
	ep := f.endpoint(t, f.org, rcv.URL)
	old := ep.Secret
	rotated, err := webhooks.RotateWebhookSecret(context.Background(), f.db, ep.ID, time.Hour)
	require.NoError(t, err)

	e := f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	_, err = f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	f.waitForDelivery(t, e.ID, ep.ID)
	got := rcv.received()
	require.Len(t, got, 1)
	assert.NoError(t, webhooksig.Verify(old, got[0].signature, got[0].body, time.Now()))
	assert.NoError(t, webhooksig.Verify(rotated.Secret, got[0].signature, got[0].body, time.Now()))
}
