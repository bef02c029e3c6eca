package bdo

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
)

// ExportRetryRefusal is nil for a report whose exports failed, which an
// operator may render again, and otherwise the *domain.RefusedError
// saying why there is nothing to retry.
func ExportRetryRefusal(r *BDOReport) error {
	if r.ExportStatus == ExportFailed {
		return nil
	}
	return domain.Refusal("error.bdo_export_not_retryable", r.ID, r.ExportStatus, exportNotRetryable)
}

// exportNotRetryable says why exports in each status have nothing to
// retry.
var exportNotRetryable = map[string]string{ExportRendering: "refused.bdo_export_rendering", ExportReady: "refused.bdo_export_ready"}

// RetryExport renders the failed exports of the report id, of any
// organization, again for an operator (domain.RedriveRecord): they are
// rendering again, without their error, and redrive starts a new run of
// bdo-report/<id>, whose earlier runs keep their history. The snapshot is
// the report's, taken once, so the new exports hold what the failed ones
// would have. The audit entry keeps the error they had.
func RetryExport(ctx context.Context, db *gorm.DB, id uuid.UUID, redrive domain.Redrive) (*BDOReport, domain.Run, error) {
	return domain.RedriveRecord(ctx, db, "bdo_report", id, "admin.bdo.retry", redrive, func(tx *gorm.DB, r *BDOReport) (domain.Readied, error) {
		if err := ExportRetryRefusal(r); err != nil {
			return domain.Readied{}, err
		}
		summary := map[string]any{"requeued_from": r.ExportStatus, "previous_error": r.ExportError}
		r.ExportStatus, r.ExportError, r.ExportFailedAt = ExportRendering, nil, nil
		if err := tx.Model(r).Updates(map[string]any{"export_status": r.ExportStatus, "export_error": nil, "export_failed_at": nil}).Error; err != nil {
			return domain.Readied{}, err
		}
		start, err := domain.NewStart(BDOReportWorkflow, r.input(), r.exportSummary())
		return domain.Readied{Start: start, Summary: summary}, err
	})
}
