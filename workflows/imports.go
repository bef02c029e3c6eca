package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/imports"
)

// importActivity runs the long activities of an import: they heartbeat
// each stored batch, so a retry resumes from the last batch. heartbeat is
// how long Temporal waits for the next one before it gives the activity
// to another worker: how long an import waits after its worker died.
func importActivity(ctx workflow.Context, heartbeat time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
		},
	})
}

const (
	// previewHeartbeat leaves room for what comes before the first batch:
	// an XLSX workbook's shared strings are read whole first.
	previewHeartbeat = time.Minute
	// applyHeartbeat is short because the apply heartbeats every batch it
	// commits, and a batch of 1000 rows commits well within a second (its
	// progress moves every second), so a worker killed mid-apply holds
	// the import up for seconds, not a minute. An attempt given up while
	// it still runs applies nothing twice (imports.ApplyImportRange).
	applyHeartbeat = 10 * time.Second
)

// ImportPreview reads the uploaded file and plans its rows; the import
// becomes ready, or failed for a file it cannot read. It returns the
// import's status, which is also the run's outcome.
func ImportPreview(ctx workflow.Context, in imports.ImportInput) (string, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Imports
	var status string
	if err := workflow.ExecuteActivity(importActivity(ctx, previewHeartbeat), a.Preview, in).Get(ctx, &status); err != nil {
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
	if err := workflow.ExecuteActivity(importActivity(ctx, applyHeartbeat), a.Apply, in).Get(ctx, &status); err != nil {
		return "", err
	}
	setOutcome(ctx, status)
	return status, nil
}
