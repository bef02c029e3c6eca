package ops_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/attention"
	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/bdo"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/domain/webhooks"
	"ppwr/internal/i18n"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/ops"
	"ppwr/worker"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// stack is the service's worker on a queue of the test's own, and the
// actions' dependencies as the support console passes them.
type stack struct {
	db       *gorm.DB
	temporal client.Client
	queue    string
	deps     attention.Deps
}

func newStack(t *testing.T) *stack {
	t.Helper()
	db, c := testenv.DB(t), testenv.Temporal(t)
	s := &stack{db: db, temporal: c, queue: "ppwr-ops-" + uuid.NewString()}
	w := worker.New(worker.Deps{DB: db, Temporal: c, TaskQueue: s.queue, Storage: testenv.Storage(t), WebhookAllowHTTPLoopback: true})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	rd := &ops.Redriver{DB: db, Temporal: c, TaskQueue: s.queue}
	s.deps = attention.Deps{Redrive: rd.Start, Retry: webhooks.Retry{Initial: time.Second, For: time.Minute}}
	return s
}

// terminatedRun is a run of wf for in, on a queue no worker polls, that
// support staff found stuck and terminated; it answers its workflow id
// and run id.
func terminatedRun[In domain.WorkflowInput](t *testing.T, s *stack, wf domain.Workflow[In], in In) domain.Run {
	t.Helper()
	ctx := context.Background()
	start, err := domain.NewStart(wf, in, "test run")
	require.NoError(t, err)
	run, err := temporalclient.Start(ctx, s.temporal, ops.Ref(start, "", "nobody-"+uuid.NewString()), start.WorkflowType, start.Args()...)
	require.NoError(t, err)
	require.NoError(t, s.temporal.TerminateWorkflow(ctx, start.WorkflowID, run.GetRunID(), "test: the run died"))
	return domain.Run{WorkflowID: start.WorkflowID, RunID: run.GetRunID()}
}

// closed waits for the run to close and answers how it closed.
func (s *stack) closed(t *testing.T, run domain.Run) enumspb.WorkflowExecutionStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = s.temporal.GetWorkflow(ctx, run.WorkflowID, run.RunID).Get(ctx, nil)
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, run.WorkflowID, run.RunID)
	require.NoError(t, err)
	return desc.GetWorkflowExecutionInfo().GetStatus()
}

// operatorAudits are the summaries of the operator's entries of operation
// on the record.
func (s *stack) operatorAudits(t *testing.T, operation string, record uuid.UUID) []map[string]any {
	t.Helper()
	var raw []string
	require.NoError(t, s.db.Model(&domain.AuditEntry{}).Where("operation = ? AND record_id = ? AND actor_kind = ?", operation, record, domain.ActorOperator).
		Order("occurred_at").Pluck("summary::text", &raw).Error)
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		require.NoError(t, json.Unmarshal([]byte(r), &out[i]))
	}
	return out
}

// refused asserts that err is the domain's refusal, whose message in
// English and Polish contains en and pl.
func refused(t *testing.T, err error, en, pl string) {
	t.Helper()
	var r *domain.RefusedError
	require.ErrorAs(t, err, &r)
	assert.Contains(t, r.Error(), en)
	assert.Contains(t, r.Message(i18n.PL), pl)
}

func listed(t *testing.T, db *gorm.DB, org uuid.UUID, kind attention.Kind) []uuid.UUID {
	t.Helper()
	page, err := attention.List(context.Background(), db, attention.Filter{Organization: org, Kinds: []attention.Kind{kind}})
	require.NoError(t, err)
	var ids []uuid.UUID
	for _, it := range page.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// The case from the console: an import whose preview run was
// terminated is listed as stuck; its re-drive starts a new run that makes
// it ready, audited as the CLI audits it, and a second press is refused
// with the domain's message.
func TestRedriveAStuckImport(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	o := attentiontest.NewOrg(t, s.db)
	imp := o.StuckImport(t, imports.ImportQueued)
	require.NoError(t, testenv.Storage(t).Put(ctx, imp.ObjectKey, strings.NewReader(
		"internalCode;name;sourcingType;massG;mainMaterialCode;stockUnit;foodContactStatus;reuseType\n"+
			"OPS-"+uuid.NewString()[:8]+";Box;purchased;12.5;PLASTIC_PET;piece;unknown;single_use\n"), "text/csv"))
	terminated := terminatedRun(t, s, imports.PreviewWorkflow, imp.WorkflowInput())
	assert.Equal(t, []uuid.UUID{imp.ID}, listed(t, s.db, o.ID, attention.ImportStuck))

	run, err := attention.Perform(ctx, s.db, attention.RedriveImport, imp.ID, s.deps)
	require.NoError(t, err)
	assert.Equal(t, terminated.WorkflowID, run.WorkflowID)
	assert.NotEqual(t, terminated.RunID, run.RunID, "a new run")
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, s.closed(t, run))

	rec, err := attention.Find(ctx, s.db, attention.ImportStuck, imp.ID)
	require.NoError(t, err)
	assert.Equal(t, imports.ImportReadyStatus, rec.Status)
	assert.False(t, rec.Listed)
	assert.Empty(t, rec.Actions, "a ready import waits for its customer")
	var history []string
	for _, e := range rec.History {
		history = append(history, e.ActorKind+" "+e.Operation)
	}
	assert.Equal(t, []string{"system previewImport", "operator admin.imports.redrive", "system test.upload"}, history, "newest first")
	assert.Equal(t, []map[string]any{{"workflow_id": run.WorkflowID, "run_id": run.RunID, "stage": "preview"}},
		s.operatorAudits(t, "admin.imports.redrive", imp.ID))

	_, err = attention.Perform(ctx, s.db, attention.RedriveImport, imp.ID, s.deps)
	refused(t, err, "import "+imp.ID.String()+" is ready, nothing to re-drive: its preview is done", "ma status ready, nie ma czego wznawiać")
	assert.Len(t, s.operatorAudits(t, "admin.imports.redrive", imp.ID), 1, "nothing audited for a refusal")
}

// Two presses while the first one's run is open start one run: the
// second is refused by the open run, and changes nothing.
func TestASecondPressStartsNoSecondRun(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	o := attentiontest.NewOrg(t, s.db)
	imp := o.StuckImport(t, imports.ImportApplying)
	idle := &ops.Redriver{DB: s.db, Temporal: s.temporal, TaskQueue: "nobody-" + uuid.NewString()}
	deps := attention.Deps{Redrive: idle.Start}

	first, err := attention.Perform(ctx, s.db, attention.RedriveImport, imp.ID, deps)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.temporal.TerminateWorkflow(ctx, first.WorkflowID, first.RunID, "test over") })
	assert.Equal(t, imports.ApplyWorkflow.ID(imp.WorkflowInput()), first.WorkflowID)
	_, err = attention.Perform(ctx, s.db, attention.RedriveImport, imp.ID, deps)
	refused(t, err, "workflow "+first.WorkflowID+" is still running (run "+first.RunID+")", "wciąż trwa (uruchomienie "+first.RunID+")")
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, first.WorkflowID, "")
	require.NoError(t, err)
	assert.Equal(t, first.RunID, desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(), "the first run is the latest")
	assert.Len(t, s.operatorAudits(t, "admin.imports.redrive", imp.ID), 1)
}

// A failed report is built again by a new run of its workflow, whose
// earlier run was terminated; then there is nothing to retry.
func TestRetryAFailedReport(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	o := attentiontest.NewOrg(t, s.db)
	r := o.FailedReport(t)
	terminated := terminatedRun(t, s, reports.ReportWorkflow, reports.ReportInput{Org: domain.OrgOf(o.ID), ReportID: r.ID})
	rec, err := attention.Find(ctx, s.db, attention.ReportFailed, r.ID)
	require.NoError(t, err)
	require.Len(t, rec.Actions, 1)
	assert.Equal(t, attention.RetryReport, rec.Actions[0].Name)

	run, err := attention.Perform(ctx, s.db, attention.RetryReport, r.ID, s.deps)
	require.NoError(t, err)
	assert.Equal(t, terminated.WorkflowID, run.WorkflowID)
	assert.NotEqual(t, terminated.RunID, run.RunID, "a new run of the id whose run closed")
	_, err = attention.Perform(ctx, s.db, attention.RetryReport, r.ID, s.deps)
	refused(t, err, "report "+r.ID.String()+" is ", "raport "+r.ID.String()+" ma status ")
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, s.closed(t, run))

	built, err := domain.Find[reports.Report](ctx, s.db, o.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, reports.ReportCompleted, built.Status)
	assert.Nil(t, built.Error)
	assert.Empty(t, listed(t, s.db, o.ID, attention.ReportFailed))
	assert.Equal(t, []map[string]any{{"workflow_id": run.WorkflowID, "run_id": run.RunID, "requeued_from": "failed",
		"previous_error": "storage: connection refused"}}, s.operatorAudits(t, "admin.reports.retry", r.ID))
	_, err = attention.Perform(ctx, s.db, attention.RetryReport, r.ID, s.deps)
	refused(t, err, "report "+r.ID.String()+" is completed, nothing to retry: its file has been built", "plik raportu został zbudowany")
}

// A BDO report's failed exports are rendered again from its snapshot.
func TestRetryFailedBDOExports(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	o := attentiontest.NewOrg(t, s.db)
	r := o.FailedBDOExport(t)
	terminatedRun(t, s, bdo.BDOReportWorkflow, bdo.BDOReportInput{Org: domain.OrgOf(o.ID), ReportID: r.ID})
	assert.Equal(t, []uuid.UUID{r.ID}, listed(t, s.db, o.ID, attention.BDOExportFailed))

	run, err := attention.Perform(ctx, s.db, attention.RetryBDOExport, r.ID, s.deps)
	require.NoError(t, err)
	_, err = attention.Perform(ctx, s.db, attention.RetryBDOExport, r.ID, s.deps)
	refused(t, err, "the exports of BDO report "+r.ID.String()+" are ", "eksporty raportu BDO "+r.ID.String())
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, s.closed(t, run))
	rendered, err := domain.Find[bdo.BDOReport](ctx, s.db, o.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, bdo.ExportReady, rendered.ExportStatus)
	assert.Nil(t, rendered.ExportFailedAt)
	assert.Empty(t, listed(t, s.db, o.ID, attention.BDOExportFailed))
	audits := s.operatorAudits(t, "admin.bdo.retry", r.ID)
	require.Len(t, audits, 1)
	assert.Equal(t, "render: disk full", audits[0]["previous_error"])
	_, err = attention.Perform(ctx, s.db, attention.RetryBDOExport, r.ID, s.deps)
	refused(t, err, "are ready, nothing to retry: they have been rendered", "eksporty zostały wygenerowane")
}

// A delivery given up is sent again: the relay starts its resend's run,
// which reaches the receiver; a second press finds it no longer given
// up, and a delivery whose endpoint was disabled is not resent.
func TestResendADeliveryGivenUp(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	var received atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
	}))
	t.Cleanup(receiver.Close)
	o := attentiontest.NewOrg(t, s.db)
	e := o.Endpoint(t, receiver.URL+"/hook")
	d := o.Delivery(t, e.ID, webhooks.DeliveryFailed, "receiver answered 500")

	run, err := attention.Perform(ctx, s.db, attention.ResendDelivery, d.ID, s.deps)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(run.WorkflowID, "webhook/"+d.EventID.String()+"/"+e.ID.String()+"/resend/"), run.WorkflowID)
	_, err = attention.Perform(ctx, s.db, attention.ResendDelivery, d.ID, s.deps)
	refused(t, err, "webhook delivery "+d.ID.String()+" is pending, nothing to resend: it is still being delivered",
		"dostawa webhooka "+d.ID.String()+" ma status pending")

	relay := &worker.Relay{DB: s.db, Temporal: s.temporal, TaskQueue: s.queue}
	n, err := relay.StartWorkflows(ctx)
	require.NoError(t, err)
	require.Positive(t, n)
	require.Eventually(t, func() bool {
		got, _, err := webhooks.DeliveryOf(ctx, s.db, d.ID)
		return err == nil && got.Status == webhooks.DeliverySucceeded
	}, 30*time.Second, 50*time.Millisecond)
	assert.EqualValues(t, 1, received.Load(), "one POST")
	assert.Equal(t, []map[string]any{{"workflow_id": run.WorkflowID, "requeued_from": "failed", "previous_error": "receiver answered 500"}},
		s.operatorAudits(t, "admin.webhook.resend", d.ID))
	rec, err := attention.Find(ctx, s.db, attention.DeliveryGaveUp, d.ID)
	require.NoError(t, err)
	assert.Contains(t, rec.WorkflowIDs, run.WorkflowID, "the resend's run, named by its audit entry")
	assert.Empty(t, rec.Actions)

	gone := o.Delivery(t, e.ID, webhooks.DeliveryFailed, "receiver answered 500")
	_, err = webhooks.OperatorDisableEndpoint(ctx, s.db, e.ID)
	require.NoError(t, err)
	_, err = attention.Perform(ctx, s.db, attention.ResendDelivery, gone.ID, s.deps)
	refused(t, err, "its endpoint "+e.ID.String()+" is disabled and receives nothing", "ma status disabled i niczego nie odbiera")
	missing := uuid.New()
	_, err = attention.Perform(ctx, s.db, attention.ResendDelivery, missing, s.deps)
	assert.EqualError(t, err, "webhook delivery "+missing.String()+" does not exist")
}
