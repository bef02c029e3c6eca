package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/bdo"
	"ppwr/domain/reports"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
)

// ppwr admin reports retry builds a failed report again, as the support
// console's button does, and is refused once there is nothing to retry.
func TestAdminReportsRetry(t *testing.T) {
	f := newRedriveFixture(t)
	f.startWorker(t)
	o := attentiontest.NewOrg(t, f.db)
	r := o.FailedReport(t)

	out := mustAdmin(t, "reports", "retry", r.ID.String())
	assert.Equal(t, map[string]any{"id": r.ID.String(), "organizationId": o.ID.String(), "workflowId": "report/" + r.ID.String(),
		"runId": str(t, out, "runId")}, out)
	require.Eventually(t, func() bool {
		built, err := domain.Find[reports.Report](context.Background(), f.db, o.ID, r.ID)
		return err == nil && built.Status == reports.ReportCompleted
	}, 30*time.Second, 50*time.Millisecond)
	assert.Equal(t, 1, operatorAudits(t, f.db, o.ID.String(), "admin.reports.retry", r.ID.String()))

	assert.Equal(t, "report "+r.ID.String()+" is completed, nothing to retry: its file has been built",
		requireAdminError(t, "reports", "retry", r.ID.String()))
	missing := uuid.NewString()
	assert.Equal(t, "report "+missing+" does not exist", requireAdminError(t, "reports", "retry", missing))
	assert.Contains(t, requireAdminError(t, "reports", "retry", "not-a-uuid"), "REPORT_ID must be a UUID")
}

// ppwr admin bdo retry renders failed exports again; a second press finds
// them rendering.
func TestAdminBDORetry(t *testing.T) {
	f := newRedriveFixture(t) // no worker: the run waits for one
	o := attentiontest.NewOrg(t, f.db)
	r := o.FailedBDOExport(t)

	out := mustAdmin(t, "bdo", "retry", r.ID.String())
	t.Cleanup(func() {
		_ = f.temporal.TerminateWorkflow(context.Background(), str(t, out, "workflowId"), "", "test over")
	})
	assert.Equal(t, "bdo-report/"+r.ID.String(), out["workflowId"])
	assert.Equal(t, o.ID.String(), out["organizationId"])
	again, err := domain.Find[bdo.BDOReport](context.Background(), f.db, o.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, bdo.ExportRendering, again.ExportStatus)
	assert.Equal(t, "the exports of BDO report "+r.ID.String()+" are rendering, nothing to retry: they are being rendered",
		requireAdminError(t, "bdo", "retry", r.ID.String()))
	assert.Equal(t, 1, operatorAudits(t, f.db, o.ID.String(), "admin.bdo.retry", r.ID.String()))
}

// ppwr admin webhook resend sends a delivery given up again, once.
func TestAdminWebhookResend(t *testing.T) {
	db := testenv.DB(t)
	o := attentiontest.NewOrg(t, db)
	e := o.Endpoint(t, "https://hooks.example.test/resend")
	d := o.Delivery(t, e.ID, webhooks.DeliveryFailed, "receiver answered 500")

	out := mustAdmin(t, "webhook", "resend", "--delivery", d.ID.String())
	workflowID := str(t, out, "workflowId")
	assert.Equal(t, map[string]any{"id": d.ID.String(), "endpointId": e.ID.String(), "eventId": d.EventID.String(),
		"status": webhooks.DeliveryPending, "workflowId": workflowID}, out)
	var recorded int64
	require.NoError(t, db.Model(&domain.WorkflowStart{}).Where("workflow_id = ? AND started_at IS NULL", workflowID).Count(&recorded).Error)
	assert.Equal(t, int64(1), recorded, "the relay starts the resend's run")
	assert.Equal(t, "webhook delivery "+d.ID.String()+" is pending, nothing to resend: it is still being delivered, and its run retries it",
		requireAdminError(t, "webhook", "resend", "--delivery", d.ID.String()))
	assert.Equal(t, 1, operatorAudits(t, db, o.ID.String(), "admin.webhook.resend", d.ID.String()))
	assert.Contains(t, requireAdminError(t, "webhook", "resend", "--delivery", uuid.NewString()), "does not exist")
}
