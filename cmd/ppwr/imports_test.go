package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
	"ppwr/worker"
)

// redriveFixture is an organization, the Temporal dev server and the
// configuration the admin command reads to reach it.
type redriveFixture struct {
	db       *gorm.DB
	temporal client.Client
	org      uuid.UUID
	queue    string
}

func newRedriveFixture(t *testing.T) *redriveFixture {
	t.Helper()
	db := testenv.DB(t)
	c := testenv.Temporal(t)
	org, err := accounts.CreateOrganization(context.Background(), db, "Redrive", "redrive-"+uuid.NewString()[:8])
	require.NoError(t, err)
	f := &redriveFixture{db: db, temporal: c, org: org.ID, queue: "ppwr-redrive-" + uuid.NewString()}
	t.Setenv("TEMPORAL_ADDRESS", testenv.TemporalAddress(t))
	t.Setenv("TEMPORAL_NAMESPACE", "default")
	t.Setenv("TEMPORAL_TASK_QUEUE", f.queue)
	return f
}

// startWorker runs the service's worker on the queue the command starts
// its runs on.
func (f *redriveFixture) startWorker(t *testing.T) {
	t.Helper()
	w := worker.New(worker.Deps{DB: f.db, Temporal: f.temporal, TaskQueue: f.queue, Storage: testenv.Storage(t)})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

func (f *redriveFixture) unit() *work.Unit {
	return work.New(context.Background(), f.db, work.Actor{Kind: work.ActorSystem, OrganizationID: f.org, Reference: "test"})
}

// applyUnit acts for the system applying an import, as the apply does.
func (f *redriveFixture) applyUnit() *work.Unit {
	return work.New(context.Background(), f.db, work.Actor{Kind: work.ActorSystem, OrganizationID: f.org, Reference: "test", Quiet: true})
}

// queued records a queued catalogue import of a file of size bytes.
func (f *redriveFixture) queued(t *testing.T, size int) *imports.Import {
	t.Helper()
	w := f.unit()
	imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog, FileName: "items.csv", Size: int64(size)})
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.upload"}))
	return imp
}

// upload records a queued import of content, stored where the preview
// reads it, as the upload request does.
func (f *redriveFixture) upload(t *testing.T, content string) *imports.Import {
	t.Helper()
	imp := f.queued(t, len(content))
	require.NoError(t, testenv.Storage(t).Put(context.Background(), imp.ObjectKey, strings.NewReader(content), "text/csv"))
	return imp
}

// applying records an import of n valid new items, previewed and then
// applied through the API: status applying, no row applied yet.
func (f *redriveFixture) applying(t *testing.T, n int) *imports.Import {
	t.Helper()
	imp := f.queued(t, 1)
	cells := make([]map[string]string, n)
	for i := range cells {
		cells[i] = map[string]string{
			"internalCode": fmt.Sprintf("RD-%s-%d", imp.ID.String()[:8], i+1), "name": "Row", "sourcingType": "purchased",
			"massG": "1.5", "mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "foodContactStatus": "unknown", "reuseType": "single_use",
		}
	}
	w := f.unit()
	rows, err := imports.NewRowPlanner(imp).Plan(w, imp.ID, 1, cells)
	require.NoError(t, err)
	require.NoError(t, w.Tx().Create(&rows).Error)
	require.NoError(t, imports.ReadyImport(w, imp))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.preview"}))
	w = f.unit()
	_, err = imports.RequestImportApply(w, imp.ID)
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.apply"}))
	return imp
}

// importInput is the input of imp's workflows.
func importInput(imp *imports.Import) imports.ImportInput {
	return imports.ImportInput{Org: domain.OrgOf(imp.OrganizationID), ImportID: imp.ID}
}

// openRun starts the import's workflow as the relay does, on a task queue
// no worker polls, so the run stays open and does nothing.
func (f *redriveFixture) openRun(t *testing.T, imp *imports.Import, workflowID, workflowType string) string {
	t.Helper()
	ref := temporalclient.Ref{WorkflowID: workflowID, OrganizationID: f.org.String(), ResourceID: imp.ID.String(), TaskQueue: "nobody-" + uuid.NewString()}
	run, err := temporalclient.Start(context.Background(), f.temporal, ref, workflowType, importInput(imp))
	require.NoError(t, err)
	return run.GetRunID()
}

// terminatedRun is a run of the import's workflow that support staff
// found stuck and terminated.
func (f *redriveFixture) terminatedRun(t *testing.T, imp *imports.Import, workflowID, workflowType string) string {
	t.Helper()
	runID := f.openRun(t, imp, workflowID, workflowType)
	require.NoError(t, f.temporal.TerminateWorkflow(context.Background(), workflowID, runID, "test: the run died"))
	return runID
}

// result waits for the run to close and returns the import status it
// answers.
func (f *redriveFixture) result(t *testing.T, workflowID, runID string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var status string
	require.NoError(t, f.temporal.GetWorkflow(ctx, workflowID, runID).Get(ctx, &status))
	return status
}

func (f *redriveFixture) reload(t *testing.T, id uuid.UUID) imports.Import {
	t.Helper()
	var imp imports.Import
	require.NoError(t, f.db.First(&imp, "id = ?", id).Error)
	return imp
}

// visibleRuns are the runs the Temporal UI lists for the import: its
// search attributes are all an operator needs to find them.
func (f *redriveFixture) visibleRuns(t *testing.T, imp *imports.Import) map[string]enumspb.WorkflowExecutionStatus {
	t.Helper()
	res, err := f.temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf("ResourceId = '%s' AND OrganizationId = '%s'", imp.ID, f.org),
	})
	require.NoError(t, err)
	runs := map[string]enumspb.WorkflowExecutionStatus{}
	for _, e := range res.GetExecutions() {
		runs[e.GetExecution().GetRunId()] = e.GetStatus()
	}
	return runs
}

// The case: an apply run is terminated after it committed part of
// the rows. The re-drive's new run applies the rest, each row once, and
// the operator finds it in the Temporal UI by the import's id.
func TestAdminImportsRedriveResumesATerminatedApply(t *testing.T) {
	f := newRedriveFixture(t)
	imp := f.applying(t, 5)
	_, n, err := imports.ApplyImportBatch(f.applyUnit(), imp, 0, 2)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the first run committed two rows...")
	workflowID := imports.ApplyWorkflow.ID(importInput(imp))
	terminated := f.terminatedRun(t, imp, workflowID, imports.ApplyWorkflow.Type) // ...and was terminated
	f.startWorker(t)

	out := mustAdmin(t, "imports", "redrive", imp.ID.String())
	runID := str(t, out, "runId")
	assert.Equal(t, map[string]any{
		"importId": imp.ID.String(), "organizationId": f.org.String(), "workflowId": workflowID, "runId": runID, "stage": "apply",
	}, out)
	assert.NotEqual(t, terminated, runID, "a new run")

	assert.Equal(t, imports.ImportCompletedStatus, f.result(t, workflowID, runID))
	assert.Equal(t, imports.ImportCompletedStatus, f.reload(t, imp.ID).Status)
	var pending int64
	require.NoError(t, f.db.Model(&imports.ImportRow{}).Where("import_id = ? AND applied IS NULL", imp.ID).Count(&pending).Error)
	assert.Zero(t, pending, "every row applied")
	// Every batch names its rows in its audit entry: together, each row
	// exactly once.
	var summaries []string
	require.NoError(t, f.db.Model(&domain.AuditEntry{}).Where("organization_id = ? AND operation = ?", f.org, "applyImport").
		Order("occurred_at").Pluck("summary::text", &summaries).Error)
	var applied []int
	for _, s := range summaries {
		var batch struct{ Rows []int }
		require.NoError(t, json.Unmarshal([]byte(s), &batch))
		applied = append(applied, batch.Rows...)
	}
	slices.Sort(applied)
	assert.Equal(t, []int{1, 2, 3, 4, 5}, applied)
	var items int64
	require.NoError(t, f.db.Model(&catalog.CatalogItem{}).Where("organization_id = ?", f.org).Count(&items).Error)
	assert.Equal(t, int64(5), items)

	audits := auditSummaries(t, f.db, f.org.String(), "admin.imports.redrive", imp.ID.String())
	require.Len(t, audits, 1)
	assert.JSONEq(t, fmt.Sprintf(`{"workflow_id": %q, "run_id": %q, "stage": "apply"}`, workflowID, runID), audits[0])

	// The dev server's visibility store catches up asynchronously.
	require.Eventually(t, func() bool {
		runs := f.visibleRuns(t, imp)
		return runs[terminated] == enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED && runs[runID] == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, 30*time.Second, 100*time.Millisecond, "both runs are found by the import's search attributes")
}

// A preview whose run was terminated before it read the file starts over
// and makes the import ready.
func TestAdminImportsRedriveStartsAPreviewOver(t *testing.T) {
	f := newRedriveFixture(t)
	code := "RP-" + uuid.NewString()[:8]
	imp := f.upload(t, "internalCode;name;sourcingType;massG;mainMaterialCode;stockUnit;foodContactStatus;reuseType\n"+
		code+";Box;purchased;12.5;PLASTIC_PET;piece;unknown;single_use\n")
	workflowID := imports.PreviewWorkflow.ID(importInput(imp))
	terminated := f.terminatedRun(t, imp, workflowID, imports.PreviewWorkflow.Type)
	f.startWorker(t)

	out := mustAdmin(t, "imports", "redrive", imp.ID.String())
	assert.Equal(t, "preview", out["stage"])
	assert.Equal(t, workflowID, out["workflowId"])
	runID := str(t, out, "runId")
	assert.NotEqual(t, terminated, runID)
	assert.Equal(t, imports.ImportReadyStatus, f.result(t, workflowID, runID))
	ready := f.reload(t, imp.ID)
	assert.Equal(t, imports.ImportReadyStatus, ready.Status)
	assert.Equal(t, 1, ready.CreateCount)
	assert.Equal(t, 1, operatorAudits(t, f.db, f.org.String(), "admin.imports.redrive", imp.ID.String()))
}

// A failed import is previewed again from its stored file. Re-driven as it
// is, an unreadable file fails again the same way and changes nothing
// else; re-driven once it reads (here the stored file is replaced, as a
// fixed worker would read the old one), the import becomes ready. Each
// re-drive is a new run of the same workflow, and the earlier runs keep
// their history.
func TestAdminImportsRedrivePreviewsAFailedImportAgain(t *testing.T) {
	f := newRedriveFixture(t)
	ctx := context.Background()
	imp := f.upload(t, "code;colour\nA;red\n")
	f.startWorker(t)
	workflowID := imports.PreviewWorkflow.ID(importInput(imp))
	ref := temporalclient.Ref{WorkflowID: workflowID, OrganizationID: f.org.String(), ResourceID: imp.ID.String(), TaskQueue: f.queue}
	run, err := temporalclient.Start(ctx, f.temporal, ref, imports.PreviewWorkflow.Type, importInput(imp))
	require.NoError(t, err)
	first := run.GetRunID()
	require.Equal(t, imports.ImportFailedStatus, f.result(t, workflowID, first))
	failed := f.reload(t, imp.ID)
	require.Equal(t, "error.import_unknown_columns", failed.ErrorKey)
	events := func(eventType string) int64 {
		var n int64
		require.NoError(t, f.db.Model(&domain.Event{}).Where("organization_id = ? AND type = ?", f.org, eventType).Count(&n).Error)
		return n
	}

	out := mustAdmin(t, "imports", "redrive", imp.ID.String())
	assert.Equal(t, "preview", out["stage"])
	again := str(t, out, "runId")
	assert.NotEqual(t, first, again, "a new run")
	assert.Equal(t, imports.ImportFailedStatus, f.result(t, workflowID, again))
	refailed := f.reload(t, imp.ID)
	assert.Equal(t, imports.ImportFailedStatus, refailed.Status)
	assert.Equal(t, failed.ErrorKey, refailed.ErrorKey)
	assert.JSONEq(t, string(failed.ErrorArgs), string(refailed.ErrorArgs), "the same reason")
	var rows, items int64
	require.NoError(t, f.db.Model(&imports.ImportRow{}).Where("import_id = ?", imp.ID).Count(&rows).Error)
	require.NoError(t, f.db.Model(&catalog.CatalogItem{}).Where("organization_id = ?", f.org).Count(&items).Error)
	assert.Zero(t, rows)
	assert.Zero(t, items)
	assert.Equal(t, int64(2), events("import.failed"), "the import failed again, and says so")

	code := "RF-" + uuid.NewString()[:8]
	require.NoError(t, testenv.Storage(t).Put(ctx, imp.ObjectKey, strings.NewReader(
		"internalCode;name;sourcingType;massG;mainMaterialCode;stockUnit;foodContactStatus;reuseType\n"+
			code+";Box;purchased;12.5;PLASTIC_PET;piece;unknown;single_use\n"), "text/csv"))
	out = mustAdmin(t, "imports", "redrive", imp.ID.String())
	fixed := str(t, out, "runId")
	assert.Equal(t, imports.ImportReadyStatus, f.result(t, workflowID, fixed))
	ready := f.reload(t, imp.ID)
	assert.Equal(t, imports.ImportReadyStatus, ready.Status)
	assert.Equal(t, 1, ready.CreateCount)
	key, _, err := ready.ErrorReason()
	require.NoError(t, err)
	assert.Empty(t, key, "the reason is gone with the failure")
	assert.NotNil(t, ready.ReadyAt)
	assert.Nil(t, ready.CompletedAt)
	assert.Equal(t, int64(1), events("import.ready"))

	// Each re-drive's audit entry keeps the reason the import had.
	var args []any
	require.NoError(t, json.Unmarshal(failed.ErrorArgs, &args))
	var want, got []map[string]any
	for _, runID := range []string{again, fixed} {
		want = append(want, map[string]any{"stage": "preview", "run_id": runID, "workflow_id": workflowID, "requeued_from": "failed",
			"previous_error": map[string]any{"key": "error.import_unknown_columns", "args": args}})
	}
	for _, summary := range auditSummaries(t, f.db, f.org.String(), "admin.imports.redrive", imp.ID.String()) {
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(summary), &entry))
		got = append(got, entry)
	}
	assert.ElementsMatch(t, want, got)
	require.Eventually(t, func() bool {
		runs := f.visibleRuns(t, imp)
		return len(runs) == 3 && runs[first] == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED &&
			runs[again] == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && runs[fixed] == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, 30*time.Second, 100*time.Millisecond, "every run is kept with its history")
}

// Nothing is started, and nothing audited, for an import with an open run,
// one that waits for no workflow, one that does not exist, or when
// Temporal cannot be reached.
func TestAdminImportsRedriveRefusals(t *testing.T) {
	f := newRedriveFixture(t)

	t.Run("open run", func(t *testing.T) {
		imp := f.applying(t, 1)
		workflowID := imports.ApplyWorkflow.ID(importInput(imp))
		open := f.openRun(t, imp, workflowID, imports.ApplyWorkflow.Type)
		t.Cleanup(func() { _ = f.temporal.TerminateWorkflow(context.Background(), workflowID, open, "test over") })
		msg := requireAdminError(t, "imports", "redrive", imp.ID.String())
		assert.Contains(t, msg, "still running")
		assert.Contains(t, msg, open)
		desc, err := f.temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
		require.NoError(t, err)
		assert.Equal(t, open, desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(), "the open run is still the latest")
		assert.Zero(t, operatorAudits(t, f.db, f.org.String(), "admin.imports.redrive", imp.ID.String()))
	})

	imp := f.queued(t, 1)
	for status, says := range map[string]string{
		imports.ImportReadyStatus:         "applies it through the API",
		imports.ImportCompletedStatus:     "has been applied",
		imports.ImportCompletedWithErrors: "has been applied",
	} {
		t.Run(status, func(t *testing.T) {
			require.NoError(t, f.db.Model(&imports.Import{}).Where("id = ?", imp.ID).Update("status", status).Error)
			msg := requireAdminError(t, "imports", "redrive", imp.ID.String())
			assert.Contains(t, msg, "is "+status+", nothing to re-drive")
			assert.Contains(t, msg, says)
		})
	}
	for _, workflowID := range []string{imports.PreviewWorkflow.ID(importInput(imp)), imports.ApplyWorkflow.ID(importInput(imp))} {
		_, err := f.temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
		assert.Error(t, err, "%s was never started", workflowID)
	}
	assert.Zero(t, operatorAudits(t, f.db, f.org.String(), "admin.imports.redrive", imp.ID.String()))

	t.Run("Temporal unreachable", func(t *testing.T) {
		t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1")
		imp := f.queued(t, 1)
		msg := requireAdminError(t, "imports", "redrive", imp.ID.String())
		assert.Contains(t, msg, "re-drive "+imports.PreviewWorkflow.ID(importInput(imp))+": failed reaching server")
		assert.Zero(t, operatorAudits(t, f.db, f.org.String(), "admin.imports.redrive", imp.ID.String()))

		// A failed import's requeue rolls back with the start.
		failed := f.queued(t, 1)
		require.NoError(t, f.db.Model(&imports.Import{}).Where("id = ?", failed.ID).
			Updates(map[string]any{"status": imports.ImportFailedStatus, "error_key": "error.import_file_empty"}).Error)
		assert.Contains(t, requireAdminError(t, "imports", "redrive", failed.ID.String()), "failed reaching server")
		still := f.reload(t, failed.ID)
		assert.Equal(t, imports.ImportFailedStatus, still.Status)
		assert.Equal(t, "error.import_file_empty", still.ErrorKey, "the reason is kept")
		assert.Zero(t, operatorAudits(t, f.db, f.org.String(), "admin.imports.redrive", failed.ID.String()))
	})

	unknown := uuid.NewString()
	assert.Equal(t, "import "+unknown+" does not exist", requireAdminError(t, "imports", "redrive", unknown))
	assert.Contains(t, requireAdminError(t, "imports", "redrive", "not-a-uuid"), "IMPORT_ID must be a UUID")
	requireAdminError(t, "imports", "redrive")
}

// With --wait --json, the re-drive prints the apply's progress as it
// moves, one line per change, then the object it prints without --wait.
func TestAdminImportsRedriveWaitsForTheApply(t *testing.T) {
	f := newRedriveFixture(t)
	const rows = 600
	imp := f.applying(t, rows)
	workflowID := imports.ApplyWorkflow.ID(importInput(imp))
	f.terminatedRun(t, imp, workflowID, imports.ApplyWorkflow.Type)
	f.startWorker(t)

	lines, err := waitLines(t, "imports", "redrive", imp.ID.String())
	require.NoError(t, err)
	result := requireProgress(t, lines, imports.ImportStages, imports.StageApplying, rows)
	assert.Equal(t, imports.ImportCompletedStatus, lines[len(lines)-2]["status"])
	assert.Equal(t, map[string]any{
		"importId": imp.ID.String(), "organizationId": f.org.String(), "workflowId": workflowID, "runId": result["runId"], "stage": "apply",
	}, result)
	assert.Equal(t, imports.ImportCompletedStatus, f.reload(t, imp.ID).Status, "the import was done when the command ended")
}

// A re-drive whose import fails again exits non-zero with --wait, and
// says why, as its last line; without a terminal and without --json, it
// writes the bar's line once per change.
func TestAdminImportsRedriveWaitFailsWithTheImport(t *testing.T) {
	f := newRedriveFixture(t)
	f.startWorker(t)
	imp := f.upload(t, "code;colour\nA;red\n")
	lines, err := waitLines(t, "imports", "redrive", imp.ID.String())
	require.Error(t, err)
	last := lines[len(lines)-1]
	msg := last["error"].(map[string]any)["message"].(string)
	assert.Contains(t, msg, "import "+imp.ID.String()+" failed: ")
	assert.Equal(t, imports.ImportFailedStatus, lines[len(lines)-2]["status"], "the progress before it says failed")
	assert.Equal(t, imports.ImportFailedStatus, f.reload(t, imp.ID).Status)

	code := "RW-" + uuid.NewString()[:8]
	good := f.upload(t, "internalCode;name;sourcingType;massG;mainMaterialCode;stockUnit;foodContactStatus;reuseType\n"+
		code+";Box;purchased;12.5;PLASTIC_PET;piece;unknown;single_use\n")
	out, _, err := runAdmin(t, "imports", "redrive", good.ID.String(), "--wait", "--poll-interval", "20ms")
	require.NoError(t, err)
	assert.NotContains(t, out, "\r", "no redraw off a terminal")
	assert.Regexp(t, `(?m)^ready \[#+\]  1/1  100%  \d+m?s\n(.|\n)*^importId: `+good.ID.String()+`$`, out)
}

// --timeout stops waiting for a job that does not end, and says that it
// goes on; the job is left as it is.
func TestAdminImportsRedriveWaitTimesOut(t *testing.T) {
	f := newRedriveFixture(t) // no worker: the run waits for one
	imp := f.queued(t, 1)
	workflowID := imports.PreviewWorkflow.ID(importInput(imp))
	t.Cleanup(func() { _ = f.temporal.TerminateWorkflow(context.Background(), workflowID, "", "test over") })
	lines, err := waitLines(t, "imports", "redrive", imp.ID.String(), "--timeout", "300ms")
	require.Error(t, err)
	assert.Equal(t, map[string]any{"error": map[string]any{
		"message": "stopped waiting for import " + imp.ID.String() + " (--timeout passed): it is still queued and goes on",
	}}, lines[len(lines)-1])
	assert.Len(t, lines, 2, "one progress line: nothing moved")
	assert.Equal(t, imports.ImportQueued, f.reload(t, imp.ID).Status)
	assert.Contains(t, requireAdminError(t, "imports", "redrive", imp.ID.String(), "--wait", "--poll-interval", "0s"), "--poll-interval must be positive")
}
