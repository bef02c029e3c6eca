package main

import (
	"context"

	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain/assessments"
)

func assessmentsCommand() *cobra.Command {
	return groupCommand("assessments", "Run assessments in bulk", assessmentsRunCommand())
}

func assessmentsRunCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run --org ORG [--rule-set CODE]",
		Short: "Assess every active item of an organization, for all published rule sets or one",
		Long: "Record a bulk assessment run and the start of its workflow assessment-run/<id>, which the worker's relay\n" +
			"starts: it assesses the organization's active items in batches, resuming after the last item done if a\n" +
			"worker dies. Run one rule set after a new version of it is published. Watch it in the Temporal UI, or with\n" +
			"--wait here.",
		Args: cobra.NoArgs,
	}
	cmd.Flags().String("org", "", "organization id (required)")
	_ = cmd.MarkFlagRequired("org")
	ruleSet := cmd.Flags().String("rule-set", "", "code of a published rule set (default: all)")
	wait := addWaitFlags(cmd)
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		if err := wait.valid(); err != nil {
			return nil, err
		}
		run, err := assessments.OperatorStartAssessmentRun(ctx, db, orgID, *ruleSet)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"id": run.ID, "workflowId": run.WorkflowID(), "organizationId": orgID, "items": run.Total}
		return out, wait.await(ctx, cmd, db, "assessment run "+run.ID.String(), jobOf(orgID, run.ID, runState))
	})
	return cmd
}

// runState is a bulk run as --wait shows it; a run does not fail (a
// failing batch is retried until it succeeds).
func runState(r *assessments.AssessmentRun) (jobState, error) {
	return jobState{Status: r.Status, Running: r.Running(), Progress: r.Progress}, nil
}
