package workflows

import (
	"strconv"

	"github.com/google/uuid"
)

// Registered type names of the document workflows: recorded starts name
// their workflow by type.
const (
	DocumentProcessingType = "DocumentProcessing"
	DocumentAnalysisType   = "DocumentAnalysis"
)

// DocumentVersionInput names the version a document workflow works on;
// an analysis also carries its run number.
type DocumentVersionInput struct {
	VersionID uuid.UUID `json:"version_id"`
	Run       int       `json:"run,omitempty"`
}

// DocumentProcessingWorkflowID is the processing workflow of a version.
func DocumentProcessingWorkflowID(version uuid.UUID) string {
	return "document-version/" + version.String() + "/processing"
}

// DocumentAnalysisWorkflowID is the run-th analysis workflow of a version.
func DocumentAnalysisWorkflowID(version uuid.UUID, run int) string {
	return "document-version/" + version.String() + "/analysis/" + strconv.Itoa(run)
}
