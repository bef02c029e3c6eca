package workflows

import (
	"errors"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/bdo"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/imports"
	"ppwr/domain/packing"
	"ppwr/domain/records"
	"ppwr/domain/reports"
	"ppwr/domain/suppliers"
	"ppwr/domain/webhooks"
	"ppwr/internal/clamav"
	"ppwr/internal/temporalclient"
)

// Definition is a workflow as the worker registers it: its type name,
// its function and the activity structs it runs, each built from the
// worker's Deps.
type Definition struct {
	Type       string
	Workflow   any
	Activities []NewActivities
}

// NewActivities builds an activity struct (a pointer, whose methods are the
// activities) from the worker's Deps.
type NewActivities func(activities.Deps) any

// Define ties the declaration decl to its function fn: fn must take the
// declaration's input, or the definition does not compile.
func Define[In domain.WorkflowInput, Out any](decl domain.Workflow[In], fn func(workflow.Context, In) (Out, error), uses ...NewActivities) Definition {
	return Definition{Type: decl.Type, Workflow: fn, Activities: uses}
}

// DefineErr is Define for a workflow that returns no result.
func DefineErr[In domain.WorkflowInput](decl domain.Workflow[In], fn func(workflow.Context, In) error, uses ...NewActivities) Definition {
	return Definition{Type: decl.Type, Workflow: fn, Activities: uses}
}

// Definitions are every workflow the worker runs. Adding one: its
// declaration beside the record that starts it (domain.Workflow), its
// code in this package and its line here.
var Definitions = []Definition{
	{Type: HousekeepingType, Workflow: Housekeeping, Activities: []NewActivities{housekeepingActivities}},
	DefineErr(webhooks.DeliveryWorkflow, DeliverWebhook, webhookActivities),
	Define(imports.PreviewWorkflow, ImportPreview, importActivities),
	Define(imports.ApplyWorkflow, ImportApply, importActivities),
	Define(catalog.AssessmentRefreshWorkflow, AssessmentRefresh, assessmentActivities),
	Define(assessments.AssessmentRunWorkflow, AssessmentRun, assessmentActivities),
	DefineErr(bdo.BDOReportWorkflow, BDOReport, bdoActivities),
	DefineErr(reports.ReportWorkflow, Report, reportActivities),
	DefineErr(records.AuthorityRequestWorkflow, AuthorityRequest, authorityRequestActivities),
	DefineErr(records.AuthorityRequestAnsweredWorkflow, AuthorityRequestAnswered),
	Define(packing.ReservationExpiryWorkflow, ReservationExpiry, reservationActivities),
	DefineErr(packing.ReservationEndedWorkflow, ReservationEnded),
	Define(documents.ProcessingWorkflow, DocumentProcessing, documentActivities),
	Define(documents.AnalysisWorkflow, DocumentAnalysis, documentActivities),
	Define(suppliers.RequestSendWorkflow, SupplierRequestSend, supplierActivities),
	DefineErr(suppliers.RequestCloseWorkflow, SupplierRequestClose),
	Define(suppliers.ReplyWorkflow, SupplierReply, supplierActivities),
}

func housekeepingActivities(d activities.Deps) any { return &activities.Housekeeping{DB: d.DB} }

func webhookActivities(d activities.Deps) any {
	return &activities.Webhooks{DB: d.DB, AllowHTTPLoopback: d.WebhookAllowHTTPLoopback}
}

func importActivities(d activities.Deps) any {
	return &activities.Imports{DB: d.DB, Storage: d.Storage}
}

func assessmentActivities(d activities.Deps) any { return &activities.Assessments{DB: d.DB} }

func bdoActivities(d activities.Deps) any { return &activities.BDO{DB: d.DB, Storage: d.Storage} }

func reportActivities(d activities.Deps) any {
	return &activities.Reports{DB: d.DB, Storage: d.Storage}
}

func authorityRequestActivities(d activities.Deps) any {
	return &activities.AuthorityRequests{DB: d.DB, Storage: d.Storage}
}

func reservationActivities(d activities.Deps) any { return &activities.Reservations{DB: d.DB} }

func documentActivities(d activities.Deps) any {
	return &activities.Documents{DB: d.DB, Storage: d.Storage, Scanner: clamav.New(d.ClamdAddress)}
}

func supplierActivities(d activities.Deps) any {
	return &activities.Suppliers{DB: d.DB, SMTPURL: d.SMTPURL, From: d.MailFrom, ReplyAddress: d.MailReplyAddress,
		Storage: d.Storage, DocumentMaxBytes: d.DocumentMaxBytes}
}

// Business outcomes of runs whose record has no status of its own to
// name them by; the others end with their record's status (an import's
// "completed_with_errors", a version's "quarantined").
const (
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"
)

// setOutcome sets the run's Outcome search attribute as it ends its job:
// a run that completes may still end in a business failure (an import
// that failed), which ExecutionStatus does not tell, so operators query
// Outcome instead. It comes after the record is final. Runs that
// reached it before it existed replay without it (the version marker),
// so a reset or a replay of a closed run stays deterministic. Only a key
// or value the SDK refuses makes it fail, a bug in the outcome, which is
// logged rather than failing a job that is done.
func setOutcome(ctx workflow.Context, outcome string) {
	if workflow.GetVersion(ctx, "outcome", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, temporalclient.Outcome.ValueSet(outcome)); err != nil {
		workflow.GetLogger(ctx).Error("cannot set the run's outcome", "outcome", outcome, "error", err)
	}
}

// signalRun sends signal with arg to the open run of workflowID. The
// workflows that call it are started durably with the change the signal
// announces, so that it survives a crash right after the commit. A run
// that has closed, or never started, has no wait to stop: the signal is
// then dropped, and the run's own check of its record covers it.
func signalRun(ctx workflow.Context, workflowID, signal string, arg any) error {
	err := workflow.SignalExternalWorkflow(ctx, workflowID, "", signal, arg).Get(ctx, nil)
	var gone *temporal.UnknownExternalWorkflowExecutionError
	if errors.As(err, &gone) {
		return nil
	}
	return err
}

// withOrganization fills in the organization of an input decoded from a
// run started before inputs carried it, from the run's OrganizationId
// search attribute, so its activities read through the tenant scope all
// the same. Reading the attribute makes no command: replays are
// unaffected.
func withOrganization(ctx workflow.Context, org *domain.Org) {
	if org.OrganizationID != uuid.Nil {
		return
	}
	if v, ok := workflow.GetTypedSearchAttributes(ctx).GetKeyword(temporalclient.OrganizationID); ok {
		org.OrganizationID, _ = uuid.Parse(v)
	}
}
