package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain/webhooks"
	"ppwr/internal/config"
)

// maxDeliveriesLimit bounds --limit so one command cannot load an
// endpoint's whole history (and all its attempts) into memory.
const maxDeliveriesLimit = 1000

// webhookCommand groups the operator's webhook commands (see
// webhooks.OperatorAddEndpoint).
func webhookCommand() *cobra.Command {
	return groupCommand("webhook", "Manage webhook endpoints and inspect their deliveries",
		webhookAddCommand(), webhookListCommand(), webhookDisableCommand(),
		webhookRotateSecretCommand(), webhookDeliveriesCommand(), webhookResendCommand())
}

func webhookAddCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "add", Short: "Register a webhook endpoint (the signing secret is shown once)", Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id (required)")
	rawURL := cmd.Flags().String("url", "", "receiver URL; https (http only to loopback with WEBHOOK_ALLOW_HTTP_LOOPBACK=true) (required)")
	events := cmd.Flags().String("events", "all", "comma-separated event types, or all")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("url")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		cfg, err := config.FromEnv()
		if err != nil {
			return nil, err
		}
		types, err := webhooks.ParseEventTypes(*events)
		if err != nil {
			return nil, err
		}
		e, err := webhooks.OperatorAddEndpoint(ctx, db, webhooks.NewEndpoint{
			OrganizationID: orgID, URL: *rawURL, Events: types, AllowHTTPLoopback: cfg.WebhookAllowHTTPLoopback,
		})
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": e.ID, "secret": e.Secret}, nil
	})
	return cmd
}

func webhookListCommand() *cobra.Command {
	return listInOrgCommand("List an organization's webhook endpoints (secrets are never shown)", "endpoints", webhooks.ListEndpoints, func(e *webhooks.WebhookEndpoint) map[string]any {
		return map[string]any{
			"id": e.ID, "url": e.URL, "events": []string(e.Events), "status": e.Status,
			// The previous secret still signing is what an operator must
			// know before telling a customer to drop it.
			"rotating":  len(e.SigningSecrets(time.Now())) > 1,
			"createdAt": e.CreatedAt,
		}
	})
}

func webhookDisableCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "disable", Short: "Stop delivering events to a webhook endpoint", Args: cobra.NoArgs}
	cmd.Flags().String("endpoint", "", "endpoint id (required)")
	_ = cmd.MarkFlagRequired("endpoint")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "endpoint")
		if err != nil {
			return nil, err
		}
		e, err := webhooks.OperatorDisableEndpoint(ctx, db, id)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": e.ID, "status": e.Status}, nil
	})
	return cmd
}

func webhookRotateSecretCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rotate-secret",
		Short: "Replace an endpoint's signing secret; the old one keeps signing during --grace",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().String("endpoint", "", "endpoint id (required)")
	grace := cmd.Flags().Duration("grace", 24*time.Hour, "how long the previous secret keeps signing (0 drops it at once)")
	_ = cmd.MarkFlagRequired("endpoint")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "endpoint")
		if err != nil {
			return nil, err
		}
		if *grace < 0 {
			return nil, fmt.Errorf("--grace must not be negative, got %s", *grace)
		}
		e, err := webhooks.OperatorRotateSecret(ctx, db, id, *grace)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": e.ID, "secret": e.Secret, "previousSecretExpiresAt": *e.PreviousSecretExpiresAt}, nil
	})
	return cmd
}

func webhookDeliveriesCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "deliveries", Short: "Show an endpoint's recent deliveries with every attempt, newest first", Args: cobra.NoArgs}
	cmd.Flags().String("endpoint", "", "endpoint id (required)")
	limit := cmd.Flags().Int("limit", 50, fmt.Sprintf("number of deliveries (1-%d)", maxDeliveriesLimit))
	_ = cmd.MarkFlagRequired("endpoint")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "endpoint")
		if err != nil {
			return nil, err
		}
		if *limit < 1 || *limit > maxDeliveriesLimit {
			return nil, fmt.Errorf("--limit must be between 1 and %d, got %d", maxDeliveriesLimit, *limit)
		}
		rows, err := webhooks.RecentDeliveries(ctx, db, id, *limit)
		if err != nil {
			return nil, err
		}
		out := showAll("deliveries", rows, deliveryJSON)
		out["endpointId"] = id
		return out, nil
	})
	return cmd
}

func webhookResendCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resend",
		Short: "Send a delivery that was given up again, as a new run with the installation's retry schedule; refused unless it failed",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().String("delivery", "", "delivery id (required)")
	_ = cmd.MarkFlagRequired("delivery")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "delivery")
		if err != nil {
			return nil, err
		}
		cfg, err := config.FromEnv()
		if err != nil {
			return nil, err
		}
		d, run, err := webhooks.OperatorResendDelivery(ctx, db, id, webhooks.Retry{Initial: cfg.WebhookRetryInitial, For: cfg.WebhookRetryFor})
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": d.ID, "endpointId": d.EndpointID, "eventId": d.EventID, "status": d.Status, "workflowId": run.WorkflowID}, nil
	})
	return cmd
}

func deliveryJSON(d *webhooks.DeliveryLog) map[string]any {
	var completed, next any
	if d.CompletedAt != nil {
		completed = *d.CompletedAt
	}
	if d.NextAttemptAt != nil {
		next = *d.NextAttemptAt
	}
	log := make([]map[string]any, 0, len(d.AttemptLog))
	for _, a := range d.AttemptLog {
		var code any
		if a.StatusCode != nil {
			code = *a.StatusCode
		}
		log = append(log, map[string]any{
			"attemptedAt": a.AttemptedAt, "statusCode": code, "durationMs": a.DurationMs, "error": a.Error,
		})
	}
	return map[string]any{
		"id": d.ID, "eventId": d.EventID, "eventType": d.EventType, "status": d.Status,
		"attempts": d.Attempts, "lastError": d.LastError, "nextAttemptAt": next, "createdAt": d.CreatedAt,
		"completedAt": completed, "attemptLog": log,
	}
}
