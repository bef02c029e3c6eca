package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/internal/temporalclient"
	"ppwr/ops"
)

// StartWorkflows starts one batch of recorded workflow starts
// (domain.WorkflowStart) and returns how many it started. The rows are
// marked started, with their run's id, in the transaction that claimed
// them, after their workflows were started. A crash in between leaves a
// row unmarked and the next pass starts it again: the record-derived
// workflow id and the duplicate-rejecting id policy
// (temporalclient.Start) turn that second start into the run that exists,
// open or closed, so a workflow is delayed by a crash but never lost nor
// run twice.
//
// A start that fails (Temporal unreachable, the start refused) is counted
// in the row's attempts with its error in last_error and left for the next
// pass; the batch's other rows are started all the same. Rows that failed
// before come after the new ones, so a start Temporal keeps refusing does
// not hold up the others.
func (r *Relay) StartWorkflows(ctx context.Context) (int, error) {
	var started int
	err := r.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		started = 0 // the transaction's count, should it be retried
		var rows []domain.WorkflowStart
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"}).
			Where("started_at IS NULL").Order("attempts, id").Limit(startBatch).Find(&rows).Error; err != nil {
			return err
		}
		names, err := domain.OrganizationNames(ctx, tx, rows)
		if err != nil {
			return err
		}
		runIDs, errs := r.startAll(ctx, rows, names)
		for i := range rows {
			s, runID, err := &rows[i], runIDs[i], errs[i]
			if err != nil && ctx.Err() != nil {
				return ctx.Err() // shutting down: not the start's fault
			}
			updates := map[string]any{"attempts": gorm.Expr("attempts + 1")}
			if err != nil {
				slog.WarnContext(ctx, "workflow start failed; retrying on the next pass",
					"workflow_id", s.WorkflowID, "workflow_type", s.WorkflowType, "attempts", s.Attempts+1, "error", err)
				updates["last_error"] = err.Error()
			} else {
				updates["started_at"] = time.Now().UTC().Truncate(time.Microsecond)
				updates["run_id"] = runID
				updates["last_error"] = ""
				started++
			}
			if err := tx.Model(&domain.WorkflowStart{}).Where("id = ?", s.ID).Updates(updates).Error; err != nil {
				return err
			}
		}
		return nil
	})
	return started, err
}

// startAll starts the rows' workflows (start), startConcurrency at a
// time, and returns each one's run id or error. One at a time, a batch's
// last workflow would wait for every call before it: twenty deliveries of
// one burst of changes would start a round trip to Temporal apart.
// organizations are the names of the rows' organizations, by id.
func (r *Relay) startAll(ctx context.Context, rows []domain.WorkflowStart, organizations map[string]string) ([]string, []error) {
	runIDs, errs := make([]string, len(rows)), make([]error, len(rows))
	slots := make(chan struct{}, startConcurrency)
	var wg sync.WaitGroup
	for i := range rows {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			runIDs[i], errs[i] = r.start(ctx, &rows[i], organizations[rows[i].OrganizationID])
		})
	}
	wg.Wait()
	return runIDs, errs
}

// start starts s's workflow, described with the name of its organization,
// or finds the run that already exists for its id, and returns the run's
// id.
func (r *Relay) start(ctx context.Context, s *domain.WorkflowStart, organization string) (string, error) {
	timeout := r.StartTimeout
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(s.Traced(ctx), timeout)
	defer cancel()
	// ExecuteWorkflow takes the registered type name as well as the
	// function, so the relay needs no table of workflow functions.
	run, err := temporalclient.Start(ctx, r.Temporal, ops.Ref(s, organization, r.TaskQueue), s.WorkflowType, s.Args()...)
	if err != nil {
		return "", err
	}
	return run.GetRunID(), nil
}
