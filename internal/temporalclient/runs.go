package temporalclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// RunStatus is how a run of a workflow stands, in words stable enough to
// key translations on.
type RunStatus string

const (
	RunRunning        RunStatus = "running"
	RunCompleted      RunStatus = "completed"
	RunFailed         RunStatus = "failed"
	RunTerminated     RunStatus = "terminated"
	RunTimedOut       RunStatus = "timed_out"
	RunCanceled       RunStatus = "canceled"
	RunContinuedAsNew RunStatus = "continued_as_new"
)

var runStatuses = map[enumspb.WorkflowExecutionStatus]RunStatus{
	enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:          RunRunning,
	enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:        RunCompleted,
	enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:           RunFailed,
	enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:       RunTerminated,
	enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:        RunTimedOut,
	enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:         RunCanceled,
	enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW: RunContinuedAsNew,
}

// Run is one run of a workflow, as support staff need it to tell why a
// record's work stopped.
type Run struct {
	WorkflowID string
	RunID      string
	Type       string // the workflow's type name
	Status     RunStatus
	Started    time.Time
	Closed     time.Time // zero while it runs
	// Failure says why the run stopped or is stuck: the failure of a
	// failed run (each cause after a colon, innermost last), the reason
	// given for a terminated one, or, while it runs, the last failure of
	// an activity it is retrying. Empty when there is none, as for a run
	// that timed out: its closing event carries no message.
	Failure string
}

// Runs lists every run of the workflow workflowID, newest first; none for
// an id that never ran. Visibility, which lists the runs, lags behind the
// runs themselves, so each run's status and times come from the run, and
// the latest run is included even before visibility has recorded it.
func Runs(ctx context.Context, c client.Client, workflowID string) ([]Run, error) {
	var ids []string
	seen := map[string]bool{}
	query := "WorkflowId = '" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(workflowID) + "'"
	for req := (&workflowservice.ListWorkflowExecutionsRequest{Query: query}); ; {
		resp, err := c.ListWorkflow(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("temporal: list the runs of %s: %w", workflowID, err)
		}
		for _, e := range resp.GetExecutions() {
			if id := e.GetExecution().GetRunId(); !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		if req.NextPageToken = resp.GetNextPageToken(); len(req.NextPageToken) == 0 {
			break
		}
	}

	var runs []Run
	add := func(runID string) error {
		d, err := c.DescribeWorkflowExecution(ctx, workflowID, runID)
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			// Never ran, or removed at the end of the namespace's
			// retention while visibility still listed it.
			return nil
		}
		if err != nil {
			return fmt.Errorf("temporal: describe run %q of %s: %w", runID, workflowID, err)
		}
		run, err := describedRun(ctx, c, workflowID, d)
		if err == nil {
			runs = append(runs, run)
		}
		return err
	}
	// The empty run id is the latest run.
	if err := add(""); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if len(runs) > 0 && id == runs[0].RunID {
			continue
		}
		if err := add(id); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Or(b.Started.Compare(a.Started), strings.Compare(a.RunID, b.RunID))
	})
	return runs, nil
}

// describedRun is the Run a DescribeWorkflowExecution answered, with the
// failure read from its closing event or its pending activities.
func describedRun(ctx context.Context, c client.Client, workflowID string, d *workflowservice.DescribeWorkflowExecutionResponse) (Run, error) {
	info := d.GetWorkflowExecutionInfo()
	status, ok := runStatuses[info.GetStatus()]
	if !ok {
		status = RunStatus(strings.ToLower(info.GetStatus().String()))
	}
	run := Run{
		WorkflowID: workflowID,
		RunID:      info.GetExecution().GetRunId(),
		Type:       info.GetType().GetName(),
		Status:     status,
		Started:    info.GetStartTime().AsTime(),
	}
	if info.GetCloseTime() != nil {
		run.Closed = info.GetCloseTime().AsTime()
	}
	switch status {
	case RunRunning:
		run.Failure = lastActivityFailure(d)
	case RunFailed, RunTerminated:
		f, err := closingFailure(ctx, c, workflowID, run.RunID)
		if err != nil {
			return Run{}, err
		}
		run.Failure = f
	}
	return run, nil
}

// closingFailure reads the failure or the termination reason from the
// run's closing event, the only event the history call then returns.
func closingFailure(ctx context.Context, c client.Client, workflowID, runID string) (string, error) {
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return "", fmt.Errorf("temporal: closing event of run %s of %s: %w", runID, workflowID, err)
		}
		if a := e.GetWorkflowExecutionFailedEventAttributes(); a != nil {
			return failureMessage(a.GetFailure()), nil
		}
		if a := e.GetWorkflowExecutionTerminatedEventAttributes(); a != nil {
			return a.GetReason(), nil
		}
	}
	return "", nil
}

// lastActivityFailure is the most recent failure among the activities a
// running run is retrying: why it makes no progress.
func lastActivityFailure(d *workflowservice.DescribeWorkflowExecutionResponse) string {
	var last time.Time
	var msg string
	for _, a := range d.GetPendingActivities() {
		if a.GetLastFailure() == nil {
			continue
		}
		if at := a.GetLastAttemptCompleteTime().AsTime(); msg == "" || at.After(last) {
			last, msg = at, failureMessage(a.GetLastFailure())
		}
	}
	return msg
}

// failureMessage joins the messages of a failure and its causes, so that
// the root cause shows behind the wrappers Temporal adds ("activity
// error: ...").
func failureMessage(f *failurepb.Failure) string {
	var parts []string
	for ; f != nil; f = f.GetCause() {
		if m := strings.TrimSpace(f.GetMessage()); m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, ": ")
}

// UILink is the address of a run's history in the Temporal UI at
// uiBaseURL (TEMPORAL_UI_URL). The workflow id is one path segment there,
// its slashes escaped, as the UI's own links have it.
func UILink(uiBaseURL, namespace, workflowID, runID string) string {
	return strings.TrimRight(uiBaseURL, "/") + "/namespaces/" + url.PathEscape(namespace) +
		"/workflows/" + url.PathEscape(workflowID) + "/" + url.PathEscape(runID) + "/history"
}
