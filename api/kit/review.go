package kit

import (
	"time"

	"github.com/google/uuid"

	"ppwr/domain/registers"
)

// ReviewJSON is what the answer of every record reviewed once shows of
// its registers.ReviewState; embedded in the record's JSON, its fields sit
// beside the record's own.
type ReviewJSON struct {
	ReviewStatus string     `json:"review_status"`
	ReviewReason *string    `json:"review_reason"`
	ReviewedBy   *uuid.UUID `json:"reviewed_by"`
	ReviewedAt   *time.Time `json:"reviewed_at"`
	Revision     int        `json:"revision"`
	CreatedBy    *uuid.UUID `json:"created_by"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// Review renders a record's review state.
func Review(s *registers.ReviewState) ReviewJSON {
	return ReviewJSON{ReviewStatus: s.ReviewStatus, ReviewReason: s.ReviewReason, ReviewedBy: s.ReviewedBy,
		ReviewedAt: UTC(s.ReviewedAt), Revision: s.Revision, CreatedBy: s.CreatedBy, UpdatedAt: s.UpdatedAt.UTC()}
}
