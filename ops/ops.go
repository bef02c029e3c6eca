// Package ops starts operators' re-drives on Temporal: the one part of
// an operator's action the domain leaves out. The domain command that
// re-drives a record (imports.Redrive, reports.RetryReport,
// bdo.RetryExport) decides whether its state allows it, readies it and
// audits it, and is given Redriver.Start as its domain.Redrive; the admin
// CLI and the support console both pass it, so a re-drive is the same
// action, with the same refusals, wherever it is pressed.
package ops

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/config"
	"ppwr/internal/temporalclient"
)

// redriveTimeout bounds a re-drive's calls to Temporal: an unreachable
// Temporal fails the action rather than hanging the operator's terminal
// or page.
const redriveTimeout = 30 * time.Second

// Redriver starts re-drives' runs on the task queue the workers poll.
type Redriver struct {
	DB        *gorm.DB
	Temporal  client.Client
	TaskQueue string
}

// Dial is a Redriver on the Temporal cfg names, for a process that has
// no client of its own (the admin CLI); Close ends its connection.
func Dial(cfg config.Config, db *gorm.DB) (*Redriver, error) {
	tc, err := temporalclient.Dial(cfg)
	if err != nil {
		return nil, err
	}
	return &Redriver{DB: db, Temporal: tc, TaskQueue: cfg.TemporalTaskQueue}, nil
}

// Close closes the client Dial opened.
func (r *Redriver) Close() { r.Temporal.Close() }

// Start is a domain.Redrive: it starts a new run of s's workflow once its
// last run has closed (temporalclient.Redrive), described as the relay
// describes a recorded start, so the new run reads in the Temporal UI
// like the runs before it. A run still open refuses it with a
// *domain.RefusedError naming that run.
func (r *Redriver) Start(ctx context.Context, s *domain.WorkflowStart) (string, error) {
	names, err := domain.OrganizationNames(ctx, r.DB, []domain.WorkflowStart{*s})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, redriveTimeout)
	defer cancel()
	run, err := temporalclient.Redrive(ctx, r.Temporal, Ref(s, names[s.OrganizationID], r.TaskQueue), s.WorkflowType, s.Args()...)
	var running *temporalclient.RunningError
	if errors.As(err, &running) {
		return "", &domain.RefusedError{Key: "error.workflow_still_running", Args: []any{running.WorkflowID, running.RunID}}
	}
	if err != nil {
		return "", err
	}
	return run.GetRunID(), nil
}

// Ref is the reference of s's run on taskQueue, with the summary and
// details s describes with its organization's name: the relay's start of
// a recorded row and an operator's re-drive of one built alike.
func Ref(s *domain.WorkflowStart, organization, taskQueue string) temporalclient.Ref {
	ref := temporalclient.Ref{WorkflowID: s.WorkflowID, OrganizationID: s.OrganizationID, ResourceID: s.ResourceID, TaskQueue: taskQueue}
	ref.Summary, ref.Details = s.Describe(organization)
	return ref
}
