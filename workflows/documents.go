package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/documents"
)

// processingRetry retries a step for as long as it takes: a scanner or
// object store that is down delays processing (visible as the pending
// activity's attempts in the Temporal UI), it never fails a clean file.
var processingRetry = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute}

// DocumentProcessing checks a new version step by step: its checksum,
// real type and structure, a malware scan and, for a PDF, the text of
// each page. The first step that finds a problem ends it: the version is
// quarantined (unsafe) or failed (unreadable); otherwise it is ready for
// review. It returns the version's processing status, which is also the
// run's outcome.
func DocumentProcessing(ctx workflow.Context, in documents.VersionInput) (string, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Documents
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 15 * time.Minute, HeartbeatTimeout: 2 * time.Minute, RetryPolicy: processingRetry,
	})
	finish := func(out documents.ProcessingOutcome) (string, error) {
		if err := workflow.ExecuteActivity(ctx, a.FinishProcessing, in, out).Get(ctx, nil); err != nil {
			return out.Status, err
		}
		setOutcome(ctx, out.Status)
		return out.Status, nil
	}
	var inspected, scanned activities.Finding
	if err := workflow.ExecuteActivity(ctx, a.Inspect, in).Get(ctx, &inspected); err != nil {
		return "", err
	}
	if inspected.Outcome != activities.OutcomeClean {
		return finish(outcomeOf(inspected))
	}
	if err := workflow.ExecuteActivity(ctx, a.Scan, in).Get(ctx, &scanned); err != nil {
		return "", err
	}
	if scanned.Outcome != activities.OutcomeClean {
		return finish(outcomeOf(scanned))
	}
	out := documents.ProcessingOutcome{Status: documents.ProcessingReviewRequired, ContentType: inspected.ContentType}
	if inspected.ContentType == "application/pdf" {
		var pages int
		err := workflow.ExecuteActivity(ctx, a.ExtractPages, in).Get(ctx, &pages)
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) && appErr.Type() == activities.ErrorTypeUnreadablePDF {
			return finish(documents.ProcessingOutcome{Status: documents.ProcessingFailed, Reason: "unreadable", Detail: appErr.Message()})
		}
		if err != nil {
			return "", err
		}
		out.PageCount = &pages
	}
	return finish(out)
}

// outcomeOf is the final status a problem finding gives the version.
func outcomeOf(f activities.Finding) documents.ProcessingOutcome {
	status := documents.ProcessingFailed
	if f.Outcome == activities.OutcomeQuarantined {
		status = documents.ProcessingQuarantined
	}
	return documents.ProcessingOutcome{Status: status, ContentType: f.ContentType, Reason: f.Reason, Detail: f.Detail}
}

// DocumentAnalysis proposes the measurable values found in a version's
// page text; people decide on them later. It returns how many proposals
// the run holds.
func DocumentAnalysis(ctx workflow.Context, in documents.VersionInput) (int, error) {
	withOrganization(ctx, &in.Org)
	var a *activities.Documents
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, RetryPolicy: processingRetry})
	var proposals int
	if err := workflow.ExecuteActivity(ctx, a.Analyze, in).Get(ctx, &proposals); err != nil {
		return 0, err
	}
	setOutcome(ctx, OutcomeCompleted)
	return proposals, nil
}
