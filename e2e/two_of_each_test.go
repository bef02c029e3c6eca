package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/workflows"
)

// Two APIs and two workers on one database, Temporal and bucket: an
// integration works through both APIs in turn (catalogue, stock,
// reservations, imports, its own webhook endpoints), and one worker is
// killed in the middle of an import. Every recorded workflow start is
// made once and runs once, every event reaches each endpoint once, the
// housekeeping schedule exists once, and the import completes on the
// other worker with every row applied once.
func TestTwoOfEach(t *testing.T) {
	st := startStack(t, 2, 2)
	boot := st.admin(t, "bootstrap", "--name", "Two of each")
	org := boot["organizationId"].(string)
	api := st.integration(org, boot["apiKey"].(string))

	// The endpoints come first, so that every event of the organization
	// has a delivery to each.
	hooks := newReceiver(t)
	for _, path := range []string{"/a", "/b"} {
		ep := api.post(t, "/webhook-endpoints", map[string]any{"url": hooks.url + path}, http.StatusCreated)
		hooks.expect(path, ep["secret"].(string))
	}

	item := func(code string, tracked bool) string {
		return api.post(t, "/catalog-items", catalogItem(code, tracked), http.StatusCreated)["id"].(string)
	}
	box, filler := item("BOX", true), item("FILLER", true)
	renamed := item("RENAMED", false)
	for i := range 3 {
		item(fmt.Sprintf("ITEM-%d", i), false)
	}

	today := time.Now().UTC().Format(time.DateOnly)
	for _, id := range []string{box, filler} {
		api.post(t, "/catalog-items/"+id+"/supply-events", map[string]any{"catalog_revision": 1, "direction": "opening_balance",
			"quantity_units": "100", "event_on": today}, http.StatusCreated)
	}
	set := api.post(t, "/packaging-systems", map[string]any{"name": "Parcel S", "code": "PS"}, http.StatusCreated)
	setPath, revision := "/packaging-systems/"+set["id"].(string), set["revision"]
	for i, it := range []string{box, filler} {
		revision = api.post(t, setPath+"/items", map[string]any{"revision": revision, "item": it, "quantity": "1", "unit": "piece",
			"role": []string{"container", "filler"}[i], "outer_packaging": i == 0}, http.StatusCreated)["revision"]
	}
	recipe := api.get(t, setPath+"/configuration")
	reserve := func(order string) string {
		return api.post(t, setPath+"/reservations", map[string]any{"revision": recipe["revision"],
			"configuration_hash": recipe["configuration_hash"], "sets_count": 1, "order_reference": order, "country": "PL",
			"expires_in_hours": 24}, http.StatusCreated)["id"].(string)
	}
	consumed, released, held := reserve("SO-1"), reserve("SO-2"), reserve("SO-3")
	api.post(t, "/packing-reservations/"+consumed+"/consume", map[string]any{"revision": 1, "event_on": today}, http.StatusOK)
	api.post(t, "/packing-reservations/"+released+"/release", map[string]any{"revision": 1}, http.StatusOK)
	assert.Equal(t, "held", api.get(t, "/packing-reservations/"+held)["status"])
	stock := api.get(t, "/catalog-items/"+box+"/inventory")["stock"].(map[string]any)
	requireDecimal(t, "99", stock["physical"], "one set packed")
	requireDecimal(t, "1", stock["reserved"], "one set held")

	small := catalogCSV(20, func(i int) string { return fmt.Sprintf("SMALL-%02d,Small %d", i, i) })
	imported := importFile(t, api, "small.csv", small, 20, 0)
	api.do(t, http.MethodPost, "/imports/"+imported+"/apply", nil, "", http.StatusAccepted)
	assert.Equal(t, "completed", api.awaitImport(t, imported, time.Minute, "completed", "completed_with_errors")["status"])

	// Every delivery so far is made before a worker is killed: a delivery
	// whose POST was in flight on the killed worker would be sent again
	// (at least once, as the README tells receivers), which is not what
	// this test counts.
	st.requireDeliveredOnce(t, org, hooks)

	st.killMidImport(t, api, renamed)

	st.requireDeliveredOnce(t, org, hooks)
	st.requireStartedOnce(t, org)
	for id, outcome := range map[string]string{consumed: "consumed", released: "released"} {
		st.awaitRuns(t, fmt.Sprintf("WorkflowId = 'reservation/%s' AND ExecutionStatus = 'Completed' AND Outcome = '%s'", id, outcome), 1)
	}
	st.awaitRuns(t, fmt.Sprintf("WorkflowId = 'reservation/%s' AND ExecutionStatus = 'Running'", held), 1)
	st.requireOneSchedule(t)
}

// killMidImport applies a bulk import and kills, with SIGKILL, the worker
// running its apply once the apply has committed its first batches; the
// import must complete on the other worker with each row applied once.
// renamed is an item a row in the middle of the file changes.
func (st *stack) killMidImport(t *testing.T, api *apiClient, renamed string) {
	const rows, middle = 5000, 2500
	file := catalogCSV(rows, func(i int) string {
		if i == middle {
			return "RENAMED,Renamed by the bulk import"
		}
		return fmt.Sprintf("BULK-%05d,Bulk %d", i, i)
	})
	id := importFile(t, api, "bulk.csv", file, rows-1, 1)

	// The apply is caught in its middle by the row lock of the item it
	// renames, which a transaction of the test holds: the batches before
	// that row commit, and the one holding it waits.
	lock := st.db.Begin()
	t.Cleanup(func() { lock.Rollback() })
	require.NoError(t, lock.Exec("SELECT id FROM catalog_items WHERE id = ? FOR UPDATE", renamed).Error)
	api.do(t, http.MethodPost, "/imports/"+id+"/apply", nil, "", http.StatusAccepted)
	await(t, time.Minute, "the apply's first batches", func() (bool, any) {
		imp := api.get(t, "/imports/"+id)
		return imp["status"] == "applying" && progressDone(imp) > 0, imp
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	workflowID := "import/" + id + "/apply"
	var identity string
	await(t, 30*time.Second, "the apply's activity on a worker", func() (bool, any) {
		d, err := st.temporal.DescribeWorkflowExecution(ctx, workflowID, "")
		require.NoError(t, err)
		for _, a := range d.GetPendingActivities() {
			if a.GetActivityType().GetName() == "Apply" && a.GetLastWorkerIdentity() != "" {
				require.EqualValues(t, 1, a.GetAttempt(), "the first attempt is the one killed")
				identity = a.GetLastWorkerIdentity()
				return true, a
			}
		}
		return false, d.GetPendingActivities()
	})
	victim := st.worker(t, identity)
	victim.kill(t)
	mid := api.get(t, "/imports/"+id)
	require.Equal(t, "applying", mid["status"])
	require.Less(t, progressDone(mid), float64(rows), "killed in the middle: %v", mid["progress"])
	require.NoError(t, lock.Rollback().Error)

	// Temporal gives the apply to the other worker once its heartbeat is
	// overdue (workflows.applyHeartbeat), and it resumes after the last
	// batch the killed worker heartbeated.
	done := api.awaitImport(t, id, 2*time.Minute, "completed", "completed_with_errors")
	require.Equal(t, "completed", done["status"], "%v", done)
	assert.Equal(t, map[string]any{"create": float64(rows - 1), "update": float64(1), "unchanged": float64(0), "invalid": float64(0)}, done["counts"])
	assert.Equal(t, float64(rows), progressDone(done))
	assert.Equal(t, float64(rows), done["progress"].(map[string]any)["total"])

	// The attempt that completed the apply ran on the other worker.
	survivor := st.workers[1-slices.Index(st.workers, victim)]
	require.True(t, survivor.alive())
	var started []int32
	history := st.temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for history.HasNext() {
		e, err := history.Next()
		require.NoError(t, err)
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			started = append(started, a.GetAttempt())
			assert.True(t, survivor.is(a.GetIdentity()), "completed by %s, not the surviving %s", a.GetIdentity(), survivor.name)
		}
	}
	require.Len(t, started, 1, "one activity, recorded once")
	assert.Greater(t, started[0], int32(1), "retried after the kill")

	// Each row was applied once: every item exists once, and each row is
	// named by exactly one batch's audit entry, its change having committed
	// with it.
	var items, codes int64
	require.NoError(t, st.db.Raw(`SELECT count(*), count(DISTINCT internal_code) FROM catalog_items
		WHERE organization_id = ? AND internal_code LIKE 'BULK-%'`, api.org).Row().Scan(&items, &codes))
	assert.EqualValues(t, rows-1, items)
	assert.EqualValues(t, rows-1, codes)
	var numbers, audited []int
	require.NoError(t, st.db.Raw(`SELECT number FROM import_rows WHERE import_id = ? AND applied IS NOT NULL ORDER BY number`, id).
		Scan(&numbers).Error)
	require.NoError(t, st.db.Raw(`SELECT jsonb_array_elements(summary->'rows')::int AS n FROM audit_log
		WHERE operation = 'applyImport' AND summary->>'import' = ? ORDER BY n`, id).Scan(&audited).Error)
	assert.Len(t, numbers, rows, "every row applied")
	assert.Equal(t, numbers, audited, "every row applied by one committed batch")
	item := api.get(t, "/catalog-items/"+renamed)
	assert.Equal(t, "Renamed by the bulk import", item["name"])
	assert.EqualValues(t, 2, item["revision"], "renamed once")
}

// importFile uploads a catalogue CSV file and waits for its preview,
// which must plan creates new items and updates changed ones; it returns
// the import's id.
func importFile(t *testing.T, api *apiClient, name string, file []byte, creates, updates int) string {
	t.Helper()
	id := api.upload(t, name, file)["id"].(string)
	ready := api.awaitImport(t, id, time.Minute, "ready", "failed")
	require.Equal(t, "ready", ready["status"], "%v", ready)
	counts := ready["counts"].(map[string]any)
	require.EqualValues(t, creates, counts["create"], "%v", counts)
	require.EqualValues(t, updates, counts["update"], "%v", counts)
	return id
}

// catalogItem is the body of a catalogue item; catalogCSV's rows hold the
// same values.
func catalogItem(code string, tracked bool) map[string]any {
	return map[string]any{"internalCode": code, "name": code, "sourcingType": "purchased", "massG": "10",
		"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "stockTracked": tracked,
		"foodContactStatus": "not_food_contact", "reuseType": "single_use"}
}

// catalogCSV is a catalogue import of rows items, untracked, whose code
// and name cells row(i) gives, i counting from 1.
func catalogCSV(rows int, row func(i int) string) []byte {
	var b strings.Builder
	b.WriteString("internalCode,name,sourcingType,massG,mainMaterialCode,stockUnit,stockTracked,foodContactStatus,reuseType\n")
	for i := 1; i <= rows; i++ {
		b.WriteString(row(i) + ",purchased,10,PLASTIC_PET,piece,false,not_food_contact,single_use\n")
	}
	return []byte(b.String())
}

func progressDone(imp map[string]any) float64 {
	done, _ := imp["progress"].(map[string]any)["done"].(float64)
	return done
}

func requireDecimal(t *testing.T, want string, got any, msg string) {
	t.Helper()
	s, _ := got.(string)
	d, err := decimal.NewFromString(s)
	require.NoError(t, err, "%s: %v", msg, got)
	require.True(t, decimal.RequireFromString(want).Equal(d), "%s: %s, not %s", msg, s, want)
}

// requireDeliveredOnce waits until every event of the organization is
// relayed and its deliveries have ended, then checks that each event
// reached each endpoint exactly once, at its delivery's first attempt.
func (st *stack) requireDeliveredOnce(t *testing.T, org string, hooks *receiver) {
	t.Helper()
	var events []uuid.UUID
	var endpoints int
	await(t, 2*time.Minute, "every event delivered", func() (bool, any) {
		var waiting struct{ Unrelayed, Pending, Unstarted int }
		require.NoError(t, st.db.Raw(`SELECT id FROM events WHERE organization_id = ? ORDER BY id`, org).Scan(&events).Error)
		require.NoError(t, st.db.Raw(`SELECT
			(SELECT count(*) FROM events WHERE relayed_at IS NULL) AS unrelayed,
			(SELECT count(*) FROM webhook_deliveries WHERE status = ?) AS pending,
			(SELECT count(*) FROM workflow_starts WHERE started_at IS NULL) AS unstarted`, webhooks.DeliveryPending).
			Scan(&waiting).Error)
		got, _ := hooks.received()
		endpoints = len(got)
		received := 0
		for _, byEvent := range got {
			received += len(byEvent)
		}
		return waiting.Unrelayed+waiting.Pending+waiting.Unstarted == 0 && received >= endpoints*len(events),
			fmt.Sprintf("%+v, %d of %d deliveries received", waiting, received, endpoints*len(events))
	})
	require.NotEmpty(t, events)
	got, refused := hooks.received()
	require.Empty(t, refused, "deliveries the receiver refused")
	for path, byEvent := range got {
		assert.Len(t, byEvent, len(events), "%s received every event", path)
		for _, e := range events {
			assert.Equal(t, 1, byEvent[e], "%s received event %s once", path, e)
		}
	}
	var deliveries []webhooks.WebhookDelivery
	require.NoError(t, st.db.Find(&deliveries).Error)
	assert.Len(t, deliveries, endpoints*len(events), "one delivery per event and endpoint")
	for _, d := range deliveries {
		assert.Equal(t, webhooks.DeliverySucceeded, d.Status, "delivery %s", d.ID)
		assert.Equal(t, 1, d.Attempts, "delivery %s succeeded at once", d.ID)
	}
}

// requireStartedOnce checks that every recorded workflow start was made,
// each workflow id recorded once, and that Temporal ran exactly the one
// run the relay recorded for each, and no run of the organization that
// was not recorded.
func (st *stack) requireStartedOnce(t *testing.T, org string) {
	t.Helper()
	var starts []domain.WorkflowStart
	require.NoError(t, st.db.Order("created_at").Find(&starts).Error)
	recorded := map[string]string{} // workflow id → run id
	for _, s := range starts {
		require.NotNil(t, s.StartedAt, "%s started", s.WorkflowID)
		require.NotContains(t, recorded, s.WorkflowID, "workflow id recorded once")
		assert.Equal(t, org, s.OrganizationID, s.WorkflowID)
		recorded[s.WorkflowID] = *s.RunID
	}
	var runs map[string][]string
	await(t, 30*time.Second, "every recorded run visible", func() (bool, any) {
		runs = st.runs(t, fmt.Sprintf("OrganizationId = '%s'", org))
		for id, run := range recorded {
			if !slices.Contains(runs[id], run) {
				return false, id + " " + run
			}
		}
		return true, nil
	})
	for id, run := range recorded {
		assert.Equal(t, []string{run}, runs[id], "%s ran once", id)
	}
	assert.Len(t, runs, len(recorded), "every run of the organization was recorded")
}

// runs lists the runs a visibility query finds, by workflow id.
func (st *stack) runs(t *testing.T, query string) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runs := map[string][]string{}
	req := &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query}
	for {
		res, err := st.temporal.ListWorkflow(ctx, req)
		require.NoError(t, err)
		for _, e := range res.GetExecutions() {
			runs[e.GetExecution().GetWorkflowId()] = append(runs[e.GetExecution().GetWorkflowId()], e.GetExecution().GetRunId())
		}
		if len(res.GetNextPageToken()) == 0 {
			return runs
		}
		req.NextPageToken = res.GetNextPageToken()
	}
}

// awaitRuns waits until a visibility query finds n runs.
func (st *stack) awaitRuns(t *testing.T, query string, n int) {
	t.Helper()
	await(t, time.Minute, query, func() (bool, any) {
		runs := st.runs(t, query)
		return len(runs) == n, runs
	})
}

// requireOneSchedule checks that the namespace holds one schedule, the
// housekeeping one both workers ensured at their start, on the task queue.
func (st *stack) requireOneSchedule(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var ids []string
	await(t, 30*time.Second, "the schedule listed", func() (bool, any) {
		ids = nil
		list, err := st.temporal.ScheduleClient().List(ctx, client.ScheduleListOptions{})
		require.NoError(t, err)
		for list.HasNext() {
			s, err := list.Next()
			require.NoError(t, err)
			ids = append(ids, s.ID)
		}
		return len(ids) > 0, ids
	})
	require.Equal(t, []string{workflows.HousekeepingScheduleID}, ids)
	d, err := st.temporal.ScheduleClient().GetHandle(ctx, workflows.HousekeepingScheduleID).Describe(ctx)
	require.NoError(t, err)
	action, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
	require.True(t, ok, "%T", d.Schedule.Action)
	assert.Equal(t, taskQueue, action.TaskQueue)
	assert.Equal(t, workflows.HousekeepingType, action.Workflow)
}
