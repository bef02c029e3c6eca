package workflows

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/documents"
)

// processing is a processing workflow environment whose activities answer
// as a test says; FinishProcessing records the outcome it was given.
type processing struct {
	env      *testsuite.TestWorkflowEnvironment
	a        *activities.Documents
	outcome  *documents.ProcessingOutcome
	finished int
	set      *[]string
}

func newProcessing(t *testing.T) *processing {
	p := &processing{env: newTestEnv(), a: &activities.Documents{}}
	p.env.RegisterActivity(p.a)
	p.set = outcomes(p.env)
	p.env.OnActivity(p.a.FinishProcessing, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ documents.VersionInput, out documents.ProcessingOutcome) error {
			p.outcome, p.finished = &out, p.finished+1
			return nil
		})
	return p
}

func (p *processing) run(t *testing.T) string {
	p.env.ExecuteWorkflow(DocumentProcessing, documents.VersionInput{Org: domain.OrgOf(uuid.New()), VersionID: uuid.New()})
	require.True(t, p.env.IsWorkflowCompleted())
	require.NoError(t, p.env.GetWorkflowError())
	var status string
	require.NoError(t, p.env.GetWorkflowResult(&status))
	require.Equal(t, 1, p.finished, "the outcome is recorded exactly once")
	require.Equal(t, []string{status}, *p.set, "the run's outcome is the version's status")
	return status
}

func cleanPDF() activities.Finding {
	return activities.Finding{Outcome: activities.OutcomeClean, ContentType: "application/pdf"}
}

func TestProcessingACleanPDFStoresItsPagesAndAwaitsReview(t *testing.T) {
	p := newProcessing(t)
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(cleanPDF(), nil)
	p.env.OnActivity(p.a.Scan, mock.Anything, mock.Anything).Return(activities.Finding{Outcome: activities.OutcomeClean}, nil)
	p.env.OnActivity(p.a.ExtractPages, mock.Anything, mock.Anything).Return(3, nil)

	assert.Equal(t, documents.ProcessingReviewRequired, p.run(t))
	assert.Equal(t, "application/pdf", p.outcome.ContentType)
	require.NotNil(t, p.outcome.PageCount)
	assert.Equal(t, 3, *p.outcome.PageCount)
}

func TestProcessingAnImageExtractsNoPages(t *testing.T) {
	p := newProcessing(t)
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(activities.Finding{Outcome: activities.OutcomeClean, ContentType: "image/png"}, nil)
	p.env.OnActivity(p.a.Scan, mock.Anything, mock.Anything).Return(activities.Finding{Outcome: activities.OutcomeClean}, nil)

	assert.Equal(t, documents.ProcessingReviewRequired, p.run(t))
	assert.Nil(t, p.outcome.PageCount)
	p.env.AssertNotCalled(t, "ExtractPages", mock.Anything, mock.Anything)
}

func TestProcessingQuarantinesMalwareAndStopsThere(t *testing.T) {
	p := newProcessing(t)
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(cleanPDF(), nil)
	p.env.OnActivity(p.a.Scan, mock.Anything, mock.Anything).Return(
		activities.Finding{Outcome: activities.OutcomeQuarantined, Reason: "malware", Detail: "Eicar-Test-Signature"}, nil)

	assert.Equal(t, documents.ProcessingQuarantined, p.run(t))
	assert.Equal(t, "malware", p.outcome.Reason)
	assert.Equal(t, "Eicar-Test-Signature", p.outcome.Detail)
	p.env.AssertNotCalled(t, "ExtractPages", mock.Anything, mock.Anything)
}

func TestProcessingQuarantinesAnUnsafeStructureWithoutScanning(t *testing.T) {
	p := newProcessing(t)
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(
		activities.Finding{Outcome: activities.OutcomeQuarantined, Reason: "pdf_javascript"}, nil)

	assert.Equal(t, documents.ProcessingQuarantined, p.run(t))
	assert.Equal(t, "pdf_javascript", p.outcome.Reason)
	p.env.AssertNotCalled(t, "Scan", mock.Anything, mock.Anything)
}

func TestProcessingFailsARefusedType(t *testing.T) {
	p := newProcessing(t)
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(
		activities.Finding{Outcome: activities.OutcomeFailed, Reason: "type_not_allowed", Detail: "ELF executable"}, nil)

	assert.Equal(t, documents.ProcessingFailed, p.run(t))
	assert.Equal(t, "type_not_allowed", p.outcome.Reason)
}

func TestProcessingFailsAPDFThatCannotBeRead(t *testing.T) {
	p := newProcessing(t)
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(cleanPDF(), nil)
	p.env.OnActivity(p.a.Scan, mock.Anything, mock.Anything).Return(activities.Finding{Outcome: activities.OutcomeClean}, nil)
	p.env.OnActivity(p.a.ExtractPages, mock.Anything, mock.Anything).Return(0,
		temporal.NewNonRetryableApplicationError("pdftext: pdf is unreadable", activities.ErrorTypeUnreadablePDF, nil))

	assert.Equal(t, documents.ProcessingFailed, p.run(t))
	assert.Equal(t, "unreadable", p.outcome.Reason)
}

// A scanner that is briefly unreachable delays processing; the scan is
// retried and the clean file ends ready for review.
func TestProcessingRetriesAFailedScan(t *testing.T) {
	p := newProcessing(t)
	scans := 0
	p.env.OnActivity(p.a.Inspect, mock.Anything, mock.Anything).Return(cleanPDF(), nil)
	p.env.OnActivity(p.a.Scan, mock.Anything, mock.Anything).Return(func(_ context.Context, _ documents.VersionInput) (activities.Finding, error) {
		scans++
		if scans < 3 {
			return activities.Finding{}, errors.New("dial tcp 127.0.0.1:3310: connection refused")
		}
		return activities.Finding{Outcome: activities.OutcomeClean}, nil
	})
	p.env.OnActivity(p.a.ExtractPages, mock.Anything, mock.Anything).Return(1, nil)

	assert.Equal(t, documents.ProcessingReviewRequired, p.run(t))
	assert.Equal(t, 3, scans)
}

func TestAnalysisReturnsItsProposals(t *testing.T) {
	env := newTestEnv()
	a := &activities.Documents{}
	env.RegisterActivity(a)
	in := documents.VersionInput{Org: domain.OrgOf(uuid.New()), VersionID: uuid.New(), Run: 2}
	env.OnActivity(a.Analyze, mock.Anything, in).Return(4, nil).Once()

	env.ExecuteWorkflow(DocumentAnalysis, in)
	require.NoError(t, env.GetWorkflowError())
	var proposals int
	require.NoError(t, env.GetWorkflowResult(&proposals))
	assert.Equal(t, 4, proposals)
	env.AssertExpectations(t)
}

func TestDocumentWorkflowIDs(t *testing.T) {
	id := uuid.MustParse("0190a4b2-0000-7000-8000-000000000001")
	in := documents.VersionInput{VersionID: id, Run: 3}
	assert.Equal(t, "document-version/0190a4b2-0000-7000-8000-000000000001/processing", documents.ProcessingWorkflow.ID(in))
	assert.Equal(t, "document-version/0190a4b2-0000-7000-8000-000000000001/analysis/3", documents.AnalysisWorkflow.ID(in))
}
