// Package worker registers every workflow and activity on the task queue
// and keeps the service's schedules in place.
package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"gorm.io/gorm"

	"ppwr/activities"
	"ppwr/domain/assessments"
	"ppwr/domain/bdo"
	"ppwr/domain/catalog"
	"ppwr/domain/records"
	"ppwr/domain/reports"
	"ppwr/internal/clamav"
	"ppwr/internal/storage"
	"ppwr/internal/temporalclient"
	"ppwr/workflows"
)

// Deps are what activities need.
type Deps struct {
	DB        *gorm.DB
	Temporal  client.Client
	TaskQueue string
	// Storage keeps uploaded files (imports, documents).
	Storage *storage.Store
	// ClamdAddress is the malware scanner documents are checked with.
	ClamdAddress string
	// Mail: the SMTP server, the sender and the base reply address of
	// supplier requests.
	SMTPURL, MailFrom, MailReplyAddress string
	// DocumentMaxBytes bounds a file filed from a supplier's reply, as it
	// bounds an upload.
	DocumentMaxBytes int64
	// WebhookAllowHTTPLoopback admits plain-http receivers on loopback
	// (development and tests).
	WebhookAllowHTTPLoopback bool
}

// New builds a worker with every workflow and activity registered.
func New(d Deps) sdkworker.Worker {
	w := sdkworker.New(d.Temporal, d.TaskQueue, sdkworker.Options{})
	w.RegisterWorkflow(workflows.Housekeeping)
	w.RegisterActivity(&activities.Housekeeping{DB: d.DB})
	w.RegisterWorkflow(workflows.DeliverWebhook)
	w.RegisterActivity(&activities.Webhooks{DB: d.DB, AllowHTTPLoopback: d.WebhookAllowHTTPLoopback})
	w.RegisterWorkflowWithOptions(workflows.ImportPreview, workflow.RegisterOptions{Name: workflows.ImportPreviewType})
	w.RegisterWorkflowWithOptions(workflows.ImportApply, workflow.RegisterOptions{Name: workflows.ImportApplyType})
	w.RegisterActivity(&activities.Imports{DB: d.DB, Storage: d.Storage})
	w.RegisterWorkflowWithOptions(workflows.AssessmentRefresh, workflow.RegisterOptions{Name: catalog.AssessmentRefreshType})
	w.RegisterWorkflowWithOptions(workflows.AssessmentRun, workflow.RegisterOptions{Name: assessments.AssessmentRunType})
	w.RegisterActivity(&activities.Assessments{DB: d.DB})
	w.RegisterWorkflowWithOptions(workflows.BDOReport, workflow.RegisterOptions{Name: bdo.BDOReportType})
	w.RegisterActivity(&activities.BDO{DB: d.DB, Storage: d.Storage})
	w.RegisterWorkflowWithOptions(workflows.Report, workflow.RegisterOptions{Name: reports.ReportType})
	w.RegisterActivity(&activities.Reports{DB: d.DB, Storage: d.Storage})
	w.RegisterWorkflowWithOptions(workflows.AuthorityRequest, workflow.RegisterOptions{Name: records.AuthorityRequestType})
	w.RegisterWorkflowWithOptions(workflows.AuthorityRequestAnswered, workflow.RegisterOptions{Name: records.AuthorityRequestAnsweredType})
	w.RegisterActivity(&activities.AuthorityRequests{DB: d.DB, Storage: d.Storage})
	w.RegisterWorkflowWithOptions(workflows.ReservationExpiry, workflow.RegisterOptions{Name: workflows.ReservationExpiryType})
	w.RegisterActivity(&activities.Reservations{DB: d.DB})
	w.RegisterWorkflowWithOptions(workflows.DocumentProcessing, workflow.RegisterOptions{Name: workflows.DocumentProcessingType})
	w.RegisterWorkflowWithOptions(workflows.DocumentAnalysis, workflow.RegisterOptions{Name: workflows.DocumentAnalysisType})
	w.RegisterActivity(&activities.Documents{DB: d.DB, Storage: d.Storage, Scanner: clamav.New(d.ClamdAddress)})
	w.RegisterWorkflowWithOptions(workflows.SupplierRequestSend, workflow.RegisterOptions{Name: workflows.SupplierRequestSendType})
	w.RegisterWorkflowWithOptions(workflows.SupplierRequestClose, workflow.RegisterOptions{Name: workflows.SupplierRequestCloseType})
	w.RegisterWorkflowWithOptions(workflows.SupplierReply, workflow.RegisterOptions{Name: workflows.SupplierReplyType})
	w.RegisterActivity(&activities.Suppliers{DB: d.DB, SMTPURL: d.SMTPURL, From: d.MailFrom, ReplyAddress: d.MailReplyAddress,
		Storage: d.Storage, DocumentMaxBytes: d.DocumentMaxBytes})
	return w
}

// EnsureSchedules creates the service's schedules, or brings existing ones
// in line with this version (interval, task queue); every worker replica
// calls it at start.
func EnsureSchedules(ctx context.Context, c client.Client, taskQueue string) error {
	ref := temporalclient.Ref{
		WorkflowID:     workflows.HousekeepingWorkflowID,
		OrganizationID: temporalclient.SystemOrganization,
		ResourceID:     workflows.HousekeepingWorkflowID,
		TaskQueue:      taskQueue,
	}
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: time.Hour}}}
	action := &client.ScheduleWorkflowAction{
		ID:                    ref.WorkflowID,
		Workflow:              workflows.Housekeeping,
		TaskQueue:             taskQueue,
		TypedSearchAttributes: ref.SearchAttributes(),
	}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: workflows.HousekeepingScheduleID, Spec: spec, Action: action})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		err = c.ScheduleClient().GetHandle(ctx, workflows.HousekeepingScheduleID).Update(ctx, client.ScheduleUpdateOptions{
			DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
				in.Description.Schedule.Spec = &spec
				in.Description.Schedule.Action = action
				return &client.ScheduleUpdate{Schedule: &in.Description.Schedule}, nil
			},
		})
	}
	if err != nil {
		return fmt.Errorf("worker: housekeeping schedule: %w", err)
	}
	return nil
}
