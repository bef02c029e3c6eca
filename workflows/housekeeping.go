// Package workflows holds the Temporal workflow definitions. Code here must
// be deterministic: all I/O happens in activities.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
)

// HousekeepingScheduleID and HousekeepingWorkflowID identify the hourly
// purge in the Temporal UI. It is a schedule of no tenant, not a recorded
// start, so it has no domain declaration; HousekeepingType is its type
// name.
const (
	HousekeepingScheduleID = "housekeeping"
	HousekeepingWorkflowID = "housekeeping"
	HousekeepingType       = "Housekeeping"
)

// Housekeeping runs the purge, then opens the issues of expired
// documents; a Temporal schedule runs it every hour.
func Housekeeping(ctx workflow.Context) (activities.PurgeResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    5 * time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    5 * time.Minute,
			MaximumAttempts:    10,
		},
	})
	var h *activities.Housekeeping
	var result activities.PurgeResult
	if err := workflow.ExecuteActivity(ctx, h.PurgeExpired).Get(ctx, &result); err != nil {
		return result, err
	}
	// Runs started before the expiry issues existed replay without them.
	if workflow.GetVersion(ctx, "expiry-issues", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return result, nil
	}
	err := workflow.ExecuteActivity(ctx, h.OpenExpiryIssues).Get(ctx, &result.ExpiryIssues)
	return result, err
}
