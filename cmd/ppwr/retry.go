package main

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/domain/reports"
	"ppwr/internal/config"
	"ppwr/ops"
)

// redriver is the Temporal starter of an admin command's re-drive; the
// caller closes it.
func redriver(db *gorm.DB) (*ops.Redriver, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	return ops.Dial(cfg, db)
}

// parseUUIDArg is the command's one positional argument, named name in
// its usage, as a UUID.
func parseUUIDArg(cmd *cobra.Command, name string) (uuid.UUID, error) {
	raw := cmd.Flags().Arg(0)
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, fmt.Errorf("%s must be a UUID, got %q", name, raw)
	}
	return id, nil
}

// retryCommand is "retry ID" of a job whose failed run an operator starts
// again with retry; org is the job's organization.
func retryCommand[T any](name, short string, retry func(context.Context, *gorm.DB, uuid.UUID, domain.Redrive) (*T, domain.Run, error),
	org func(*T) uuid.UUID) *cobra.Command {
	cmd := &cobra.Command{Use: "retry " + name, Short: short, Args: cobra.ExactArgs(1)}
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDArg(cmd, name)
		if err != nil {
			return nil, err
		}
		rd, err := redriver(db)
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		job, run, err := retry(ctx, db, id, rd.Start)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": id, "organizationId": org(job), "workflowId": run.WorkflowID, "runId": run.RunID}, nil
	})
	return cmd
}

func reportsCommand() *cobra.Command {
	return groupCommand("reports", "Build failed reports again", retryCommand("REPORT_ID",
		"Queue a failed report again and start a new run that builds its file; refused unless it failed",
		reports.RetryReport, func(r *reports.Report) uuid.UUID { return r.OrganizationID }))
}

func bdoCommand() *cobra.Command {
	return groupCommand("bdo", "Render failed BDO report exports again", retryCommand("BDO_REPORT_ID",
		"Start a new run that renders a BDO report's failed exports from its snapshot again; refused unless they failed",
		bdo.RetryExport, func(r *bdo.BDOReport) uuid.UUID { return r.OrganizationID }))
}
