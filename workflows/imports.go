package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/imports"
)

// importActivity runs the long activities of an import: they heartbeat
// each stored batch, so a stuck worker is noticed in a minute and a retry
// resumes from the last batch.
func importActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
		},
	})
}

// ImportPreview reads the uploaded file and plans its rows; the import
// becomes ready, or failed for a file it cannot read. It returns the
// import's status, which is also the run's outcome.
func ImportPreview(ctx workflow.Context, in imports.ImportInput) (string, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Imports
	var status string
	if err := workflow.ExecuteActivity(importActivity(ctx), a.Preview, in).Get(ctx, &status); err != nil {
		return "", err
	}
	setOutcome(ctx, status)
	return status, nil
}

// ImportApply applies the planned rows of a ready import. It returns the
// import's final status, which is also the run's outcome.
func ImportApply(ctx workflow.Context, in imports.ImportInput) (string, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Imports
	var status string
	if err := workflow.ExecuteActivity(importActivity(ctx), a.Apply, in).Get(ctx, &status); err != nil {
		return "", err
	}
	setOutcome(ctx, status)
	return status, nil
}
