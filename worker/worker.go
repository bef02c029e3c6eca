// Package worker registers every workflow and activity on the task queue
// and keeps the service's schedules in place.
package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"gorm.io/gorm"

	"ppwr/activities"
	"ppwr/internal/temporalclient"
	"ppwr/workflows"
)

// Deps are what activities need.
type Deps struct {
	DB        *gorm.DB
	Temporal  client.Client
	TaskQueue string
}

// New builds a worker with every workflow and activity registered.
func New(d Deps) sdkworker.Worker {
	w := sdkworker.New(d.Temporal, d.TaskQueue, sdkworker.Options{})
	w.RegisterWorkflow(workflows.Housekeeping)
	w.RegisterActivity(&activities.Housekeeping{DB: d.DB})
	return w
}

// EnsureSchedules creates the service's schedules if they do not exist yet;
// every worker replica calls it at start and all but the first find them.
func EnsureSchedules(ctx context.Context, c client.Client, taskQueue string) error {
	ref := temporalclient.Ref{
		WorkflowID:     workflows.HousekeepingWorkflowID,
		OrganizationID: temporalclient.SystemOrganization,
		ResourceID:     workflows.HousekeepingWorkflowID,
		TaskQueue:      taskQueue,
	}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:   workflows.HousekeepingScheduleID,
		Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: time.Hour}}},
		Action: &client.ScheduleWorkflowAction{
			ID:                    ref.WorkflowID,
			Workflow:              workflows.Housekeeping,
			TaskQueue:             taskQueue,
			TypedSearchAttributes: ref.SearchAttributes(),
		},
	})
	if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("worker: housekeeping schedule: %w", err)
	}
	return nil
}
