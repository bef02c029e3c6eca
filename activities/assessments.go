package activities

import (
	"context"

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
