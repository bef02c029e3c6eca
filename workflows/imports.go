package workflows

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
)

// Registered type names of the import workflows: recorded starts name
// their workflow by type.
const (
	ImportPreviewType = "ImportPreview"
	ImportApplyType   = "ImportApply"
)

// ImportInput names the import a run works on.
type ImportInput struct {
	ImportID uuid.UUID `json:"import_id"`
}

// ImportWorkflowID is the preview run of an import, ImportApplyWorkflowID
// its apply run. Apply is a workflow of its own, started durably by the
// apply request (domain.StartWorkflow), rather than a signal to a waiting
// preview run: a signal sent after the request commits is lost if the
// process dies in between, while a recorded start is not.
func ImportWorkflowID(id uuid.UUID) string      { return "import/" + id.String() }
func ImportApplyWorkflowID(id uuid.UUID) string { return "import/" + id.String() + "/apply" }

// importActivity runs the long activities of an import: they heartbeat
// each stored batch, so a stuck worker is noticed in a minute and a retry
// resumes from the last batch.
func importActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
		},
	})
}

// ImportPreview reads the uploaded file and plans its rows; the import
// becomes ready, or failed for a file it cannot read. It returns the
// import's status.
func ImportPreview(ctx workflow.Context, in ImportInput) (string, error) {
	var a *activities.Imports
	var status string
	err := workflow.ExecuteActivity(importActivity(ctx), a.Preview, in.ImportID).Get(ctx, &status)
	return status, err
}

// ImportApply applies the planned rows of a ready import. It returns the
// import's final status.
func ImportApply(ctx workflow.Context, in ImportInput) (string, error) {
	var a *activities.Imports
	var status string
	err := workflow.ExecuteActivity(importActivity(ctx), a.Apply, in.ImportID).Get(ctx, &status)
	return status, err
}
