package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain/records"
)

func authorityRequestsCommand() *cobra.Command {
	return groupCommand("authority-requests", "Record answers to authority requests", authorityRequestAnsweredCommand())
}

// authorityRequestAnsweredCommand marks a request answered
// (records.OperatorMarkAnswered).
func authorityRequestAnsweredCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "answered --org ORG --id REQUEST [--on YYYY-MM-DD]",
		Short: "Record the day an authority request was answered; ends its deadline reminder",
		Long: "Record the day (default today, UTC) the organization answered an authority request. Its reminder issue,\n" +
			"if open, is resolved, and the request's workflow authority-request/<id> is signalled (through the\n" +
			"workflow authority-request/<id>/answered, which the worker's relay starts) so its deadline timer ends.\n" +
			"A request is marked answered once.",
		Args: cobra.NoArgs,
	}
	cmd.Flags().String("org", "", "organization id (required)")
	cmd.Flags().String("id", "", "authority request id (required)")
	onFlag := cmd.Flags().String("on", "", "the day it was answered, YYYY-MM-DD (default: today, UTC)")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("id")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		id, err := parseUUIDFlag(cmd, "id")
		if err != nil {
			return nil, err
		}
		var on time.Time
		if *onFlag != "" {
			if on, err = time.Parse(time.DateOnly, *onFlag); err != nil {
				return nil, fmt.Errorf("--on must be a date YYYY-MM-DD, got %q", *onFlag)
			}
		}
		a, err := records.OperatorMarkAnswered(ctx, db, orgID, id, on)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": a.Request.ID, "organizationId": orgID, "answeredOn": a.Request.AnsweredOn.Format(time.DateOnly),
			"dueOn": a.Request.DueOn.Format(time.DateOnly), "deadlineStatus": a.DeadlineStatus, "workflowId": a.WorkflowID}, nil
	})
	return cmd
}
