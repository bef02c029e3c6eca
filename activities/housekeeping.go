// Package activities holds the Temporal activities: every side effect of
// the workflows (database, object store, mail, HTTP, parsing).
package activities

import (
	"context"

	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/internal/ratelimit"
)

// Housekeeping deletes state whose retention has passed and opens the
// issues that the passing of time raises.
type Housekeeping struct {
	DB *gorm.DB
}

// PurgeResult says how many rows were deleted.
type PurgeResult struct {
	IdempotencyKeys int64
	RateBuckets     int64
	WorkflowStarts  int64
	// ExpiryIssues is how many document_expired issues were opened.
	ExpiryIssues int
}

// PurgeExpired deletes expired idempotency records, drained rate-limit
// buckets and workflow starts done long ago. It is idempotent, so Temporal
// may retry it freely.
func (h *Housekeeping) PurgeExpired(ctx context.Context) (PurgeResult, error) {
	var r PurgeResult
	var err error
	if r.IdempotencyKeys, err = domain.PurgeExpiredIdempotencyKeys(ctx, h.DB); err != nil {
		return r, err
	}
	if r.RateBuckets, err = ratelimit.PurgeIdle(ctx, h.DB); err != nil {
		return r, err
	}
	r.WorkflowStarts, err = domain.PurgeStartedWorkflowStarts(ctx, h.DB)
	return r, err
}

// OpenExpiryIssues opens an issue for each item whose traceability rests
// on a document past its valid_until. Each link's issue is opened once,
// so Temporal may retry it freely.
func (h *Housekeeping) OpenExpiryIssues(ctx context.Context) (int, error) {
	return documents.OpenExpiredDocumentIssues(ctx, h.DB)
}
