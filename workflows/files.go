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
	return buildOrFail(ctx, a.RenderBDOReport, a.FailBDOExport, in)
}

// Report builds a report's file.
func Report(ctx workflow.Context, in reports.ReportInput) error {
	var a *activities.Reports
	return buildOrFail(ctx, a.BuildReport, a.FailReport, in)
}

// buildOrFail runs the activity build, which writes a file, retrying it
// with backoff; when it gives up, fail records why on the record, so a
// client polling it stops waiting.
func buildOrFail(ctx workflow.Context, build, fail, in any) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8},
	})
	err := workflow.ExecuteActivity(ctx, build, in).Get(ctx, nil)
	if err == nil {
		return nil
	}
	if ferr := workflow.ExecuteActivity(ctx, fail, in, err.Error()).Get(ctx, nil); ferr != nil {
		return ferr
	}
	return err
}
