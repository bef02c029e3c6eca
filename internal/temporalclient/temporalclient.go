// Package temporalclient connects to Temporal and starts workflows the way
// every area must: with an id derived from the record and with the
// OrganizationId and ResourceId search attributes, so operators find any
// run in the Temporal UI by organization or record.
package temporalclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"

	"ppwr/internal/config"
)

// Search attribute keys registered on the namespace (make run, compose
// and the test harness register them). Outcome is the business outcome a
// run sets when it ends its job (an import "failed" is a run that
// completed), so operators find business failures by it.
var (
	OrganizationID = temporal.NewSearchAttributeKeyKeyword("OrganizationId")
	ResourceID     = temporal.NewSearchAttributeKeyKeyword("ResourceId")
	Outcome        = temporal.NewSearchAttributeKeyKeyword("Outcome")
)

// SystemOrganization is the OrganizationId of workflows that belong to no
// tenant (housekeeping).
const SystemOrganization = "system"

// Dial returns a client of the Temporal cfg names, over TLS and with its
// API key when cfg has them (Temporal Cloud). It connects on first use,
// so the API starts (and reports not ready) while Temporal is still
// coming up. with adds to the options, such as the process's metrics
// handler and tracing interceptor.
func Dial(cfg config.Config, with ...func(*client.Options) error) (client.Client, error) {
	o := client.Options{
		HostPort:          cfg.TemporalAddress,
		Namespace:         cfg.TemporalNamespace,
		Logger:            log.NewStructuredLogger(slog.Default()),
		ConnectionOptions: client.ConnectionOptions{TLS: cfg.TemporalTLS},
	}
	if cfg.TemporalAPIKey != "" {
		o.Credentials = client.NewAPIKeyStaticCredentials(cfg.TemporalAPIKey)
	}
	for _, f := range with {
		if err := f(&o); err != nil {
			return nil, fmt.Errorf("temporal: options: %w", err)
		}
	}
	c, err := client.NewLazyClient(o)
	if err != nil {
		return nil, fmt.Errorf("temporal: dial %s: %w", cfg.TemporalAddress, err)
	}
	return c, nil
}

// Ref identifies the run of a workflow for one record.
type Ref struct {
	WorkflowID     string // derived from the record, e.g. "import/<id>"
	OrganizationID string
	ResourceID     string
	TaskQueue      string
	// Summary and Details are the run's static summary and details in
	// the Temporal UI (domain.WorkflowStart.Describe).
	Summary string
	Details string
}

// SearchAttributes are the attributes every ppwr workflow carries.
func (r Ref) SearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(OrganizationID.ValueSet(r.OrganizationID), ResourceID.ValueSet(r.ResourceID))
}

// Options are the start options for r. A second start for the same record
// joins the run that is open, and once a run has closed the id is not
// reused: a retried API request never starts a second run. Re-driving a
// failed run is a deliberate operator action that must allow a duplicate
// (RedriveOptions).
func (r Ref) Options() client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       r.WorkflowID,
		TaskQueue:                r.TaskQueue,
		TypedSearchAttributes:    r.SearchAttributes(),
		StaticSummary:            r.Summary,
		StaticDetails:            r.Details,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
}

// Start starts the workflow for r, or returns the run that already exists
// for it (open or closed).
func Start(ctx context.Context, c client.Client, r Ref, workflow any, args ...any) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, r.Options(), workflow, args...)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return c.GetWorkflow(ctx, r.WorkflowID, started.RunId), nil
	}
	if err != nil {
		return nil, fmt.Errorf("temporal: start %s: %w", r.WorkflowID, err)
	}
	return run, nil
}

// RedriveOptions are Options for an operator's re-drive: a new run for the
// id once its last run has closed, however it closed (failed, terminated,
// timed out or even completed). While a run is open the start fails
// instead of joining it, so the operator is not handed the open run as if
// it were the new one.
func (r Ref) RedriveOptions() client.StartWorkflowOptions {
	o := r.Options()
	o.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	o.WorkflowIDConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL
	// Without it the SDK answers the failed start with the open run.
	o.WorkflowExecutionErrorWhenAlreadyStarted = true
	return o
}

// RunningError refuses a re-drive while a run of the workflow is open.
type RunningError struct {
	WorkflowID string
	RunID      string
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("workflow %s is still running (run %s): wait for it to close, or terminate that run in the Temporal UI, then re-drive", e.WorkflowID, e.RunID)
}

// Redrive starts a new run of r's workflow, with the same search
// attributes, after its last run closed; the closed runs keep their
// history. While a run is open it starts nothing and returns a
// *RunningError naming that run. The refusal is the start's own, made by
// Temporal atomically, so no check made before it could go stale.
func Redrive(ctx context.Context, c client.Client, r Ref, workflow any, args ...any) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, r.RedriveOptions(), workflow, args...)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil, &RunningError{WorkflowID: r.WorkflowID, RunID: started.RunId}
	}
	if err != nil {
		return nil, fmt.Errorf("temporal: re-drive %s: %w", r.WorkflowID, err)
	}
	return run, nil
}
