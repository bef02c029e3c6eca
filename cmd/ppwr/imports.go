package main

import (
	"context"

	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain/imports"
	"ppwr/internal/i18n"
)

func importsCommand() *cobra.Command {
	return groupCommand("imports", "Re-drive imports whose workflow failed or was terminated", importsRedriveCommand())
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
		id, err := parseUUIDArg(cmd, "IMPORT_ID")
		if err != nil {
			return nil, err
		}
		if err := wait.valid(); err != nil {
			return nil, err
		}
		rd, err := redriver(db)
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		r, err := imports.Redrive(ctx, db, id, rd.Start)
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
