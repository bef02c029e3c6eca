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
	"go.temporal.io/api/serviceerror"
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
	markStartedOnCleanup(t, db, org.ID)
	return &eventsFixture{db: db, temporal: c, org: org.ID, relay: &worker.Relay{
		DB: db, Temporal: c, TaskQueue: queue, RetryInitial: time.Second, RetryFor: time.Minute, Interval: 50 * time.Millisecond,
	}}
}

// runRelay runs the relay as the worker does until the test ends.
func (f *eventsFixture) runRelay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); f.relay.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })
}

// pass is one pass of the relay as Run makes it: the new events'
// deliveries with their recorded starts, then the starts. It returns how
// many events it relayed.
func (f *eventsFixture) pass(t *testing.T) int {
	t.Helper()
	n, err := f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	_, err = f.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	return n
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
	assert.Equal(t, 1, f.pass(t))
	d := f.waitForDelivery(t, e.ID, ep.ID)
	assert.Equal(t, webhooks.DeliverySucceeded, d.Status)
	assert.Equal(t, 1, d.Attempts)

	assert.Zero(t, f.pass(t), "a relayed event is not relayed again")

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
	f.pass(t)
	d := f.waitForDelivery(t, e.ID, ep.ID)
	assert.Equal(t, webhooks.DeliverySucceeded, d.Status)
	assert.Nil(t, d.NextAttemptAt, "the success leaves nothing to try")

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
	f.pass(t)
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

	assert.Zero(t, f.pass(t))
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
	f.pass(t)
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
	f.pass(t)
	f.waitForDelivery(t, e.ID, ep.ID)
	got := rcv.received()
	require.Len(t, got, 1)
	assert.NoError(t, webhooksig.Verify(old, got[0].signature, got[0].body, time.Now()))
	assert.NoError(t, webhooksig.Verify(rotated.Secret, got[0].signature, got[0].body, time.Now()))
}

// The bug this guards against: the relay started a delivery's workflow
// inside the transaction that wrote its row, so the first attempt could
// run before the commit, fail on a missing row and wait ~30 s for its
// retry. The relay now only records the start, in that transaction, and
// the workflow exists only once StartWorkflows made it after the commit.
func TestWebhookDeliveryRowCommitsWithItsStartBeforeTheWorkflow(t *testing.T) {
	c, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	rcv := newReceiver(t)
	ep := f.endpoint(t, f.org, rcv.URL)
	e := f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})

	n, err := f.relay.RelayEvents(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	workflowID := "webhook/" + e.ID.String() + "/" + ep.ID.String()
	var start domain.WorkflowStart
	require.NoError(t, f.db.First(&start, "workflow_id = ?", workflowID).Error, "the delivery's start is recorded")
	assert.Nil(t, start.StartedAt)
	assert.Equal(t, webhooks.DeliveryWorkflow.Type, start.WorkflowType)
	var in webhooks.DeliveryInput
	require.NoError(t, json.Unmarshal(start.Input, &in))
	var d webhooks.WebhookDelivery
	require.NoError(t, f.db.First(&d, "id = ?", in.DeliveryID).Error, "the start names a committed delivery")
	assert.Equal(t, e.ID, d.EventID)
	assert.Equal(t, webhooks.DeliveryPending, d.Status)

	// One transaction wrote the delivery, its start and the event's relay
	// mark: the rows share the id of the transaction that created them.
	var writers []string
	require.NoError(t, f.db.Raw(`SELECT xmin::text FROM webhook_deliveries WHERE id = ?
UNION ALL SELECT xmin::text FROM workflow_starts WHERE id = ?
UNION ALL SELECT xmin::text FROM events WHERE id = ?`, d.ID, start.ID, e.ID).Scan(&writers).Error)
	require.Len(t, writers, 3)
	assert.Equal(t, writers[0], writers[1], "the delivery and its start commit together")
	assert.Equal(t, writers[0], writers[2], "with the event's claim")

	var notFound *serviceerror.NotFound
	_, err = c.DescribeWorkflowExecution(context.Background(), workflowID, "")
	require.ErrorAs(t, err, &notFound, "relaying the event starts no workflow")

	_, err = f.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	d = f.waitForDelivery(t, e.ID, ep.ID)
	assert.Equal(t, webhooks.DeliverySucceeded, d.Status)
	assert.Equal(t, 1, d.Attempts, "the first attempt succeeds")
	assert.Nil(t, d.NextAttemptAt)
}

// The case: 20 changes committed at once, each with an event the
// endpoint subscribes to, relayed by Run as the worker runs it. Every
// delivery succeeds at its first attempt, and no failed attempt is
// recorded. (How soon is measured by ppwr-bench's webhooks scenario.)
func TestWebhookFirstAttemptsSucceedUnderConcurrentCreates(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	f.relay.Interval, f.relay.ListenURL = time.Second, testenv.DatabaseURL(t)
	rcv := newReceiver(t)
	ep := f.endpoint(t, f.org, rcv.URL)
	f.runRelay(t)

	const n = 20
	events := make([]*domain.Event, n)
	var wg sync.WaitGroup
	for i := range events {
		wg.Go(func() { events[i] = f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2}) })
	}
	wg.Wait()

	for _, e := range events {
		require.Eventually(t, func() bool {
			var d webhooks.WebhookDelivery
			return f.db.First(&d, "event_id = ? AND endpoint_id = ?", e.ID, ep.ID).Error == nil && d.Status != webhooks.DeliveryPending
		}, 30*time.Second, 10*time.Millisecond)
		d := f.waitForDelivery(t, e.ID, ep.ID)
		assert.Equal(t, webhooks.DeliverySucceeded, d.Status)
		assert.Equal(t, 1, d.Attempts, "delivered at its first attempt")
		assert.Empty(t, d.LastError)
	}
	var failed int64
	require.NoError(t, f.db.Model(&webhooks.WebhookAttempt{}).
		Joins("JOIN webhook_deliveries d ON d.id = webhook_attempts.delivery_id").
		Where("d.endpoint_id = ? AND webhook_attempts.error <> ''", ep.ID).Count(&failed).Error)
	assert.Zero(t, failed, "no failed attempt")
	assert.Len(t, rcv.received(), n, "each event once")
}

// With a poll far longer than the test, an event an endpoint subscribes to
// is still delivered within seconds: its commit wakes the relay.
func TestWebhookEventWakesTheRelay(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	f.relay.Interval, f.relay.ListenURL = time.Minute, testenv.DatabaseURL(t)
	rcv := newReceiver(t)
	ep := f.endpoint(t, f.org, rcv.URL)
	f.runRelay(t)

	// Run passes once when it begins and once when it starts listening;
	// three events emitted one after the other cannot all be relayed by
	// those two passes.
	for range 3 {
		e := f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
		require.Eventually(t, func() bool {
			var d webhooks.WebhookDelivery
			return f.db.First(&d, "event_id = ? AND endpoint_id = ?", e.ID, ep.ID).Error == nil && d.Status == webhooks.DeliverySucceeded
		}, 10*time.Second, 10*time.Millisecond)
	}
}

// A failed attempt records its status code and error, on the attempt and
// the delivery, and when the delivery is tried next.
func TestWebhookFailedAttemptRecordsItsNextAttempt(t *testing.T) {
	_, queue := startWorker(t)
	f := newEventsFixture(t, queue)
	f.relay.RetryInitial, f.relay.RetryFor = time.Minute, time.Hour
	rcv := newReceiver(t, http.StatusServiceUnavailable)
	ep := f.endpoint(t, f.org, rcv.URL)
	e := f.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	f.pass(t)

	var d webhooks.WebhookDelivery
	require.Eventually(t, func() bool {
		return f.db.First(&d, "event_id = ? AND endpoint_id = ?", e.ID, ep.ID).Error == nil && d.Attempts == 1
	}, 30*time.Second, 10*time.Millisecond)
	var attempt webhooks.WebhookAttempt
	require.NoError(t, f.db.First(&attempt, "delivery_id = ?", d.ID).Error)
	require.NotNil(t, attempt.StatusCode)
	assert.Equal(t, http.StatusServiceUnavailable, *attempt.StatusCode)
	assert.Equal(t, "receiver answered 503", attempt.Error)
	assert.Equal(t, attempt.Error, d.LastError)
	assert.Equal(t, webhooks.DeliveryPending, d.Status)
	require.NotNil(t, d.NextAttemptAt, "the retry is scheduled")
	assert.WithinDuration(t, attempt.AttemptedAt.Add(time.Minute), *d.NextAttemptAt, 5*time.Second, "after RetryInitial")

	require.NoError(t, f.temporal.TerminateWorkflow(context.Background(), "webhook/"+e.ID.String()+"/"+ep.ID.String(), "", "test over"))
}
