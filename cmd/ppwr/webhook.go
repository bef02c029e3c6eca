package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/internal/config"
)

// maxDeliveriesLimit bounds --limit so one command cannot load an
// endpoint's whole history (and all its attempts) into memory.
const maxDeliveriesLimit = 1000

// webhookCommand groups the operator's webhook commands: customers cannot
// configure receivers themselves, so endpoints and their secrets are
// managed here.
func webhookCommand() *cobra.Command {
	return groupCommand("webhook", "Manage webhook endpoints and inspect their deliveries",
		webhookAddCommand(), webhookListCommand(), webhookDisableCommand(),
		webhookRotateSecretCommand(), webhookDeliveriesCommand())
}

func loadEndpoint(tx *gorm.DB, id uuid.UUID, lock bool) (*webhooks.WebhookEndpoint, error) {
	q := tx
	if lock {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var e webhooks.WebhookEndpoint
	if err := q.First(&e, "id = ?", id).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, fmt.Errorf("webhook endpoint %s does not exist", id)
		}
		return nil, err
	}
	return &e, nil
}

// auditURL drops user:password from a URL before it goes into the audit
// log, which more people read than the endpoint configuration.
func auditURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Redacted()
}

func webhookAddCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "add", Short: "Register a webhook endpoint (the signing secret is shown once)", Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id (required)")
	rawURL := cmd.Flags().String("url", "", "receiver URL; https (http only to loopback with WEBHOOK_ALLOW_HTTP_LOOPBACK=true) (required)")
	events := cmd.Flags().String("events", "all", "comma-separated event types, or all")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("url")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		orgID, err := parseOrgFlag(cmd, tx)
		if err != nil {
			return nil, err
		}
		cfg, err := config.FromEnv()
		if err != nil {
			return nil, err
		}
		if err := webhooks.CheckWebhookURL(*rawURL, cfg.WebhookAllowHTTPLoopback); err != nil {
			return nil, err
		}
		types, err := webhooks.ParseEventTypes(*events)
		if err != nil {
			return nil, err
		}
		e := &webhooks.WebhookEndpoint{
			ID: domain.NewID(), OrganizationID: orgID, URL: *rawURL, Events: types,
			Secret: webhooks.NewWebhookSecret(), Status: webhooks.EndpointActive,
		}
		if err := tx.Create(e).Error; err != nil {
			return nil, err
		}
		if err := auditOperator(ctx, tx, orgID, "admin.webhook.add", "webhook_endpoint", e.ID, map[string]any{"url": auditURL(e.URL), "events": types}); err != nil {
			return nil, err
		}
		return map[string]any{"id": e.ID, "secret": e.Secret}, nil
	})
	return cmd
}

func webhookListCommand() *cobra.Command {
	return listInOrgCommand("List an organization's webhook endpoints (secrets are never shown)", "endpoints", func(e *webhooks.WebhookEndpoint) map[string]any {
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
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "endpoint")
		if err != nil {
			return nil, err
		}
		e, err := loadEndpoint(tx, id, true)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"id": e.ID, "status": webhooks.EndpointDisabled}
		// Disabling twice is not a second change, so it is not audited twice.
		if e.Status == webhooks.EndpointDisabled {
			return out, nil
		}
		if err := tx.Model(e).Updates(map[string]any{"status": webhooks.EndpointDisabled, "updated_at": time.Now().UTC()}).Error; err != nil {
			return nil, err
		}
		return out, auditOperator(ctx, tx, e.OrganizationID, "admin.webhook.disable", "webhook_endpoint", e.ID, map[string]any{"status": webhooks.EndpointDisabled})
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
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "endpoint")
		if err != nil {
			return nil, err
		}
		if *grace < 0 {
			return nil, fmt.Errorf("--grace must not be negative, got %s", *grace)
		}
		// Checked first only for its message: RotateWebhookSecret would
		// report a bare "record not found".
		if _, err := loadEndpoint(tx, id, true); err != nil {
			return nil, err
		}
		e, err := webhooks.RotateWebhookSecret(ctx, tx, id, *grace)
		if err != nil {
			return nil, err
		}
		expires := *e.PreviousSecretExpiresAt
		if err := auditOperator(ctx, tx, e.OrganizationID, "admin.webhook.rotate_secret", "webhook_endpoint", e.ID, map[string]any{
			"grace": grace.String(), "previous_secret_expires_at": expires,
		}); err != nil {
			return nil, err
		}
		return map[string]any{"id": e.ID, "secret": e.Secret, "previousSecretExpiresAt": expires}, nil
	})
	return cmd
}

func webhookDeliveriesCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "deliveries", Short: "Show an endpoint's recent deliveries with every attempt, newest first", Args: cobra.NoArgs}
	cmd.Flags().String("endpoint", "", "endpoint id (required)")
	limit := cmd.Flags().Int("limit", 50, fmt.Sprintf("number of deliveries (1-%d)", maxDeliveriesLimit))
	_ = cmd.MarkFlagRequired("endpoint")
	cmd.RunE = adminRun(func(_ context.Context, tx *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "endpoint")
		if err != nil {
			return nil, err
		}
		if *limit < 1 || *limit > maxDeliveriesLimit {
			return nil, fmt.Errorf("--limit must be between 1 and %d, got %d", maxDeliveriesLimit, *limit)
		}
		if _, err := loadEndpoint(tx, id, false); err != nil {
			return nil, err
		}
		var rows []struct {
			webhooks.WebhookDelivery
			EventType string
		}
		if err := tx.Raw(`SELECT d.*, ev.type AS event_type
FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
WHERE d.endpoint_id = ?
ORDER BY d.created_at DESC, d.id DESC
LIMIT ?`, id, *limit).Scan(&rows).Error; err != nil {
			return nil, err
		}
		ids := make([]uuid.UUID, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		// All attempts in one query rather than one per delivery.
		var attempts []webhooks.WebhookAttempt
		if len(ids) > 0 {
			if err := tx.Where("delivery_id IN ?", ids).Order("attempted_at, id").Find(&attempts).Error; err != nil {
				return nil, err
			}
		}
		logs := map[uuid.UUID][]map[string]any{}
		for _, a := range attempts {
			var code any
			if a.StatusCode != nil {
				code = *a.StatusCode
			}
			logs[a.DeliveryID] = append(logs[a.DeliveryID], map[string]any{
				"attemptedAt": a.AttemptedAt, "statusCode": code, "durationMs": a.DurationMs, "error": a.Error,
			})
		}
		deliveries := make([]map[string]any, 0, len(rows))
		for _, r := range rows {
			var completed any
			if r.CompletedAt != nil {
				completed = *r.CompletedAt
			}
			log := logs[r.ID]
			if log == nil {
				log = []map[string]any{}
			}
			deliveries = append(deliveries, map[string]any{
				"id": r.ID, "eventId": r.EventID, "eventType": r.EventType, "status": r.Status,
				"attempts": r.Attempts, "lastError": r.LastError, "createdAt": r.CreatedAt,
				"completedAt": completed, "attemptLog": log,
			})
		}
		return map[string]any{"endpointId": id, "deliveries": deliveries}, nil
	})
	return cmd
}
