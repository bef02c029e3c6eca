package webhooks

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/accounts"
)

// The operator's commands: customers cannot configure receivers
// themselves, so endpoints and their secrets are managed by an operator.
// Each command is one transaction, its audit entry included.

// NewEndpoint is an endpoint an operator registers.
type NewEndpoint struct {
	OrganizationID uuid.UUID
	URL            string
	// Events are the types subscribed to (ParseEventTypes).
	Events []string
	// AllowHTTPLoopback is the installation's WEBHOOK_ALLOW_HTTP_LOOPBACK.
	AllowHTTPLoopback bool
}

// OperatorAddEndpoint registers an endpoint with a new signing secret,
// which the returned endpoint holds and which is shown once.
func OperatorAddEndpoint(ctx context.Context, db *gorm.DB, in NewEndpoint) (*WebhookEndpoint, error) {
	e := &WebhookEndpoint{
		ID: domain.NewID(), OrganizationID: in.OrganizationID, URL: in.URL, Events: in.Events,
		Secret: NewWebhookSecret(), Status: EndpointActive,
	}
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := accounts.RequireOrganization(ctx, tx, in.OrganizationID); err != nil {
			return err
		}
		if err := CheckWebhookURL(in.URL, in.AllowHTTPLoopback); err != nil {
			return err
		}
		if err := tx.Create(e).Error; err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, e.OrganizationID, "admin.webhook.add", "webhook_endpoint", e.ID,
			map[string]any{"url": auditURL(e.URL), "events": in.Events})
	})
	if err != nil {
		return nil, err
	}
	return e, nil
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

// ListEndpoints lists the organization's endpoints, oldest first.
func ListEndpoints(ctx context.Context, db *gorm.DB, orgID uuid.UUID) ([]WebhookEndpoint, error) {
	if err := accounts.RequireOrganization(ctx, db, orgID); err != nil {
		return nil, err
	}
	return domain.OldestFirst[WebhookEndpoint](domain.Tenant(ctx, db, orgID))
}

// loadEndpoint reads the endpoint id of any organization, locked for
// update when lock is set.
func loadEndpoint(ctx context.Context, db *gorm.DB, id uuid.UUID, lock bool) (*WebhookEndpoint, error) {
	q := db.WithContext(ctx)
	if lock {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var e WebhookEndpoint
	if err := q.First(&e, "id = ?", id).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, &domain.MissingError{Record: "webhook endpoint", ID: id}
		}
		return nil, err
	}
	return &e, nil
}

// OperatorDisableEndpoint stops deliveries to the endpoint id. Disabling
// twice is not a second change, so it is not audited twice.
func OperatorDisableEndpoint(ctx context.Context, db *gorm.DB, id uuid.UUID) (*WebhookEndpoint, error) {
	var e *WebhookEndpoint
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if e, err = loadEndpoint(ctx, tx, id, true); err != nil || e.Status == EndpointDisabled {
			return err
		}
		e.Status, e.UpdatedAt = EndpointDisabled, time.Now().UTC()
		if err := tx.Model(e).Updates(map[string]any{"status": e.Status, "updated_at": e.UpdatedAt}).Error; err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, e.OrganizationID, "admin.webhook.disable", "webhook_endpoint", e.ID, map[string]any{"status": EndpointDisabled})
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// OperatorRotateSecret replaces the endpoint's signing secret; the
// previous one keeps signing for grace (RotateWebhookSecret).
func OperatorRotateSecret(ctx context.Context, db *gorm.DB, id uuid.UUID, grace time.Duration) (*WebhookEndpoint, error) {
	var e *WebhookEndpoint
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Read first only for its error: RotateWebhookSecret would report
		// a bare "record not found".
		if _, err := loadEndpoint(ctx, tx, id, true); err != nil {
			return err
		}
		var err error
		if e, err = RotateWebhookSecret(ctx, tx, id, grace); err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, e.OrganizationID, "admin.webhook.rotate_secret", "webhook_endpoint", e.ID, map[string]any{
			"grace": grace.String(), "previous_secret_expires_at": *e.PreviousSecretExpiresAt,
		})
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// DeliveryLog is a delivery with its event's type and every attempt,
// oldest first.
type DeliveryLog struct {
	WebhookDelivery
	EventType  string
	AttemptLog []WebhookAttempt `gorm:"-"`
}

// RecentDeliveries are the endpoint's last limit deliveries, newest
// first.
func RecentDeliveries(ctx context.Context, db *gorm.DB, endpointID uuid.UUID, limit int) ([]DeliveryLog, error) {
	if _, err := loadEndpoint(ctx, db, endpointID, false); err != nil {
		return nil, err
	}
	db = db.WithContext(ctx)
	var rows []DeliveryLog
	if err := db.Raw(`SELECT d.*, ev.type AS event_type
FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
WHERE d.endpoint_id = ?
ORDER BY d.created_at DESC, d.id DESC
LIMIT ?`, endpointID, limit).Scan(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return rows, nil
	}
	at := make(map[uuid.UUID]int, len(rows))
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		at[r.ID], ids[i] = i, r.ID
	}
	// All attempts in one query rather than one per delivery.
	var attempts []WebhookAttempt
	if err := db.Where("delivery_id IN ?", ids).Order("attempted_at, id").Find(&attempts).Error; err != nil {
		return nil, err
	}
	for _, a := range attempts {
		d := &rows[at[a.DeliveryID]]
		d.AttemptLog = append(d.AttemptLog, a)
	}
	return rows, nil
}
