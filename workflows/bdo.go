package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/models"
)

// BDOReport renders a report run's exports from the snapshot its request
// took. The render is retried on failure; when it gives up, the report
// says its exports failed, so a client polling it stops waiting.
func BDOReport(ctx workflow.Context, in models.BDOReportInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8},
	})
	var a *activities.BDO
	err := workflow.ExecuteActivity(ctx, a.RenderBDOReport, in).Get(ctx, nil)
	if err == nil {
		return nil
	}
	if ferr := workflow.ExecuteActivity(ctx, a.FailBDOExport, in, err.Error()).Get(ctx, nil); ferr != nil {
		return ferr
	}
	return err
}
