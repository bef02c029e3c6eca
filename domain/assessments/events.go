package assessments

import (
	"ppwr/domain"
)

type AssessmentCreated domain.RecordCreated

func (AssessmentCreated) EventType() string { return "assessment.created" }

// AssessmentStaleEvent announces that what an assessment read has changed
// since: run a new one.
type AssessmentStaleEvent domain.RecordCreated

func (AssessmentStaleEvent) EventType() string { return "assessment.stale" }

type AssessmentReviewed domain.RecordStatus

func (AssessmentReviewed) EventType() string { return "assessment.reviewed" }
