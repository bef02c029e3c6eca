package reports

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
)

// RetryRefusal is nil for a report that failed, which an operator may
// build again, and otherwise the *domain.RefusedError saying why there is
// nothing to retry.
func RetryRefusal(r *Report) error {
	if r.Status == ReportFailed {
		return nil
	}
	return domain.Refusal("error.report_not_retryable", r.ID, r.Status, notRetryable)
}

// notRetryable says why a report in each status has nothing to retry.
var notRetryable = map[string]string{
	ReportQueued: "refused.report_building", ReportRunning: "refused.report_building", ReportCompleted: "refused.report_built",
}

// RetryReport builds the failed report id, of any organization, again for
// an operator (domain.RedriveRecord): the report is queued again without
// its error, and redrive starts a new run of report/<id>, whose earlier
// runs keep their history. The audit entry keeps the error it had. A run
// that reads the report before this transaction commits builds it all
// the same: the build leaves only a completed report alone.
func RetryReport(ctx context.Context, db *gorm.DB, id uuid.UUID, redrive domain.Redrive) (*Report, domain.Run, error) {
	return domain.RedriveRecord(ctx, db, "report", id, "admin.reports.retry", redrive, func(tx *gorm.DB, r *Report) (domain.Readied, error) {
		if err := RetryRefusal(r); err != nil {
			return domain.Readied{}, err
		}
		summary := map[string]any{"requeued_from": r.Status, "previous_error": r.Error}
		r.Status, r.Error, r.CompletedAt = ReportQueued, nil, nil
		if err := tx.Model(r).Updates(map[string]any{"status": r.Status, "error": nil, "completed_at": nil}).Error; err != nil {
			return domain.Readied{}, err
		}
		start, err := domain.NewStart(ReportWorkflow, r.input(), r.summary())
		return domain.Readied{Start: start, Summary: summary}, err
	})
}
