// Package worker registers every workflow and activity on the task queue
// and keeps the service's schedules in place.
package worker

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/internal/temporalclient"
	"ppwr/workflows"
)

// Deps are what the worker and its activities need.
type Deps = activities.Deps

// New builds a worker with every workflow and activity registered.
func New(d Deps) sdkworker.Worker {
	w := sdkworker.New(d.Temporal, d.TaskQueue, sdkworker.Options{})
	Register(w, d)
	return w
}

// Register registers every workflow of workflows.Definitions under its
// declared type name, and each activity struct they run once, built from
// d.
func Register(r sdkworker.Registry, d Deps) {
	registered := map[reflect.Type]bool{}
	for _, def := range workflows.Definitions {
		r.RegisterWorkflowWithOptions(def.Workflow, workflow.RegisterOptions{Name: def.Type})
		for _, build := range def.Activities {
			a := build(d)
			if t := reflect.TypeOf(a); !registered[t] {
				registered[t] = true
				r.RegisterActivity(a)
			}
		}
	}
}

// EnsureSchedules creates the service's schedules, or brings existing ones
// in line with this version (interval, task queue); every worker replica
// calls it at start.
func EnsureSchedules(ctx context.Context, c client.Client, taskQueue string) error {
	ref := temporalclient.Ref{
		WorkflowID:     workflows.HousekeepingWorkflowID,
		OrganizationID: temporalclient.SystemOrganization,
		ResourceID:     workflows.HousekeepingWorkflowID,
		TaskQueue:      taskQueue,
	}
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: time.Hour}}}
	action := &client.ScheduleWorkflowAction{
		ID:                    ref.WorkflowID,
		Workflow:              workflows.HousekeepingType,
		TaskQueue:             taskQueue,
		TypedSearchAttributes: ref.SearchAttributes(),
		StaticSummary:         "Hourly housekeeping: purge expired idempotency records, rate-limit buckets and old workflow starts; open document expiry issues",
	}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: workflows.HousekeepingScheduleID, Spec: spec, Action: action})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		err = c.ScheduleClient().GetHandle(ctx, workflows.HousekeepingScheduleID).Update(ctx, client.ScheduleUpdateOptions{
			DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
				in.Description.Schedule.Spec = &spec
				in.Description.Schedule.Action = action
				return &client.ScheduleUpdate{Schedule: &in.Description.Schedule}, nil
			},
		})
	}
	if err != nil {
		return fmt.Errorf("worker: housekeeping schedule: %w", err)
	}
	return nil
}
