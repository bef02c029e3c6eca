package activities

import (
	"context"

	"go.temporal.io/sdk/activity"
	"gorm.io/gorm"

	"ppwr/models"
)

// Assessments are the side effects of the assessment workflows.
type Assessments struct {
	DB *gorm.DB
}

// MarkStale marks the item's assessments that what they read has
// outdated, with an assessment.stale event each; a retry marks nothing
// twice. It returns how many it marked.
func (a *Assessments) MarkStale(ctx context.Context, in models.AssessmentRefreshInput) (int, error) {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	marked, err := models.MarkAssessmentsStale(w, in.ItemID)
	if err != nil {
		w.Rollback()
		return 0, err
	}
	return marked, models.Commit(w, models.AuditEntry{Operation: "refreshAssessments"})
}

// RunBatchSize is how many items one AssessBatch assesses.
const RunBatchSize = 200

// AssessBatch assesses up to RunBatchSize items after the run's last one,
// each in its own transaction with the run's progress, and heartbeats the
// last item done: a retry after a crash resumes after it. It returns how
// many items it assessed; 0 means none is left.
func (a *Assessments) AssessBatch(ctx context.Context, in models.AssessmentRunInput) (int, error) {
	run, err := models.Find[models.AssessmentRun](ctx, a.DB, in.OrganizationID, in.RunID)
	if err != nil {
		return 0, err
	}
	ids, err := models.NextRunItems(ctx, a.DB, run, RunBatchSize)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		w := systemUnit(ctx, a.DB, in.OrganizationID)
		if _, err := models.AssessRunItem(w, run, id); err != nil {
			w.Rollback()
			return i, err
		}
		if err := models.Commit(w, models.AuditEntry{Operation: "runAssessments"}); err != nil {
			return i, err
		}
		activity.RecordHeartbeat(ctx, id)
	}
	return len(ids), nil
}

// FinishRun marks the run completed.
func (a *Assessments) FinishRun(ctx context.Context, in models.AssessmentRunInput) error {
	return models.FinishAssessmentRun(ctx, a.DB, in.RunID)
}
