package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// The operator's commands (ppwr admin webhook): the commands of
// endpoints.go run in a unit of work of the operator, one transaction
// with its operator audit entry. Operators name endpoints of any
// organization by id.

// NewEndpoint is an endpoint an operator registers.
type NewEndpoint struct {
	OrganizationID uuid.UUID
	URL            string
	// Events are the types subscribed to (ParseEventTypes).
	Events []string
	// AllowHTTPLoopback is the installation's WEBHOOK_ALLOW_HTTP_LOOPBACK.
	AllowHTTPLoopback bool
}

// asOperator runs change in a unit of work of the operator in the
// organization orgID and commits it with the audit entry of operation and
// the summary change returns. A change that names no record (disabling a
// disabled endpoint) changed nothing and is not audited.
func asOperator(ctx context.Context, db *gorm.DB, orgID uuid.UUID, operation string, change func(w *work.Unit) (map[string]any, error)) error {
	w := work.New(ctx, db, work.Actor{Kind: work.ActorOperator, OrganizationID: orgID, Reference: operation})
	defer w.Rollback()
	summary, err := change(w)
	if err != nil || w.Touched() == nil {
		return err
	}
	raw, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	return domain.Commit(w, domain.AuditEntry{Operation: operation, Summary: datatypes.JSON(raw)})
}

// OperatorAddEndpoint registers an endpoint (CreateEndpoint) with a new
// signing secret, which the returned endpoint holds and which is shown
// once.
func OperatorAddEndpoint(ctx context.Context, db *gorm.DB, in NewEndpoint) (*WebhookEndpoint, error) {
	if err := accounts.RequireOrganization(ctx, db, in.OrganizationID); err != nil {
		return nil, err
	}
	var e *WebhookEndpoint
	err := asOperator(ctx, db, in.OrganizationID, "admin.webhook.add", func(w *work.Unit) (map[string]any, error) {
		create := &EndpointCreate{URL: input.Opt[string]{Sent: true, Value: in.URL}, Events: input.Opt[[]string]{Sent: true, Value: in.Events}}
		var err error
		if e, err = CreateEndpoint(w, create, in.AllowHTTPLoopback); err != nil {
			return nil, err
		}
		return map[string]any{"url": RedactedURL(e.URL), "events": in.Events}, nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// RedactedURL drops the password from a URL before it goes into the
// audit log or an answer, which more people read than the endpoint
// configuration.
func RedactedURL(raw string) string {
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
	return domain.OldestFirst[WebhookEndpoint](Endpoints(ctx, db, orgID))
}

// endpointOrganization is the organization of the endpoint id, of any
// organization; a deleted endpoint is missing.
func endpointOrganization(ctx context.Context, db *gorm.DB, id uuid.UUID) (uuid.UUID, error) {
	var e WebhookEndpoint
	err := db.WithContext(ctx).Select("organization_id").Where("status <> ?", EndpointDeleted).Take(&e, "id = ?", id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return uuid.Nil, &domain.MissingError{Record: "webhook endpoint", ID: id}
	}
	return e.OrganizationID, err
}

// asOperatorOnEndpoint is asOperator in the organization of the endpoint
// id.
func asOperatorOnEndpoint(ctx context.Context, db *gorm.DB, id uuid.UUID, operation string, change func(w *work.Unit) (map[string]any, error)) error {
	orgID, err := endpointOrganization(ctx, db, id)
	if err != nil {
		return err
	}
	return asOperator(ctx, db, orgID, operation, change)
}

// OperatorDisableEndpoint stops deliveries to the endpoint id
// (DisableEndpoint). Disabling twice is not a second change, so it is not
// audited twice.
func OperatorDisableEndpoint(ctx context.Context, db *gorm.DB, id uuid.UUID) (*WebhookEndpoint, error) {
	var e *WebhookEndpoint
	err := asOperatorOnEndpoint(ctx, db, id, "admin.webhook.disable", func(w *work.Unit) (map[string]any, error) {
		var err error
		e, err = DisableEndpoint(w, id)
		return map[string]any{"status": EndpointDisabled}, err
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// OperatorRotateSecret replaces the endpoint's signing secret; the
// previous one keeps signing for grace (RotateSecret).
func OperatorRotateSecret(ctx context.Context, db *gorm.DB, id uuid.UUID, grace time.Duration) (*WebhookEndpoint, error) {
	var e *WebhookEndpoint
	err := asOperatorOnEndpoint(ctx, db, id, "admin.webhook.rotate_secret", func(w *work.Unit) (map[string]any, error) {
		var err error
		if e, err = RotateSecret(w, id, grace); err != nil {
			return nil, err
		}
		return map[string]any{"grace": grace.String(), "previous_secret_expires_at": *e.PreviousSecretExpiresAt}, nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// RecentDeliveries are the endpoint's last limit deliveries, newest
// first.
func RecentDeliveries(ctx context.Context, db *gorm.DB, endpointID uuid.UUID, limit int) ([]DeliveryLog, error) {
	if _, err := endpointOrganization(ctx, db, endpointID); err != nil {
		return nil, err
	}
	var rows []DeliveryLog
	if err := deliveriesOf(ctx, db, endpointID).Order("created_at DESC, id DESC").Limit(limit).Scan(&rows).Error; err != nil {
		return nil, err
	}
	return WithAttempts(ctx, db, rows)
}

// ResendRefusal is nil for a delivery given up (failed) to an active
// endpoint, which an operator may send again, and otherwise the
// *domain.RefusedError saying why not: a pending delivery is still being
// retried by its run, so a second press of a resend is refused. The
// API's resend is not bound by it: an organization may resend any
// delivery of its own.
func ResendRefusal(d *WebhookDelivery, e *WebhookEndpoint) error {
	if e.Status != EndpointActive {
		return &domain.RefusedError{Key: "error.delivery_endpoint_inactive", Args: []any{d.ID, e.ID, e.Status}}
	}
	if d.Status == DeliveryFailed {
		return nil
	}
	return domain.Refusal("error.delivery_not_resendable", d.ID, d.Status, notResendable)
}

// notResendable says why a delivery in each status is not resent.
var notResendable = map[string]string{DeliveryPending: "refused.delivery_pending", DeliverySucceeded: "refused.delivery_succeeded"}

// DeliveryOf reads the delivery id, of any organization, with its
// endpoint, whatever the endpoint's status.
func DeliveryOf(ctx context.Context, db *gorm.DB, id uuid.UUID) (*WebhookDelivery, *WebhookEndpoint, error) {
	var d WebhookDelivery
	var e WebhookEndpoint
	err := db.WithContext(ctx).Take(&d, "id = ?", id).Error
	if err == nil {
		err = db.WithContext(ctx).Take(&e, "id = ?", d.EndpointID).Error
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, &domain.MissingError{Record: "webhook delivery", ID: id}
	}
	if err != nil {
		return nil, nil, err
	}
	return &d, &e, nil
}

// OperatorResendDelivery sends the delivery id, of any organization, that
// was given up, again (ResendDelivery): it is pending again, and the
// relay starts the resend's run, which it answers. Refused, changing
// nothing, unless ResendRefusal allows it. The audit entry keeps the
// error the delivery had.
func OperatorResendDelivery(ctx context.Context, db *gorm.DB, id uuid.UUID, retry Retry) (*DeliveryLog, domain.Run, error) {
	d, e, err := DeliveryOf(ctx, db, id)
	if err != nil {
		return nil, domain.Run{}, err
	}
	if err := ResendRefusal(d, e); err != nil {
		return nil, domain.Run{}, err
	}
	var out *DeliveryLog
	var run domain.Run
	err = asOperator(ctx, db, e.OrganizationID, "admin.webhook.resend", func(w *work.Unit) (map[string]any, error) {
		var err error
		if out, run, err = resendDelivery(w, e.ID, id, retry, ResendRefusal); err != nil {
			return nil, err
		}
		return map[string]any{"requeued_from": DeliveryFailed, "previous_error": out.LastError, "workflow_id": run.WorkflowID}, nil
	})
	if err != nil {
		return nil, domain.Run{}, err
	}
	return out, run, nil
}
