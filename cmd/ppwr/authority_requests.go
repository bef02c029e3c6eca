package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/records"
	"ppwr/internal/work"
)

func authorityRequestsCommand() *cobra.Command {
	return groupCommand("authority-requests", "Record answers to authority requests", authorityRequestAnsweredCommand())
}

// authorityRequestAnsweredCommand marks a request answered. The API has no
// update of a request (the spec lists a create and a read only), so the
// day the organization answered the authority is recorded by an operator.
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
	cmd.Flags().String("on", "", "the day it was answered, YYYY-MM-DD (default: today, UTC)")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("id")
	cmd.RunE = adminOpen(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, err := parseOrgFlag(cmd, db)
		if err != nil {
			return nil, err
		}
		id, err := parseUUIDFlag(cmd, "id")
		if err != nil {
			return nil, err
		}
		today := time.Now().UTC().Truncate(24 * time.Hour)
		on := today
		if raw, _ := cmd.Flags().GetString("on"); raw != "" {
			if on, err = time.Parse(time.DateOnly, raw); err != nil {
				return nil, fmt.Errorf("--on must be a date YYYY-MM-DD, got %q", raw)
			}
		}
		w := work.New(ctx, db, work.Actor{Kind: work.ActorOperator, OrganizationID: orgID, Reference: "admin.authority-requests.answered"})
		defer w.Rollback()
		r, err := records.MarkAuthorityRequestAnswered(w, id, on)
		if errors.Is(err, domain.ErrNotFound) {
			return nil, fmt.Errorf("authority request %s does not exist in organization %s", id, orgID)
		}
		if err != nil {
			return nil, err
		}
		workflowID := records.AuthorityRequestAnsweredWorkflow.ID(r.WorkflowInput())
		summary, err := json.Marshal(map[string]any{"answered_on": on.Format(time.DateOnly), "workflow_id": workflowID})
		if err != nil {
			return nil, err
		}
		if err := domain.Commit(w, domain.AuditEntry{Operation: "admin.authority-requests.answered", Summary: datatypes.JSON(summary)}); err != nil {
			return nil, err
		}
		return map[string]any{"id": r.ID, "organizationId": orgID, "answeredOn": on.Format(time.DateOnly),
			"dueOn": r.DueOn.Format(time.DateOnly), "deadlineStatus": r.DeadlineStatus(today), "workflowId": workflowID}, nil
	})
	return cmd
}
