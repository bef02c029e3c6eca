package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/bdo"
	"ppwr/domain/reports"
)

// BDOReport renders a report run's exports from the snapshot its request
// took.
func BDOReport(ctx workflow.Context, in bdo.BDOReportInput) error {
	var a *activities.BDO
	return buildWithOutcome(ctx, a.RenderBDOReport, a.FailBDOExport, in)
}

// Report builds a report's file.
func Report(ctx workflow.Context, in reports.ReportInput) error {
	var a *activities.Reports
	return buildWithOutcome(ctx, a.BuildReport, a.FailReport, in)
}

// buildWithOutcome is buildOrFail for a run whose job ends with the
// build: its outcome is the build's.
func buildWithOutcome(ctx workflow.Context, build, fail, in any) error {
	outcome, err := buildOrFail(ctx, build, fail, in)
	if outcome != "" {
		setOutcome(ctx, outcome)
	}
	return err
}

// buildOrFail runs the activity build, which writes a file, retrying it
// with backoff; when it gives up, fail records why on the record, so a
// client polling it stops waiting. It returns the build's outcome
// (OutcomeCompleted or, once recorded, OutcomeFailed; "" when even that
// could not be recorded) and the run's error.
func buildOrFail(ctx workflow.Context, build, fail, in any) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8},
	})
	err := workflow.ExecuteActivity(ctx, build, in).Get(ctx, nil)
	if err == nil {
		return OutcomeCompleted, nil
	}
	if ferr := workflow.ExecuteActivity(ctx, fail, in, err.Error()).Get(ctx, nil); ferr != nil {
		return "", ferr
	}
	return OutcomeFailed, err
}
