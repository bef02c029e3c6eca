package imports

import (
	"context"

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

// workflow is the workflow of the stage.
func (s RedriveStage) workflow() domain.Workflow[ImportInput] {
	if s == StageApply {
		return ApplyWorkflow
	}
	return PreviewWorkflow
}

// summary is the summary of imp's run of the stage.
func (s RedriveStage) summary(imp *Import) string {
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
// are refused with a *domain.RefusedError saying why there is nothing to
// do.
func RedriveStageOf(imp *Import) (stage RedriveStage, requeue bool, err error) {
	switch imp.Status {
	case ImportQueued:
		return StagePreview, false, nil
	case ImportFailedStatus:
		return StagePreview, true, nil
	case ImportApplying:
		return StageApply, false, nil
	}
	return "", false, domain.Refusal("error.import_not_redrivable", imp.ID, imp.Status, notRedrivable)
}

// notRedrivable says why an import in each status waits for no workflow.
var notRedrivable = map[string]string{
	ImportReadyStatus:         "refused.import_ready",
	ImportCompletedStatus:     "refused.import_applied",
	ImportCompletedWithErrors: "refused.import_applied",
}

// Redriven is a re-drive's new run.
type Redriven struct {
	Import *Import
	Stage  RedriveStage
	domain.Run
}

// Redrive has redrive begin a new run of the workflow the import id, of
// any organization, waits for (RedriveStageOf), after its run failed,
// timed out or was terminated, and records it in the audit log
// (domain.RedriveRecord). A failed import is requeued in the transaction
// that starts the run: the preview's read of the import waits for it to
// commit, so the run finds the import queued, or still failed (and does
// nothing) if the re-drive fails after the start.
func Redrive(ctx context.Context, db *gorm.DB, id uuid.UUID, redrive domain.Redrive) (*Redriven, error) {
	var stage RedriveStage
	imp, run, err := domain.RedriveRecord(ctx, db, "import", id, "admin.imports.redrive", redrive, func(tx *gorm.DB, imp *Import) (domain.Readied, error) {
		var requeue bool
		var err error
		if stage, requeue, err = RedriveStageOf(imp); err != nil {
			return domain.Readied{}, err
		}
		summary := map[string]any{"stage": string(stage)}
		if requeue {
			key, args, err := imp.ErrorReason()
			if err != nil {
				return domain.Readied{}, err
			}
			summary["requeued_from"] = imp.Status
			summary["previous_error"] = map[string]any{"key": key, "args": args}
			if err := RequeueFailedImport(ctx, tx, imp); err != nil {
				return domain.Readied{}, err
			}
		}
		start, err := domain.NewStart(stage.workflow(), imp.WorkflowInput(), stage.summary(imp))
		return domain.Readied{Start: start, Summary: summary}, err
	})
	if err != nil {
		return nil, err
	}
	return &Redriven{Import: imp, Stage: stage, Run: run}, nil
}
