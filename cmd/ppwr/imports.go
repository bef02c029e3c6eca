package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/imports"
	"ppwr/internal/config"
	"ppwr/internal/i18n"
	"ppwr/internal/temporalclient"
)

// redriveTimeout bounds the re-drive's calls to Temporal: an unreachable
// Temporal fails the command rather than hanging the operator's terminal.
const redriveTimeout = 30 * time.Second

func importsCommand() *cobra.Command {
	return groupCommand("imports", "Re-drive imports whose workflow failed or was terminated", importsRedriveCommand())
}

// startRedrive starts a new run of the stage's workflow.
//
// Started here, not recorded in workflow_starts for the relay: the relay's
// start returns the run that exists, open or closed, which is what a
// retried request needs and the opposite of a re-drive. Nor is durability
// needed: the operator sees a failed start and runs the command again.
// Should the audit entry then fail to commit, the run exists and the
// command reports the error; running it again is refused, naming that
// run, while the run is open.
func startRedrive(ctx context.Context, db *gorm.DB, imp *imports.Import, stage imports.RedriveStage) (workflowID, runID string, err error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return "", "", err
	}
	tc, err := temporalclient.Dial(cfg)
	if err != nil {
		return "", "", err
	}
	defer tc.Close()
	wf, in := stage.Workflow(), imp.WorkflowInput()
	// Described as the relay describes a recorded start, so the new run
	// reads in the Temporal UI like the runs before it.
	start, err := domain.NewStart(wf, in, stage.Summary(imp))
	if err != nil {
		return "", "", err
	}
	names, err := domain.OrganizationNames(ctx, db, []domain.WorkflowStart{*start})
	if err != nil {
		return "", "", err
	}
	ref := temporalclient.Ref{
		WorkflowID:     start.WorkflowID,
		OrganizationID: start.OrganizationID,
		ResourceID:     start.ResourceID,
		TaskQueue:      cfg.TemporalTaskQueue,
	}
	ref.Summary, ref.Details = start.Describe(names[start.OrganizationID])
	tctx, cancel := context.WithTimeout(ctx, redriveTimeout)
	defer cancel()
	run, err := temporalclient.Redrive(tctx, tc, ref, wf.Type, in)
	if err != nil {
		return "", "", err
	}
	return ref.WorkflowID, run.GetRunID(), nil
}

func importsRedriveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "redrive IMPORT_ID",
		Short: "Start a new run of the workflow a queued (preview) or applying (apply) import waits for, or preview a failed import again",
		Long: "Start a new run of the workflow a queued (preview) or applying (apply) import waits for, after its run\n" +
			"failed, timed out or was terminated. A preview starts over; an apply resumes after the rows already applied.\n" +
			"A failed import (its file could not be read) is queued again and previewed from its stored file.\n" +
			"Refused while a run of that workflow is still open. With --wait, it waits until the import is ready, applied\n" +
			"or failed again, and fails if it failed.",
		Args: cobra.ExactArgs(1),
	}
	wait := addWaitFlags(cmd)
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		raw := cmd.Flags().Arg(0)
		id, err := uuid.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("IMPORT_ID must be a UUID, got %q", raw)
		}
		if err := wait.valid(); err != nil {
			return nil, err
		}
		r, err := imports.Redrive(ctx, db, id, func(ctx context.Context, imp *imports.Import, stage imports.RedriveStage) (string, string, error) {
			return startRedrive(ctx, db, imp, stage)
		})
		if err != nil {
			return nil, err
		}
		out := map[string]any{
			"importId": r.Import.ID, "organizationId": r.Import.OrganizationID, "workflowId": r.WorkflowID,
			"runId": r.RunID, "stage": r.Stage,
		}
		return out, wait.await(ctx, cmd, db, "import "+id.String(), jobOf(r.Import.OrganizationID, id, importState))
	})
	return cmd
}

// importState is an import as --wait shows it: a re-drive's run ends
// when the import is ready, applied or failed.
func importState(imp *imports.Import) (jobState, error) {
	key, args, err := imp.ErrorReason()
	if err != nil {
		return jobState{}, err
	}
	s := jobState{Status: imp.Status, Running: imp.Running(), Progress: imp.Progress}
	if imp.Status == imports.ImportFailedStatus {
		s.Failure = i18n.T(i18n.EN, key, args...)
	}
	return s, nil
}
