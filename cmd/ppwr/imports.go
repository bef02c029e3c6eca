package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/imports"
	"ppwr/internal/config"
	"ppwr/internal/temporalclient"
)

// redriveTimeout bounds the re-drive's calls to Temporal: an unreachable
// Temporal fails the command rather than hanging the operator's terminal.
const redriveTimeout = 30 * time.Second

func importsCommand() *cobra.Command {
	return groupCommand("imports", "Re-drive imports whose workflow failed or was terminated", importsRedriveCommand())
}

// importStage is the workflow that moves an import on from its status.
type importStage struct {
	name     string
	workflow domain.Workflow[imports.ImportInput]
	// requeue: the import is failed and is made queued again for the run.
	requeue bool
}

// redriveStage is the stage an import waits for. Queued and applying
// imports wait for a workflow; a failed one is previewed again (a worker
// with a bug may have failed it, and its file is still stored, so the
// customer need not upload it again; a file that is really unreadable
// fails again the same way). The others say why there is nothing to do.
func redriveStage(imp *imports.Import) (importStage, error) {
	var why string
	switch imp.Status {
	case imports.ImportQueued:
		return importStage{name: "preview", workflow: imports.PreviewWorkflow}, nil
	case imports.ImportFailedStatus:
		return importStage{name: "preview", workflow: imports.PreviewWorkflow, requeue: true}, nil
	case imports.ImportApplying:
		return importStage{name: "apply", workflow: imports.ApplyWorkflow}, nil
	case imports.ImportReadyStatus:
		why = "its preview is done; the customer applies it through the API (POST .../imports/{id}/apply)"
	case imports.ImportCompletedStatus, imports.ImportCompletedWithErrors:
		why = "it has been applied"
	default:
		why = "the status is unknown to this version"
	}
	return importStage{}, fmt.Errorf("import %s is %s, nothing to re-drive: %s", imp.ID, imp.Status, why)
}

func importsRedriveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "redrive IMPORT_ID",
		Short: "Start a new run of the workflow a queued (preview) or applying (apply) import waits for, or preview a failed import again",
		Long: "Start a new run of the workflow a queued (preview) or applying (apply) import waits for, after its run\n" +
			"failed, timed out or was terminated. A preview starts over; an apply resumes after the rows already applied.\n" +
			"A failed import (its file could not be read) is queued again and previewed from its stored file.\n" +
			"Refused while a run of that workflow is still open.",
		Args: cobra.ExactArgs(1),
	}
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		raw := cmd.Flags().Arg(0)
		id, err := uuid.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("IMPORT_ID must be a UUID, got %q", raw)
		}
		// The operator names an import of any organization.
		var imp imports.Import
		if err := tx.First(&imp, "id = ?", id).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return nil, fmt.Errorf("import %s does not exist", id)
			}
			return nil, err
		}
		stage, err := redriveStage(&imp)
		if err != nil {
			return nil, err
		}
		cfg, err := config.FromEnv()
		if err != nil {
			return nil, err
		}
		tc, err := temporalclient.Dial(cfg.TemporalAddress, cfg.TemporalNamespace)
		if err != nil {
			return nil, err
		}
		defer tc.Close()
		summary := map[string]any{}
		if stage.requeue {
			// Requeued in the transaction that starts the run: the
			// preview's read of the import waits for it to commit, so the
			// run finds the import queued, or still failed (and does
			// nothing) if the re-drive fails after the start.
			key, args, _ := imp.ErrorReason()
			summary["requeued_from"] = imp.Status
			summary["previous_error"] = map[string]any{"key": key, "args": args}
			if err := imports.RequeueFailedImport(ctx, tx, &imp); err != nil {
				return nil, err
			}
		}
		in := imports.ImportInput{Org: domain.OrgOf(imp.OrganizationID), ImportID: imp.ID}
		ref := temporalclient.Ref{
			WorkflowID:     stage.workflow.ID(in),
			OrganizationID: imp.OrganizationID.String(),
			ResourceID:     imp.ID.String(),
			TaskQueue:      cfg.TemporalTaskQueue,
		}
		// Started here, not recorded in workflow_starts for the relay: the
		// relay's start returns the run that exists, open or closed, which
		// is what a retried request needs and the opposite of a re-drive.
		// Nor is durability needed: the operator sees a failed start and
		// runs the command again. Should the audit entry then fail to
		// commit, the run exists and the command reports the error; running
		// it again is refused, naming that run, while the run is open.
		tctx, cancel := context.WithTimeout(ctx, redriveTimeout)
		defer cancel()
		run, err := temporalclient.Redrive(tctx, tc, ref, stage.workflow.Type, in)
		if err != nil {
			return nil, err
		}
		out := map[string]any{
			"importId": imp.ID, "organizationId": imp.OrganizationID, "workflowId": ref.WorkflowID,
			"runId": run.GetRunID(), "stage": stage.name,
		}
		summary["workflow_id"], summary["run_id"], summary["stage"] = ref.WorkflowID, run.GetRunID(), stage.name
		return out, auditOperator(ctx, tx, imp.OrganizationID, "admin.imports.redrive", "import", imp.ID, summary)
	})
	return cmd
}
