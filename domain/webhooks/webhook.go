package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
)

// WebhookEndpoint is a customer's HTTPS receiver, configured through the
// API or by operators.
type WebhookEndpoint struct {
	ID                      uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID          uuid.UUID `gorm:"type:uuid"`
	URL                     string
	Events                  pq.StringArray `gorm:"type:text[]"`
	Secret                  string
	PreviousSecret          *string
	PreviousSecretExpiresAt *time.Time
	Status                  string
	domain.Timestamps
}

// Endpoint statuses.
const (
	EndpointActive   = "active"
	EndpointDisabled = "disabled"
	// EndpointDeleted is an endpoint its organization deleted: it is kept
	// for its deliveries' history and its audit entries, and reads as
	// missing everywhere else.
	EndpointDeleted = "deleted"
)

// AllEvents subscribes an endpoint to every type, present and future.
const AllEvents = "*"

// WebhookDelivery is one event sent to one endpoint.
type WebhookDelivery struct {
	ID         uuid.UUID `gorm:"type:uuid;primaryKey"`
	EventID    uuid.UUID `gorm:"type:uuid"`
	EndpointID uuid.UUID `gorm:"type:uuid"`
	Status     string
	Attempts   int
	LastError  string
	// NextAttemptAt is when a failed attempt is retried; nil before the
	// first attempt, once the delivery succeeded or was given up, and
	// after an attempt no retry follows (the retry window has ended).
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	CompletedAt   *time.Time
}

// DeliveryInput names the delivery, its event and endpoint, and its retry
// schedule. The schedule travels in the input (not in worker
// configuration) so that the run's history shows the policy it was
// given. The field names are those of runs started before the fields had
// tags.
type DeliveryInput struct {
	domain.Org
	DeliveryID   uuid.UUID     `json:"DeliveryID"`
	EventID      uuid.UUID     `json:"event_id"`
	EndpointID   uuid.UUID     `json:"endpoint_id"`
	RetryInitial time.Duration `json:"RetryInitial"`
	RetryFor     time.Duration `json:"RetryFor"`
	// Resend names a resend of the delivery (ResendDelivery): a run of its
	// own beside the first, whose id it extends. Zero for the relay's run.
	Resend uuid.UUID `json:"resend,omitzero"`
}

// DeliveryWorkflow POSTs one event to one endpoint. The relay starts it
// for every subscribed endpoint of a new event, never twice for the same
// pair; a resend starts one more.
var DeliveryWorkflow = domain.Workflow[DeliveryInput]{
	Type: "DeliverWebhook",
	ID: func(in DeliveryInput) string {
		id := "webhook/" + in.EventID.String() + "/" + in.EndpointID.String()
		if in.Resend != uuid.Nil {
			id += "/resend/" + in.Resend.String()
		}
		return id
	},
	Resource: func(in DeliveryInput) uuid.UUID { return in.EventID },
}

// RetryBackoff and MaxRetryInterval shape a delivery's retries: the
// pause after a failed attempt starts at the input's RetryInitial and is
// multiplied by RetryBackoff after each further failure, up to
// MaxRetryInterval. The workflow gives them to Temporal as its retry
// policy, and NextAttempt reads the schedule from them.
const (
	RetryBackoff     = 2
	MaxRetryInterval = 6 * time.Hour
)

// NextAttempt is when the delivery created at created is tried again after
// its attempt-th attempt (1 for the first) failed at failed, or nil when
// that is past the retry window (RetryFor from the delivery's creation),
// so no attempt follows and the delivery is about to be given up.
func (in DeliveryInput) NextAttempt(created, failed time.Time, attempt int) *time.Time {
	pause := in.RetryInitial
	for i := 1; i < attempt && pause < MaxRetryInterval; i++ {
		pause *= RetryBackoff
	}
	next := failed.Add(min(pause, MaxRetryInterval))
	if next.After(created.Add(in.RetryFor)) {
		return nil
	}
	return &next
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookAttempt is one POST of a delivery.
type WebhookAttempt struct {
	ID          uuid.UUID `gorm:"type:uuid;primaryKey"`
	DeliveryID  uuid.UUID `gorm:"type:uuid"`
	AttemptedAt time.Time
	StatusCode  *int
	DurationMs  int
	Error       string
}

// NewWebhookSecret returns a signing secret: "whsec_" and 32 random bytes.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

// ErrInsecureWebhookURL rejects receivers that would get events in clear.
var ErrInsecureWebhookURL = errors.New("webhook URLs must use https (plain http is allowed only to a loopback address with WEBHOOK_ALLOW_HTTP_LOOPBACK=true)")

// CheckWebhookURL accepts https URLs and, when allowLoopbackHTTP is set
// (development), http URLs whose host is a loopback address.
func CheckWebhookURL(raw string, allowLoopbackHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("invalid webhook URL %q", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if allowLoopbackHTTP && isLoopback(u.Hostname()) {
			return nil
		}
	}
	return ErrInsecureWebhookURL
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ParseEventTypes validates a comma-separated subscription ("all" or
// types from the catalogue).
func ParseEventTypes(list string) ([]string, error) {
	if strings.TrimSpace(list) == "all" || strings.TrimSpace(list) == AllEvents {
		return []string{AllEvents}, nil
	}
	var out []string
	for _, raw := range strings.Split(list, ",") {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		if !slices.Contains(EventTypes(), name) {
			return nil, fmt.Errorf("unknown event type %q (see the event catalogue in the README)", name)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("subscribe to at least one event type, or all")
	}
	return out, nil
}

// SigningSecrets are the secrets that sign at time now: the current one and,
// during a rotation, the previous one.
func (e *WebhookEndpoint) SigningSecrets(now time.Time) []string {
	secrets := []string{e.Secret}
	if e.PreviousSecret != nil && e.PreviousSecretExpiresAt != nil && now.Before(*e.PreviousSecretExpiresAt) {
		secrets = append(secrets, *e.PreviousSecret)
	}
	return secrets
}

// rotate installs a new secret in e; the old one keeps signing for
// grace so receivers can switch without dropping deliveries. It returns
// the columns to write.
func (e *WebhookEndpoint) rotate(grace time.Duration) map[string]any {
	old, expires := e.Secret, domain.Now().Add(grace)
	e.Secret, e.PreviousSecret, e.PreviousSecretExpiresAt = NewWebhookSecret(), &old, &expires
	return map[string]any{"secret": e.Secret, "previous_secret": old, "previous_secret_expires_at": expires}
}

// RotateWebhookSecret rotates the secret of the endpoint id, of any
// organization, in tx (RotateSecret is the command of a unit of work).
func RotateWebhookSecret(ctx context.Context, tx *gorm.DB, id uuid.UUID, grace time.Duration) (*WebhookEndpoint, error) {
	var e WebhookEndpoint
	if err := tx.WithContext(ctx).Clauses(accounts.LockForUpdate).First(&e, "id = ?", id).Error; err != nil {
		return nil, err
	}
	set := e.rotate(grace)
	set["updated_at"] = domain.Now()
	return &e, tx.WithContext(ctx).Model(&e).Updates(set).Error
}

// DeliverySummary is the summary in words of a delivery's workflow: the
// event's type and the receiver's host alone, since receivers often carry
// a token in the URL's path or query, and the Temporal UI is no place for
// it.
func DeliverySummary(eventType, endpointURL string) string {
	host := "its endpoint"
	if u, err := url.Parse(endpointURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return "Deliver event " + eventType + " to " + host
}
