package packing_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	temporal "go.temporal.io/sdk/client"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/packing"
	"ppwr/internal/config"
	"ppwr/internal/input"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
	"ppwr/worker"
)

func reserve(t *testing.T, a *apitest.API, tn apitest.Tenant, set uuid.UUID, sets int, order string) *apitest.Response {
	t.Helper()
	return post(a, tn, "/packaging-systems/"+set.String()+"/reservations", setBody(t, a, tn, set, sets, order, 24))
}

func mustReserve(t *testing.T, a *apitest.API, tn apitest.Tenant, set uuid.UUID, sets int, order string) map[string]any {
	t.Helper()
	res := reserve(t, a, tn, set, sets, order)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON
}

func TestReservationLifecycle(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	box := newItem(t, a, tn, true)
	set := newSet(t, a, tn, 1, box)
	addStock(t, a, tn, box, 10)

	r := mustReserve(t, a, tn, set, 4, "R-1")
	id := r["id"].(string)
	assert.Equal(t, "held", r["status"])
	assert.Equal(t, float64(1), r["revision"])
	assert.Nil(t, r["usage"])
	expires, err := time.Parse(time.RFC3339, r["expires_at"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(24*time.Hour), expires, time.Minute)
	p, rs := balance(t, a, box)
	assert.Equal(t, []string{"10", "4"}, []string{p, rs}, "held, not used")
	var start domain.WorkflowStart
	require.NoError(t, a.DB.Where("workflow_id = ?", "reservation/"+id).Take(&start).Error, "the expiry workflow's start is recorded")
	assert.Equal(t, "ReservationExpiry", start.WorkflowType)

	t.Run("read and list", func(t *testing.T) {
		res := get(a, tn, "/packing-reservations/"+id)
		require.Equal(t, http.StatusOK, res.Code)
		assert.Equal(t, "R-1", res.JSON["order_reference"])
		res = get(a, tn, "/packing-reservations?status=held")
		require.Equal(t, http.StatusOK, res.Code)
		assert.Len(t, res.JSON["data"], 1)
		res = get(a, tn, "/packing-reservations?status=released")
		assert.Len(t, res.JSON["data"], 0)
		res = get(a, tn, "/packing-reservations?status=gone")
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	})
	t.Run("the parcel is claimed", func(t *testing.T) {
		res := post(a, tn, "/packaging-systems/"+set.String()+"/consumptions", setBody(t, a, tn, set, 1, "R-1", 0))
		require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
		assert.Equal(t, "order_reference_used", res.ErrorCode())
	})
	t.Run("more than available is refused", func(t *testing.T) {
		res := reserve(t, a, tn, set, 7, "R-2")
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, "insufficient_stock", res.ErrorCode())
	})

	consume := func(id string, revision any) *apitest.Response {
		return post(a, tn, "/packing-reservations/"+id+"/consume", map[string]any{"revision": revision, "event_on": today()})
	}
	release := func(id string, revision any) *apitest.Response {
		return post(a, tn, "/packing-reservations/"+id+"/release", map[string]any{"revision": revision})
	}
	res := consume(id, 2)
	require.Equal(t, http.StatusConflict, res.Code, "a stale revision")
	res = consume(id, 1)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, id, res.JSON["reservation"])
	assert.Equal(t, "R-1", res.JSON["order_reference"])
	assert.Equal(t, "PL", res.JSON["country"])
	assert.Equal(t, float64(4), res.JSON["sets_count"])
	usage := res.JSON["id"]
	p, rs = balance(t, a, box)
	assert.Equal(t, []string{"6", "0"}, []string{p, rs})

	requireEndedStart(t, a, id, "consumed")
	read := get(a, tn, "/packing-reservations/"+id)
	assert.Equal(t, "consumed", read.JSON["status"])
	assert.Equal(t, usage, read.JSON["usage"])
	assert.NotNil(t, read.JSON["ended_at"])
	res = consume(id, 2)
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "reservation_not_held", res.ErrorCode())
	res = release(id, 2)
	require.Equal(t, http.StatusOK, res.Code, "releasing a consumed reservation answers it unchanged")
	assert.Equal(t, "consumed", res.JSON["status"])
	p, rs = balance(t, a, box)
	assert.Equal(t, []string{"6", "0"}, []string{p, rs})

	t.Run("release", func(t *testing.T) {
		r := mustReserve(t, a, tn, set, 2, "R-3")
		res := release(r["id"].(string), 1)
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		assert.Equal(t, "released", res.JSON["status"])
		assert.Equal(t, float64(2), res.JSON["revision"])
		requireEndedStart(t, a, r["id"].(string), "released")
		p, rs := balance(t, a, box)
		assert.Equal(t, []string{"6", "0"}, []string{p, rs}, "availability restored")
		res = consume(r["id"].(string), 2)
		assert.Equal(t, "reservation_not_held", res.ErrorCode())
		res = post(a, tn, "/packaging-systems/"+set.String()+"/consumptions", setBody(t, a, tn, set, 1, "R-3", 0))
		require.Equal(t, http.StatusCreated, res.Code, "a released reservation gives its parcel up: %s", res.Body.String())
	})
	t.Run("expired before its workflow ran", func(t *testing.T) {
		r := mustReserve(t, a, tn, set, 2, "R-4")
		rid := r["id"].(string)
		require.NoError(t, a.DB.Model(&packing.Reservation{}).Where("id = ?", rid).Update("expires_at", time.Now().Add(-time.Second)).Error)
		assert.Equal(t, "expired", get(a, tn, "/packing-reservations/"+rid).JSON["status"])
		assert.Len(t, get(a, tn, "/packing-reservations?status=expired").JSON["data"], 1)
		res := consume(rid, 1)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code)
		assert.Equal(t, "reservation_expired", res.ErrorCode())
		res = release(rid, 1)
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		assert.Equal(t, "expired", res.JSON["status"])
		_, rs := balance(t, a, box)
		assert.Equal(t, "0", rs, "the hold is released")
		assert.Contains(t, a.EventTypes(tn.Org), "reservation.expired")
	})
	t.Run("every ingredient must be stock-tracked", func(t *testing.T) {
		loose := newItem(t, a, tn, false)
		res := reserve(t, a, tn, newSet(t, a, tn, 1, box, loose), 1, "R-5")
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, "not_stock_tracked", res.ErrorCode())
	})
	t.Run("bad fields", func(t *testing.T) {
		res := post(a, tn, "/packaging-systems/"+set.String()+"/reservations", map[string]any{"expires_in_hours": 169, "sets_count": 0})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code)
		for _, f := range []string{"revision", "configuration_hash", "sets_count", "order_reference", "country", "expires_in_hours"} {
			assert.Contains(t, res.FieldErrors(), f)
		}
		res = consume(id, nil)
		assert.Contains(t, res.FieldErrors(), "revision")
	})
	t.Run("a replay reserves once", func(t *testing.T) {
		req := apitest.Req{Method: http.MethodPost, Path: tn.Path("/packaging-systems/" + set.String() + "/reservations"), Token: tn.Token,
			Body: setBody(t, a, tn, set, 1, "R-7", 24), Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}}
		first, second := a.Do(req), a.Do(req)
		require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
		require.Equal(t, http.StatusCreated, second.Code, second.Body.String())
		assert.Equal(t, "true", second.Header().Get("Idempotent-Replayed"))
		assert.Equal(t, first.JSON["id"], second.JSON["id"])
		var n int64
		require.NoError(t, a.DB.Model(&packing.Reservation{}).Where("order_reference = ?", "R-7").Count(&n).Error)
		assert.Equal(t, int64(1), n)
	})
	t.Run("another organization", func(t *testing.T) {
		other := a.NewTenant(apitest.TenantSpec{})
		assert.Equal(t, http.StatusNotFound, get(a, other, "/packing-reservations/"+id).Code)
		assert.Equal(t, http.StatusNotFound, post(a, other, "/packing-reservations/"+id+"/release", map[string]any{"revision": 1}).Code)
		assert.Equal(t, http.StatusNotFound, post(a, other, "/packaging-systems/"+set.String()+"/reservations",
			setBody(t, a, tn, set, 1, "R-6", 24)).Code)
		assert.Len(t, get(a, other, "/packing-reservations").JSON["data"], 0)
	})
	assert.Subset(t, a.EventTypes(tn.Org), []string{"reservation.created", "reservation.consumed", "reservation.released"})
	requireLedgerBalanced(t, a, tn.Org)
}

// TestPackingUnderContention races reservations and set consumptions for
// one set whose stock makes exactly 100 sets.
func TestPackingUnderContention(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	set, box, filler := stockedSet(t, a, tn, 2, 200)
	revision, hash := configuration(t, a, tn, set)

	const requests = 240
	codes := make([]int, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := map[string]any{"revision": revision, "configuration_hash": hash, "sets_count": 1,
				"order_reference": fmt.Sprintf("C-%d", i), "country": "PL"}
			kind := "consumptions"
			if i%2 == 0 {
				kind, body["expires_in_hours"] = "reservations", 1
			} else {
				body["event_on"] = today()
			}
			codes[i] = post(a, tn, "/packaging-systems/"+set.String()+"/"+kind, body).Code
		}()
	}
	wg.Wait()
	succeeded := 0
	for _, code := range codes {
		switch code {
		case http.StatusCreated:
			succeeded++
		case http.StatusConflict, http.StatusUnprocessableEntity:
		default:
			t.Errorf("unexpected status %d", code)
		}
	}
	assert.Equal(t, 100, succeeded, "exactly the 100 sets the stock makes")
	for _, item := range []uuid.UUID{box, filler} {
		p, r := balance(t, a, item)
		var reservations int64
		require.NoError(t, a.DB.Model(&packing.Reservation{}).Where("organization_id = ?", tn.Org).Count(&reservations).Error)
		assert.Equal(t, fmt.Sprint(2*reservations), r, "each reservation holds its 2 pieces")
		physical, reserved := mustDecimal(t, p), mustDecimal(t, r)
		assert.True(t, physical.Equal(reserved), "physical − reserved = 0: nothing left to oversell")
	}
	requireLedgerBalanced(t, a, tn.Org)
}

// requireEndedStart checks that the change that ended reservation id
// recorded the start of the workflow that ends its expiry run, with the
// status it ended in.
func requireEndedStart(t *testing.T, a *apitest.API, id, status string) {
	t.Helper()
	var start domain.WorkflowStart
	require.NoError(t, a.DB.Where("workflow_id = ?", "reservation/"+id+"/ended").Take(&start).Error, "the expiry run's end is recorded")
	assert.Equal(t, packing.ReservationEndedWorkflow.Type, start.WorkflowType)
	assert.JSONEq(t, fmt.Sprintf(`{"organization_id":%q,"reservation_id":%q,"status":%q}`, start.OrganizationID, id, status), string(start.Input))
}

// workerFixture is a tenant with a packing set of one stock-tracked item,
// box, 3 in stock, a worker on a task queue of its own, and a relay to it.
type workerFixture struct {
	a        *apitest.API
	tn       apitest.Tenant
	box, set uuid.UUID
	temporal temporal.Client
	relay    *worker.Relay
}

func newWorkerFixture(t *testing.T, opts ...apitest.Option) *workerFixture {
	t.Helper()
	f := &workerFixture{a: apitest.New(t, append([]apitest.Option{apitest.WithServices()}, opts...)...), temporal: testenv.Temporal(t)}
	queue := "ppwr-reservations-" + uuid.NewString()
	w := worker.New(worker.Deps{DB: f.a.DB, Temporal: f.temporal, TaskQueue: queue})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	f.relay = &worker.Relay{DB: f.a.DB, Temporal: f.temporal, TaskQueue: queue}
	f.tn = f.a.NewTenant(apitest.TenantSpec{})
	f.box = newItem(t, f.a, f.tn, true)
	f.set = newSet(t, f.a, f.tn, 1, f.box)
	addStock(t, f.a, f.tn, f.box, 3)
	return f
}

// startRecorded makes the recorded workflow starts no other transaction
// holds.
func (f *workerFixture) startRecorded(t *testing.T) {
	t.Helper()
	_, err := f.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
}

// requireExpiryEnded checks that the reservation's 24-hour expiry run
// closes now, expiring nothing, with outcome.
func (f *workerFixture) requireExpiryEnded(t *testing.T, id, outcome string) {
	t.Helper()
	var expired bool
	apitest.RequireOutcome(t, f.temporal, "reservation/"+id, outcome, &expired)
	assert.False(t, expired)
}

// A released reservation's expiry run closes once the relay starts the
// recorded end, long before the hold would have run out, with the
// release as its outcome.
func TestAReleaseEndsTheExpiryRunThroughWorker(t *testing.T) {
	f := newWorkerFixture(t)
	id := mustReserve(t, f.a, f.tn, f.set, 1, "E-2")["id"].(string)
	f.startRecorded(t)
	res := post(f.a, f.tn, "/packing-reservations/"+id+"/release", map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	f.startRecorded(t)
	f.requireExpiryEnded(t, id, packing.ReservationStatusReleased)
}

// Several workers relay starts at once, so a reservation's end can be
// started before its expiry run: one relay holds the expiry's row, slow to
// start it, while another takes the end's, recorded later. The end's
// signal then finds no run to stop, and the expiry run, once started, ends
// all the same instead of waiting out the hold.
func TestAnEndStartedBeforeItsExpiryRunStillEndsIt(t *testing.T) {
	f := newWorkerFixture(t)
	id := mustReserve(t, f.a, f.tn, f.set, 1, "E-3")["id"].(string)
	res := post(f.a, f.tn, "/packing-reservations/"+id+"/release", map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())

	apitest.StartEndFirst(t, f.relay, "reservation/"+id, "reservation/"+id+"/ended")
	f.requireExpiryEnded(t, id, packing.ReservationStatusReleased)
}

// TestReservationExpiresThroughWorker runs a 1-hour reservation whose
// timer the test-only cap shortens to 2 s, through the relay, Temporal and
// a worker.
func TestReservationExpiresThroughWorker(t *testing.T) {
	f := newWorkerFixture(t, apitest.WithConfig(func(c *config.Config) { c.ReservationTimerCap = 2 * time.Second }))
	a, tn := f.a, f.tn

	res := post(a, tn, "/packaging-systems/"+f.set.String()+"/reservations", setBody(t, a, tn, f.set, 3, "E-1", 1))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	f.startRecorded(t)

	require.Eventually(t, func() bool {
		var r packing.Reservation
		require.NoError(t, a.DB.Take(&r, "id = ?", id).Error)
		return r.Status == packing.ReservationStatusExpired
	}, 30*time.Second, 200*time.Millisecond, "the worker expires the reservation")
	p, r := balance(t, a, f.box)
	assert.Equal(t, []string{"3", "0"}, []string{p, r}, "available stock restored")
	assert.Contains(t, a.EventTypes(tn.Org), "reservation.expired")
	var claims int64
	require.NoError(t, a.DB.Table("parcel_claims").Where("order_reference = ?", "E-1").Count(&claims).Error)
	assert.Zero(t, claims, "the parcel's claim is given up")
	requireLedgerBalanced(t, a, tn.Org)
}

// A recipe change that commits while a reservation reads the set is not
// missed: the reservation waits for the change's lock on the set, and is
// then refused as packing by the revision before, holding nothing.
func TestAReservationWaitsForARecipeChangeAndIsRefused(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	set, box, filler := stockedSet(t, a, tn, 1, 10)
	revision, hash := configuration(t, a, tn, set)
	var line packing.PackagingSystemLine
	require.NoError(t, a.DB.Where("packaging_system_id = ? AND catalog_item_id = ?", set, box).Take(&line).Error)

	// The change, two boxes a set, made and held open before committing.
	ctx := context.Background()
	change := work.New(ctx, a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: tn.Org})
	defer change.Rollback()
	_, _, _, err := packing.UpsertPackagingSystemLine(change, set, &packing.PackagingSystemLineInput{
		Revision: input.Of(revision), Line: input.Of(line.ID), Quantity: input.Of(decimal.NewFromInt(2))})
	require.NoError(t, err)

	body := map[string]any{"revision": revision, "configuration_hash": hash, "sets_count": 1, "order_reference": "W-1",
		"country": "PL", "expires_in_hours": 24}
	reserved := make(chan *apitest.Response, 1)
	go func() { reserved <- post(a, tn, "/packaging-systems/"+set.String()+"/reservations", body) }()
	// The reservation must wait for the change's lock on the set, not
	// answer first.
	for waiting := int64(0); waiting == 0; {
		select {
		case res := <-reserved:
			t.Fatalf("the reservation did not wait for the recipe change: %d %s", res.Code, res.Body.String())
		case <-time.After(10 * time.Millisecond):
		}
		require.NoError(t, a.DB.Raw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).
			Scan(&waiting).Error)
	}
	require.NoError(t, domain.Commit(change, domain.AuditEntry{Operation: "test"}))

	res := <-reserved
	require.Equal(t, http.StatusConflict, res.Code, "made by the recipe replaced: %s", res.Body.String())
	assert.Equal(t, "revision_conflict", res.JSON["error"].(map[string]any)["code"])
	for _, item := range []uuid.UUID{box, filler} {
		_, r := balance(t, a, item)
		assert.Equal(t, "0", r, "nothing held")
	}
	newRevision, newHash := configuration(t, a, tn, set)
	assert.Equal(t, revision+1, newRevision)
	assert.NotEqual(t, hash, newHash)
}
