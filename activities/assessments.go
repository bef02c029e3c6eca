package activities

import (
	"context"
	"sync/atomic"

	"go.temporal.io/sdk/activity"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
)

// Assessments are the side effects of the assessment workflows.
type Assessments struct {
	DB *gorm.DB
}

// MarkStale marks the item's assessments that what they read has
// outdated, with an assessment.stale event each; a retry marks nothing
// twice. It returns how many it marked.
func (a *Assessments) MarkStale(ctx context.Context, in catalog.AssessmentRefreshInput) (int, error) {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	marked, err := assessments.MarkAssessmentsStale(w, in.ItemID)
	if err != nil {
		w.Rollback()
		return 0, err
	}
	return marked, domain.Commit(w, domain.AuditEntry{Operation: "refreshAssessments"})
}

// RunBatchSize is how many items one AssessBatch assesses, and
// runParallelism how many of them at once: an item's assessment is a
// chain of short queries, so a few in flight keep the database busy.
const (
	RunBatchSize   = 200
	runParallelism = 4
)

// AssessBatch assesses the next RunBatchSize items of the run, a few at a
// time, each in its own transaction, and heartbeats how many it has done;
// then it moves the run past the batch. A retry after a crash skips the
// items already assessed. It returns how many items the batch held; 0
// means none is left.
func (a *Assessments) AssessBatch(ctx context.Context, in assessments.AssessmentRunInput) (int, error) {
	run, err := domain.Find[assessments.AssessmentRun](ctx, a.DB, in.OrganizationID, in.RunID)
	if err != nil {
		return 0, err
	}
	ids, err := assessments.NextRunItems(ctx, a.DB, run, RunBatchSize)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	assessed, err := assessments.RunItemsDone(ctx, a.DB, run, ids)
	if err != nil {
		return 0, err
	}
	var done atomic.Int64
	progress, statistics := assessments.TrackRun(a.DB, run), assessments.NewReuseStatisticsCache()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runParallelism)
	for _, id := range ids {
		g.Go(func() error {
			w := systemUnit(gctx, a.DB, in.OrganizationID)
			if !assessed[id] {
				if err := assessments.AssessRunItem(w, run, id, statistics); err != nil {
					w.Rollback()
					return err
				}
			}
			if err := domain.Commit(w, domain.AuditEntry{Operation: "runAssessments"}); err != nil && !assessments.RunItemDone(err) {
				return err
			}
			n := done.Add(1)
			activity.RecordHeartbeat(ctx, n)
			// Items added since the run started are assessed too.
			at := int64(run.Done) + n
			return progress.Move(gctx, assessments.StageAssessing, at, domain.Known(max(at, int64(run.Total))))
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return len(ids), assessments.FinishRunBatch(ctx, a.DB, run.ID, ids[len(ids)-1])
}

// FinishRun marks the run completed.
func (a *Assessments) FinishRun(ctx context.Context, in assessments.AssessmentRunInput) error {
	return assessments.FinishAssessmentRun(ctx, a.DB, in.OrganizationID, in.RunID)
}
