package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
	"gorm.io/gorm"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/internal/config"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// webhooksScenario is the name -scenario matches to run the webhook
// benchmark: how soon a delivery's first attempt reaches its receiver
// after the change that emitted its event, under concurrent creates.
const webhooksScenario = "webhooks"

const (
	// webhookCreates are the creates of one round, sent at once.
	webhookCreates = 20
	webhookWarmup  = 2
	webhookRounds  = 10
	// webhookTarget is the p99 of the first attempt.
	webhookTarget = time.Second
	// webhookWait bounds a round: a first attempt that failed would come
	// back only after the 30 s retry.
	webhookWait = time.Minute
)

// runWebhooks creates catalogue items through the API, webhookCreates at
// once per round, with one endpoint subscribed to every event, and times
// each event from its commit (its created_at, written in the creating
// transaction: a little before the commit, so the figure errs long) to
// its first POST at the receiver. The relay runs as ppwr worker runs it,
// polling every second and woken by notifications, in this process
// beside the worker. The baseline is the least such a POST costs: the
// same number of workflows at once, started directly with an activity
// that POSTs, timed from their start.
func runWebhooks() error {
	db, dbURL, drop, err := testenv.CreateDatabase("ppwr_bench_")
	if err != nil {
		return fmt.Errorf("database (set TEST_DATABASE_URL or run make bench): %w", err)
	}
	defer drop()
	dev, err := testenv.StartTemporal()
	if err != nil {
		return fmt.Errorf("temporal dev server: %w", err)
	}
	defer func() { _ = dev.Stop() }()
	tc, err := temporalclient.Dial(config.Config{TemporalAddress: dev.FrontendHostPort(), TemporalNamespace: "default"})
	if err != nil {
		return err
	}
	defer tc.Close()
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	cfg.RateLimitPerMinute = 1_000_000_000
	base, stopAPI, err := serveAPI(kit.Deps{Config: cfg, DB: db}, dbURL)
	if err != nil {
		return err
	}
	defer stopAPI()
	orgID, tokens, err := seedClients(db, webhookCreates)
	if err != nil {
		return err
	}

	rcv := newArrivals()
	defer rcv.Close()
	endpoint, err := webhooks.OperatorAddEndpoint(context.Background(), db, webhooks.NewEndpoint{
		OrganizationID: orgID, URL: rcv.URL, Events: []string{webhooks.AllEvents}, AllowHTTPLoopback: true})
	if err != nil {
		return err
	}
	queue := "ppwr-bench-webhooks-" + uuid.NewString()[:8]
	w := worker.New(worker.Deps{DB: db, Temporal: tc, TaskQueue: queue, WebhookAllowHTTPLoopback: true})
	w.RegisterWorkflow(postWorkflow)
	w.RegisterActivity(postID)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	relay := &worker.Relay{DB: db, Temporal: tc, TaskQueue: queue, RetryInitial: cfg.WebhookRetryInitial, RetryFor: cfg.WebhookRetryFor,
		Interval: time.Second, ListenURL: dbURL}
	ctx, stopRelay := context.WithCancel(context.Background())
	relayed := make(chan struct{})
	go func() { defer close(relayed); relay.Run(ctx) }()
	defer func() { stopRelay(); <-relayed }()

	fmt.Printf("webhooks: %d creates at once per round, %d rounds; relay and worker in this process; Temporal dev server %s\n\n",
		webhookCreates, webhookRounds, dev.FrontendHostPort())
	fmt.Printf("%-36s %-22s %-46s %s\n", "scenario", "target", "measured", "verdict")

	baseline, err := webhookRoundsOf(rcv, func() (map[string]time.Time, error) { return startPosts(tc, queue, rcv.URL) })
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	line("workflow start -> POST (baseline)", "-", p50p99(baseline, len(baseline.latencies)), "")
	create := itemCreateScenario(db, orgID, &tokenRing{tokens: tokens}).fullRequest
	first, err := webhookRoundsOf(rcv, func() (map[string]time.Time, error) { return createItems(db, base, create) })
	if err != nil {
		return fmt.Errorf("deliveries: %w", err)
	}
	line("event commit -> first attempt", "p99 <= "+ms(webhookTarget), p50p99(first, len(first.latencies)), verdict(first.percentile(0.99) <= webhookTarget))

	// Every delivery must have been made at its first attempt, once the
	// last ones have recorded theirs (after their POST arrived).
	var failed int64
	for deadline := time.Now().Add(webhookWait); ; time.Sleep(10 * time.Millisecond) {
		if err := db.Model(&webhooks.WebhookDelivery{}).Where("endpoint_id = ? AND (attempts <> 1 OR status <> ?)", endpoint.ID, webhooks.DeliverySucceeded).
			Count(&failed).Error; err != nil {
			return err
		}
		if failed == 0 || time.Now().After(deadline) {
			break
		}
	}
	line("deliveries not made at once", "0", fmt.Sprint(failed), verdict(failed == 0))
	fmt.Println()
	return nil
}

// webhookRoundsOf runs the rounds of send, which starts webhookCreates
// POSTs to the receiver and returns when each started by its id, and
// keeps the time each took to arrive, after the warm-up rounds. A random
// pause comes before each round, as changes come.
func webhookRoundsOf(rcv *arrivals, send func() (map[string]time.Time, error)) (result, error) {
	var r result
	for round := range webhookWarmup + webhookRounds {
		arrival()
		started, err := send()
		if err != nil {
			return r, err
		}
		for id, t0 := range started {
			at, err := rcv.wait(id, webhookWait)
			if err != nil {
				return r, err
			}
			if round >= webhookWarmup {
				r.latencies = append(r.latencies, at.Sub(t0))
			}
		}
	}
	slices.Sort(r.latencies)
	return r, nil
}

// createItems creates webhookCreates items at once through the API and
// returns the commit time of each one's event by event id.
func createItems(db *gorm.DB, base string, request func(base string, i int) (*http.Request, error)) (map[string]time.Time, error) {
	ids := make([]string, webhookCreates)
	errs := make([]error, webhookCreates)
	var wg sync.WaitGroup
	for i := range webhookCreates {
		wg.Go(func() {
			req, err := request(base, i)
			if err != nil {
				errs[i] = err
				return
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer res.Body.Close()
			var body struct {
				ID string `json:"id"`
			}
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusCreated {
				errs[i] = fmt.Errorf("create: %d %v", res.StatusCode, err)
			}
			ids[i] = body.ID
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var events []domain.Event
	if err := db.Where("type = 'catalog_item.created' AND body::jsonb #>> '{data,catalog_item_id}' IN ?", ids).Find(&events).Error; err != nil {
		return nil, err
	}
	if len(events) != webhookCreates {
		return nil, fmt.Errorf("%d creates emitted %d events", webhookCreates, len(events))
	}
	out := make(map[string]time.Time, len(events))
	for _, e := range events {
		out[e.ID.String()] = e.CreatedAt
	}
	return out, nil
}

// startPosts starts webhookCreates postWorkflows at once and returns when
// each started by the id it POSTs.
func startPosts(c client.Client, queue, url string) (map[string]time.Time, error) {
	out := make(map[string]time.Time, webhookCreates)
	var mu sync.Mutex
	errs := make([]error, webhookCreates)
	var wg sync.WaitGroup
	for i := range webhookCreates {
		wg.Go(func() {
			id, t0 := uuid.NewString(), time.Now()
			_, errs[i] = c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "bench-post/" + id, TaskQueue: queue}, postWorkflow, url, id)
			mu.Lock()
			out[id] = t0
			mu.Unlock()
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// postWorkflow POSTs id to url from one activity, as a delivery does.
func postWorkflow(ctx workflow.Context, url, id string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return workflow.ExecuteActivity(ctx, postID, url, id).Get(ctx, nil)
}

func postID(ctx context.Context, url, id string) error {
	body, _ := json.Marshal(map[string]string{"id": id})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return res.Body.Close()
}

// arrivals is a receiver that keeps when each id (the body's "id": an
// event's, or a baseline run's) first arrived.
type arrivals struct {
	*httptest.Server
	mu      sync.Mutex
	at      map[string]time.Time
	arrived chan struct{} // closed and replaced on every arrival
}

func newArrivals() *arrivals {
	a := &arrivals{at: map[string]time.Time{}, arrived: make(chan struct{})}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		var body struct {
			ID string `json:"id"`
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		a.mu.Lock()
		if _, seen := a.at[body.ID]; !seen {
			a.at[body.ID] = now
		}
		close(a.arrived)
		a.arrived = make(chan struct{})
		a.mu.Unlock()
	}))
	return a
}

// wait returns when id first arrived, waiting for it up to timeout.
func (a *arrivals) wait(id string, timeout time.Duration) (time.Time, error) {
	deadline := time.After(timeout)
	for {
		a.mu.Lock()
		at, ok := a.at[id]
		arrived := a.arrived
		a.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-arrived:
		case <-deadline:
			return time.Time{}, fmt.Errorf("%s did not arrive within %s", id, timeout)
		}
	}
}
