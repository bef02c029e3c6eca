package worker_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
	"ppwr/worker"
)

// durableStartType is the registered name of durableStart: recorded starts
// name their workflow by type name, as a domain declaration does.
const durableStartType = "ppwr-test.DurableStart"

// startInput stands in for a real workflow's argument: ids and scalars
// that must arrive typed, not as a map of float64.
type startInput struct {
	RecordID uuid.UUID `json:"record_id"`
	Revision int       `json:"revision"`
	// Big is above 2^53, where a float64 would round it.
	Big   int64  `json:"big"`
	Label string `json:"label"`
	// Hold keeps the run open until it is sent "release".
	Hold bool `json:"hold"`
}

// durableStart records its run through an activity, so a second run of
// the same workflow id would be counted, and returns its input.
func durableStart(ctx workflow.Context, in startInput) (startInput, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	if err := workflow.ExecuteActivity(ctx, countStartedRun, in).Get(ctx, nil); err != nil {
		return startInput{}, err
	}
	if in.Hold {
		var msg string
		workflow.GetSignalChannel(ctx, "release").Receive(ctx, &msg)
	}
	return in, nil
}

// startedRuns counts durableStart's runs per workflow id, with the input
// each run received.
var startedRuns = struct {
	mu     sync.Mutex
	runs   map[string]int
	inputs map[string]startInput
}{runs: map[string]int{}, inputs: map[string]startInput{}}

func countStartedRun(ctx context.Context, in startInput) error {
	id := activity.GetInfo(ctx).WorkflowExecution.ID
	startedRuns.mu.Lock()
	defer startedRuns.mu.Unlock()
	startedRuns.runs[id]++
	startedRuns.inputs[id] = in
	return nil
}

func runsOf(workflowID string) (int, startInput) {
	startedRuns.mu.Lock()
	defer startedRuns.mu.Unlock()
	return startedRuns.runs[workflowID], startedRuns.inputs[workflowID]
}

type startsFixture struct {
	db       *gorm.DB
	temporal client.Client
	queue    string
	org      uuid.UUID
}

// newStartsFixture runs a worker from worker.New with durableStart
// registered, on a task queue of its own.
func newStartsFixture(t *testing.T) *startsFixture {
	t.Helper()
	db := testenv.DB(t)
	c := testenv.Temporal(t)
	org, err := accounts.CreateOrganization(context.Background(), db, "Starts "+uuid.NewString()[:8], "st-"+uuid.NewString())
	require.NoError(t, err)
	queue := "ppwr-starts-" + uuid.NewString()
	w := worker.New(worker.Deps{DB: db, Temporal: c, TaskQueue: queue, WebhookAllowHTTPLoopback: true})
	w.RegisterWorkflowWithOptions(durableStart, workflow.RegisterOptions{Name: durableStartType})
	w.RegisterActivity(countStartedRun)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	markStartedOnCleanup(t, db, org.ID)
	return &startsFixture{db: db, temporal: c, queue: queue, org: org.ID}
}

// markStartedOnCleanup marks org's unstarted rows started when the test
// ends: the package shares one database, and a test that fails half way
// must not leave rows for the next test's relay to start on its queue.
func markStartedOnCleanup(t *testing.T, db *gorm.DB, org uuid.UUID) {
	t.Cleanup(func() {
		db.Model(&domain.WorkflowStart{}).Where("started_at IS NULL AND organization_id = ?", org.String()).
			Update("started_at", time.Now().UTC())
	})
}

func (f *startsFixture) relay() *worker.Relay {
	return &worker.Relay{DB: f.db, Temporal: f.temporal, TaskQueue: f.queue, Interval: 50 * time.Millisecond}
}

// record commits a change together with the start of the workflow that
// must follow it, in one unit of work, as a domain command does
// (domain.Start builds the row with NewWorkflowStart and defers it).
func (f *startsFixture) record(t *testing.T, in startInput) *domain.WorkflowStart {
	t.Helper()
	w := work.New(context.Background(), f.db, work.Actor{Kind: work.ActorSystem, OrganizationID: f.org, Reference: "test"})
	require.NoError(t, w.Tx().Model(&accounts.Organization{}).Where("id = ?", f.org).Update("name", "Changed "+uuid.NewString()[:8]).Error)
	workflowID := "test-durable/" + in.RecordID.String()
	start, err := domain.NewWorkflowStart(workflowID, durableStartType, f.org.String(), in.RecordID.String(), in)
	require.NoError(t, err)
	start.Summary = "Durable start of `" + in.Label + "`"
	require.NoError(t, w.Defer(start))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.record"}))
	var s domain.WorkflowStart
	require.NoError(t, f.db.First(&s, "workflow_id = ?", workflowID).Error)
	return &s
}

func (f *startsFixture) row(t *testing.T, id uuid.UUID) domain.WorkflowStart {
	t.Helper()
	var s domain.WorkflowStart
	require.NoError(t, f.db.First(&s, "id = ?", id).Error)
	return s
}

// wait waits for the workflow's run to complete and returns its result.
func (f *startsFixture) wait(t *testing.T, workflowID string) startInput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out startInput
	require.NoError(t, f.temporal.GetWorkflow(ctx, workflowID, "").Get(ctx, &out), "the workflow completes")
	return out
}

// latestRun is the id and status of the workflow id's latest run: were the
// workflow started a second time, that run would be the latest.
func (f *startsFixture) latestRun(t *testing.T, workflowID string) (string, enumspb.WorkflowExecutionStatus) {
	t.Helper()
	desc, err := f.temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	require.NoError(t, err)
	info := desc.GetWorkflowExecutionInfo()
	return info.GetExecution().GetRunId(), info.GetStatus()
}

func (f *startsFixture) assertNotInTemporal(t *testing.T, workflowID string) {
	t.Helper()
	_, err := f.temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	var notFound *serviceerror.NotFound
	assert.ErrorAs(t, err, &notFound, "workflow %s does not exist", workflowID)
}

func newInput() startInput {
	return startInput{RecordID: uuid.New(), Revision: 3, Big: 1<<53 + 1, Label: "Ł<&>\"é"}
}

// The proof: a committed start is not in Temporal until the relay
// runs; two relays running at once start every workflow exactly once.
func TestCommittedStartRunsExactlyOnce(t *testing.T) {
	f := newStartsFixture(t)
	var recorded []*domain.WorkflowStart
	for range 3 {
		recorded = append(recorded, f.record(t, newInput()))
	}
	for _, s := range recorded {
		f.assertNotInTemporal(t, s.WorkflowID)
		row := f.row(t, s.ID)
		assert.Nil(t, row.StartedAt)
		assert.Nil(t, row.RunID)
	}

	relays := []*worker.Relay{f.relay(), f.relay()}
	var (
		wg      sync.WaitGroup
		gate    = make(chan struct{})
		started = make([]int, len(relays))
		errs    = make([]error, len(relays))
	)
	for i, r := range relays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			started[i], errs[i] = r.StartWorkflows(context.Background())
		}()
	}
	close(gate)
	wg.Wait()
	for i := range relays {
		require.NoError(t, errs[i], "relay %d", i)
	}
	assert.Equal(t, len(recorded), started[0]+started[1], "every start made by one relay or the other")

	for _, s := range recorded {
		f.wait(t, s.WorkflowID)
		runs, _ := runsOf(s.WorkflowID)
		assert.Equal(t, 1, runs, "%s ran exactly once", s.WorkflowID)
		row := f.row(t, s.ID)
		require.NotNil(t, row.StartedAt, "marked started")
		require.NotNil(t, row.RunID)
		runID, status := f.latestRun(t, s.WorkflowID)
		assert.Equal(t, runID, *row.RunID, "the marked run is the only run")
		assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, status)
		assert.Equal(t, 1, row.Attempts)
		assert.Empty(t, row.LastError)
	}

	n, err := f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "a started workflow is not started again")
	for _, s := range recorded {
		runs, _ := runsOf(s.WorkflowID)
		assert.Equal(t, 1, runs)
	}
}

// The Temporal UI shows a started run's recorded summary, with the name of
// its organization, and the ids in its details.
func TestStartedRunCarriesItsSummary(t *testing.T) {
	f := newStartsFixture(t)
	s := f.record(t, newInput())
	_, err := f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	f.wait(t, s.WorkflowID)
	var org accounts.Organization
	require.NoError(t, f.db.Take(&org, "id = ?", f.org).Error)

	desc, err := f.temporal.DescribeWorkflow(context.Background(), s.WorkflowID, "")
	require.NoError(t, err)
	summary, err := desc.GetStaticSummary()
	require.NoError(t, err)
	assert.Equal(t, "Durable start of `Ł<&>\"é` · "+org.Name, summary)
	details, err := desc.GetStaticDetails()
	require.NoError(t, err)
	assert.Contains(t, details, f.org.String())
	assert.Contains(t, details, s.ResourceID)
}

// The relay dies after starting a workflow and before marking its row; the
// next pass starts it again and joins the run instead of running it twice,
// whether that run is still open or has closed.
func TestStartRepeatedAfterACrashJoinsTheRun(t *testing.T) {
	f := newStartsFixture(t)
	heldIn := newInput()
	heldIn.Hold = true
	held, done := f.record(t, heldIn), f.record(t, newInput())
	n, err := f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, n)
	f.wait(t, done.WorkflowID)
	require.Eventually(t, func() bool { runs, _ := runsOf(held.WorkflowID); return runs == 1 }, 30*time.Second, 20*time.Millisecond)
	firstRun := map[uuid.UUID]string{held.ID: *f.row(t, held.ID).RunID, done.ID: *f.row(t, done.ID).RunID}

	// The crash: Temporal has the runs, the rows say not started.
	require.NoError(t, f.db.Model(&domain.WorkflowStart{}).Where("id IN ?", []uuid.UUID{held.ID, done.ID}).
		Updates(map[string]any{"started_at": nil, "run_id": nil}).Error)

	n, err = f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, n, "both rows are marked on the next pass")
	for _, s := range []*domain.WorkflowStart{held, done} {
		row := f.row(t, s.ID)
		require.NotNil(t, row.StartedAt)
		require.NotNil(t, row.RunID)
		assert.Equal(t, firstRun[s.ID], *row.RunID, "%s: the existing run, not a new one", s.WorkflowID)
		assert.Equal(t, 2, row.Attempts)
	}

	require.NoError(t, f.temporal.SignalWorkflow(context.Background(), held.WorkflowID, "", "release", "go"))
	f.wait(t, held.WorkflowID)
	for _, s := range []*domain.WorkflowStart{held, done} {
		runs, _ := runsOf(s.WorkflowID)
		assert.Equal(t, 1, runs, "%s ran exactly once", s.WorkflowID)
		runID, status := f.latestRun(t, s.WorkflowID)
		assert.Equal(t, firstRun[s.ID], runID)
		assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, status)
	}
}

// A change that rolls back takes its start with it: no row, no workflow.
func TestRolledBackChangeStartsNothing(t *testing.T) {
	f := newStartsFixture(t)
	in := newInput()
	s, err := domain.NewWorkflowStart("test-durable/"+in.RecordID.String(), durableStartType, f.org.String(), in.RecordID.String(), in)
	require.NoError(t, err)
	errRollback := errors.New("the change failed")
	err = f.db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&accounts.Organization{}).Where("id = ?", f.org).Update("name", "Rolled back").Error; err != nil {
			return err
		}
		if err := tx.Create(s).Error; err != nil {
			return err
		}
		return errRollback
	})
	require.ErrorIs(t, err, errRollback)
	var rows int64
	require.NoError(t, f.db.Model(&domain.WorkflowStart{}).Where("workflow_id = ?", s.WorkflowID).Count(&rows).Error)
	assert.Zero(t, rows)

	n, err := f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n)
	time.Sleep(200 * time.Millisecond)
	f.assertNotInTemporal(t, s.WorkflowID)
	runs, _ := runsOf(s.WorkflowID)
	assert.Zero(t, runs)
}

// The workflow receives its argument typed, exactly as recorded, and the
// run carries the search attributes of the row.
func TestStartInputArrivesTyped(t *testing.T) {
	f := newStartsFixture(t)
	in := newInput()
	s := f.record(t, in)
	n, err := f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)

	assert.Equal(t, in, f.wait(t, s.WorkflowID), "the workflow's result is its input")
	_, got := runsOf(s.WorkflowID)
	assert.Equal(t, in, got, "the activity received it typed as well")

	desc, err := f.temporal.DescribeWorkflowExecution(context.Background(), s.WorkflowID, "")
	require.NoError(t, err)
	info := desc.GetWorkflowExecutionInfo()
	assert.Equal(t, durableStartType, info.GetType().GetName())
	assert.Equal(t, f.queue, info.GetTaskQueue())
	assert.Equal(t, f.org.String(), keyword(t, info.GetSearchAttributes(), "OrganizationId"))
	assert.Equal(t, in.RecordID.String(), keyword(t, info.GetSearchAttributes(), "ResourceId"))
}

// While Temporal is unreachable every start fails on its own and is
// counted; the next pass with Temporal back starts them all, once.
func TestFailedStartsAreRetriedOnTheNextPass(t *testing.T) {
	f := newStartsFixture(t)
	recorded := []*domain.WorkflowStart{f.record(t, newInput()), f.record(t, newInput())}

	down, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Namespace: "default"})
	require.NoError(t, err)
	t.Cleanup(down.Close)
	unreachable := f.relay()
	unreachable.Temporal = down
	unreachable.StartTimeout = 300 * time.Millisecond
	n, err := unreachable.StartWorkflows(context.Background())
	require.NoError(t, err, "a failed start is the row's failure, not the pass's")
	assert.Zero(t, n)
	for _, s := range recorded {
		row := f.row(t, s.ID)
		assert.Nil(t, row.StartedAt)
		assert.Nil(t, row.RunID)
		assert.Equal(t, 1, row.Attempts, "every row was tried, the first failure blocked none")
		assert.NotEmpty(t, row.LastError)
	}

	n, err = f.relay().StartWorkflows(context.Background())
	require.NoError(t, err)
	assert.Equal(t, len(recorded), n)
	for _, s := range recorded {
		f.wait(t, s.WorkflowID)
		runs, _ := runsOf(s.WorkflowID)
		assert.Equal(t, 1, runs)
		row := f.row(t, s.ID)
		require.NotNil(t, row.StartedAt)
		assert.Equal(t, 2, row.Attempts)
		assert.Empty(t, row.LastError, "the error of the attempt that succeeded: none")
	}
}

// Run does both of the relay's jobs on every pass.
func TestRunRelaysEventsAndStartsWorkflows(t *testing.T) {
	f := newStartsFixture(t)
	events := &eventsFixture{db: f.db, temporal: f.temporal, org: f.org}
	rcv := newReceiver(t)
	ep := events.endpoint(t, f.org, rcv.URL)
	e := events.emit(t, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	s := f.record(t, newInput())

	r := f.relay()
	r.RetryInitial, r.RetryFor = time.Second, time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	// The rows are marked once their workflows were started.
	require.Eventually(t, func() bool {
		var relayed domain.Event
		require.NoError(t, f.db.First(&relayed, "id = ?", e.ID).Error)
		return relayed.RelayedAt != nil && f.row(t, s.ID).StartedAt != nil
	}, 30*time.Second, 20*time.Millisecond)
	assert.Equal(t, webhooks.DeliverySucceeded, events.waitForDelivery(t, e.ID, ep.ID).Status)
	assert.Len(t, rcv.received(), 1)
	f.wait(t, s.WorkflowID)
	runs, _ := runsOf(s.WorkflowID)
	assert.Equal(t, 1, runs)
}

// With a poll far longer than the test, recorded starts are still made
// within seconds: the notification of each commit wakes the relay.
func TestRunStartsOnTheNotificationOfACommit(t *testing.T) {
	f := newStartsFixture(t)
	r := f.relay()
	r.Interval = time.Minute
	r.ListenURL = testenv.DatabaseURL(t)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	// Besides notifications, Run passes once when it begins and once when
	// it starts listening; three starts recorded one after the other
	// cannot all be made by those two passes.
	for range 3 {
		s := f.record(t, newInput())
		require.Eventually(t, func() bool { return f.row(t, s.ID).StartedAt != nil }, 10*time.Second, 10*time.Millisecond)
		f.wait(t, s.WorkflowID)
		runs, _ := runsOf(s.WorkflowID)
		assert.Equal(t, 1, runs)
	}
}
