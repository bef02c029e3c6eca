package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
)

// AssessmentRefresh waits out the item's debounce window, so that every
// change made within it is seen at once, and then marks the assessments
// those changes outdated (assessment.stale). Its id,
// catalog.AssessmentRefreshWorkflow's, names the item and the window; the
// changes of one window share the run. It returns how many it marked.
func AssessmentRefresh(ctx workflow.Context, in catalog.AssessmentRefreshInput) (int, error) {
	if err := workflow.Sleep(ctx, catalog.RefreshWindow); err != nil {
		return 0, err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	var a *activities.Assessments
	var marked int
	if err := workflow.ExecuteActivity(ctx, a.MarkStale, in).Get(ctx, &marked); err != nil {
		return 0, err
	}
	setOutcome(ctx, OutcomeCompleted)
	return marked, nil
}

// runBatchesPerRun bounds a run's history: after this many batches the
// workflow continues as new, where it left off.
const runBatchesPerRun = 100

// AssessmentRun assesses every active item of the organization in
// batches, then marks the run completed. Progress lives in the database
// with each item's assessment, so a batch retried after a worker crash
// resumes after the last item done. It returns how many items this run
// (up to a continue-as-new) assessed.
func AssessmentRun(ctx workflow.Context, in assessments.AssessmentRunInput) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	var a *activities.Assessments
	total := 0
	for range runBatchesPerRun {
		var n int
		if err := workflow.ExecuteActivity(ctx, a.AssessBatch, in).Get(ctx, &n); err != nil {
			return total, err
		}
		if n == 0 {
			if err := workflow.ExecuteActivity(ctx, a.FinishRun, in).Get(ctx, nil); err != nil {
				return total, err
			}
			setOutcome(ctx, assessments.RunCompleted)
			return total, nil
		}
		total += n
	}
	return total, workflow.NewContinueAsNewError(ctx, AssessmentRun, in)
}
