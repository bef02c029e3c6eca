package imports

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
)

// RedriveStage is the workflow an import waits for: its preview or its
// apply.
type RedriveStage string

// Re-drive stages.
const (
	StagePreview RedriveStage = "preview"
	StageApply   RedriveStage = "apply"
)

// NotRedrivableError refuses to re-drive an import that waits for no
// workflow, saying why.
type NotRedrivableError struct {
	ID     uuid.UUID
	Status string
	Why    string
}

func (e *NotRedrivableError) Error() string {
	return fmt.Sprintf("import %s is %s, nothing to re-drive: %s", e.ID, e.Status, e.Why)
}

// Workflow is the workflow of the stage.
func (s RedriveStage) Workflow() domain.Workflow[ImportInput] {
	if s == StageApply {
		return ApplyWorkflow
	}
	return PreviewWorkflow
}

// Summary is the summary of imp's run of the stage.
func (s RedriveStage) Summary(imp *Import) string {
	if s == StageApply {
		return imp.applySummary()
	}
	return imp.previewSummary()
}

// RedriveStageOf is the stage an import waits for, and whether it must be
// requeued first. Queued and applying imports wait for a workflow; a
// failed one is previewed again (a worker with a bug may have failed it,
// and its file is still stored, so the customer need not upload it again;
// a file that is really unreadable fails again the same way). The others
// are refused with why there is nothing to do.
func RedriveStageOf(imp *Import) (stage RedriveStage, requeue bool, err error) {
	var why string
	switch imp.Status {
	case ImportQueued:
		return StagePreview, false, nil
	case ImportFailedStatus:
		return StagePreview, true, nil
	case ImportApplying:
		return StageApply, false, nil
	case ImportReadyStatus:
		why = "its preview is done; the customer applies it through the API (POST .../imports/{id}/apply)"
	case ImportCompletedStatus, ImportCompletedWithErrors:
		why = "it has been applied"
	default:
		why = "the status is unknown to this version"
	}
	return "", false, &NotRedrivableError{ID: imp.ID, Status: imp.Status, Why: why}
}

// RedriveStarter starts a new run of the stage's workflow for imp and
// names it.
type RedriveStarter func(ctx context.Context, imp *Import, stage RedriveStage) (workflowID, runID string, err error)

// Redriven is a re-drive's new run.
type Redriven struct {
	Import     *Import
	Stage      RedriveStage
	WorkflowID string
	RunID      string
}

// Redrive has start begin a new run of the workflow the import id, of
// any organization, waits for (RedriveStageOf), after its run failed,
// timed out or was terminated, and records it in the audit log. A failed
// import is requeued in the transaction that starts the run: the
// preview's read of the import waits for it to commit, so the run finds
// the import queued, or still failed (and does nothing) if the re-drive
// fails after the start.
func Redrive(ctx context.Context, db *gorm.DB, id uuid.UUID, start RedriveStarter) (*Redriven, error) {
	var out *Redriven
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var imp Import
		if err := tx.First(&imp, "id = ?", id).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return &domain.MissingError{Record: "import", ID: id}
			}
			return err
		}
		stage, requeue, err := RedriveStageOf(&imp)
		if err != nil {
			return err
		}
		summary := map[string]any{}
		if requeue {
			key, args, err := imp.ErrorReason()
			if err != nil {
				return err
			}
			summary["requeued_from"] = imp.Status
			summary["previous_error"] = map[string]any{"key": key, "args": args}
			if err := RequeueFailedImport(ctx, tx, &imp); err != nil {
				return err
			}
		}
		workflowID, runID, err := start(ctx, &imp, stage)
		if err != nil {
			return err
		}
		out = &Redriven{Import: &imp, Stage: stage, WorkflowID: workflowID, RunID: runID}
		summary["workflow_id"], summary["run_id"], summary["stage"] = workflowID, runID, string(stage)
		return domain.AuditOperator(ctx, tx, imp.OrganizationID, "admin.imports.redrive", "import", imp.ID, summary)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
