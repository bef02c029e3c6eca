package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/models"
)

// AssessmentRefresh waits out the item's debounce window, so that every
// change made within it is seen at once, and then marks the assessments
// those changes outdated (assessment.stale). Its id,
// models.AssessmentRefreshWorkflowID, names the item and the window; the
// changes of one window share the run. It returns how many it marked.
func AssessmentRefresh(ctx workflow.Context, in models.AssessmentRefreshInput) (int, error) {
	if err := workflow.Sleep(ctx, models.RefreshWindow); err != nil {
		return 0, err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	var a *activities.Assessments
	var marked int
	err := workflow.ExecuteActivity(ctx, a.MarkStale, in).Get(ctx, &marked)
	return marked, err
}
