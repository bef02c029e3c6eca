package webhooks

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/internal/input"
	"ppwr/internal/safedial"
	"ppwr/internal/work"
)

// The commands on endpoints and deliveries, shared by the API (an
// integration managing its own endpoints) and the admin CLI (an operator,
// operator.go): each runs in the caller's unit of work, which holds the
// audit entry and, for the API, the idempotent answer.

// URLMax bounds an endpoint URL, in characters.
const URLMax = 2048

// EndpointCreate is a new endpoint: the URL events are POSTed to and the
// types it subscribes to (every type, present and future, when left out).
type EndpointCreate struct {
	input.Errors
	URL    input.Opt[string]
	Events input.Opt[[]string]
}

// Declare names the endpoint's fields.
func (in *EndpointCreate) Declare(f *input.Fields) {
	f.Text("url", &in.URL, input.Text{Required: true, NotBlank: true, Max: URLMax, Desc: "schema.webhook_url"})
	declareEvents(f, &in.Events)
}

// EndpointUpdate changes an endpoint's URL or subscription; a field left
// out keeps its value.
type EndpointUpdate struct {
	input.Errors
	URL    input.Opt[string]
	Events input.Opt[[]string]
}

// Declare names the fields an update may change.
func (in *EndpointUpdate) Declare(f *input.Fields) {
	f.Text("url", &in.URL, input.Text{NotBlank: true, Max: URLMax, Desc: "schema.webhook_url"})
	declareEvents(f, &in.Events)
}

func declareEvents(f *input.Fields, dst *input.Opt[[]string]) {
	f.List("events", dst, input.List{MinItems: 1, Known: knownSubscription, UnknownKey: "field.event_type_unknown",
		Desc: "schema.webhook_events"})
}

// knownSubscription accepts the catalogue's types and AllEvents.
func knownSubscription(name string) bool {
	return name == AllEvents || slices.Contains(EventTypes(), name)
}

// subscription is a bound list of types as stored: AllEvents alone when
// it is listed, since it already holds every type.
func subscription(events input.Opt[[]string]) []string {
	if !events.Set() || slices.Contains(events.Value, AllEvents) {
		return []string{AllEvents}
	}
	return events.Value
}

// checkURL records on field url of errs why raw may not receive events:
// not an absolute URL, not https (but loopback in development), or a host
// that resolves to an address deliveries may not reach. Deliveries check
// the address again as they dial (safedial), since a name may resolve
// elsewhere later.
func checkURL(ctx context.Context, errs *input.Errors, raw string, allowLoopback bool) {
	if err := CheckWebhookURL(raw, allowLoopback); err != nil {
		key := "field.webhook_url_invalid"
		if errors.Is(err, ErrInsecureWebhookURL) {
			key = "field.webhook_url_insecure"
		}
		errs.Fail("url", key)
		return
	}
	u, _ := url.Parse(raw)
	if safedial.CheckHost(ctx, u.Hostname(), allowLoopback) != nil {
		errs.Fail("url", "field.webhook_url_internal")
	}
}

// CreateEndpoint registers an endpoint of w's organization with a new
// signing secret, which the returned endpoint holds and which is shown
// once. allowLoopback is the installation's WEBHOOK_ALLOW_HTTP_LOOPBACK.
func CreateEndpoint(w *work.Unit, in *EndpointCreate, allowLoopback bool) (*WebhookEndpoint, error) {
	if in.URL.Set() {
		checkURL(w.Context(), &in.Errors, in.URL.Value, allowLoopback)
	}
	if in.Failed() {
		return nil, in.Err()
	}
	at := domain.Now()
	e := &WebhookEndpoint{
		ID: domain.NewID(), OrganizationID: w.Organization(), URL: in.URL.Value, Events: subscription(in.Events),
		Secret: NewWebhookSecret(), Status: EndpointActive, Timestamps: domain.Timestamps{CreatedAt: at, UpdatedAt: at},
	}
	if err := w.Tx().Create(e).Error; err != nil {
		return nil, err
	}
	w.Touch("webhook_endpoint", e.ID)
	return e, nil
}

// Endpoints selects the organization's endpoints that are not deleted.
func Endpoints(ctx context.Context, db *gorm.DB, orgID uuid.UUID) *gorm.DB {
	return domain.Tenant(ctx, db, orgID).Model(&WebhookEndpoint{}).Where("status <> ?", EndpointDeleted)
}

// FindEndpoint reads the organization's endpoint id; a deleted one is
// missing.
func FindEndpoint(ctx context.Context, db *gorm.DB, orgID, id uuid.UUID) (*WebhookEndpoint, error) {
	return domain.Take[WebhookEndpoint](Endpoints(ctx, db, orgID).Where("id = ?", id))
}

// lockEndpoint reads w's endpoint id locked for update, for a change.
func lockEndpoint(w *work.Unit, id uuid.UUID) (*WebhookEndpoint, error) {
	return domain.Take[WebhookEndpoint](Endpoints(w.Context(), w.Tx(), w.Organization()).
		Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id))
}

// setEndpoint writes the changed columns of e and names it as the unit's
// record.
func setEndpoint(w *work.Unit, e *WebhookEndpoint, set map[string]any) error {
	e.UpdatedAt = domain.Now()
	set["updated_at"] = e.UpdatedAt
	if err := w.Tx().Model(e).Updates(set).Error; err != nil {
		return err
	}
	w.Touch("webhook_endpoint", e.ID)
	return nil
}

// UpdateEndpoint changes the URL or the subscription of w's endpoint id;
// a new URL is checked as a new endpoint's is.
func UpdateEndpoint(w *work.Unit, id uuid.UUID, in *EndpointUpdate, allowLoopback bool) (*WebhookEndpoint, error) {
	if in.URL.Set() {
		checkURL(w.Context(), &in.Errors, in.URL.Value, allowLoopback)
	}
	if in.Failed() {
		return nil, in.Err()
	}
	e, err := lockEndpoint(w, id)
	if err != nil {
		return nil, err
	}
	set := map[string]any{}
	if in.URL.Set() {
		e.URL, set["url"] = in.URL.Value, in.URL.Value
	}
	if in.Events.Set() {
		e.Events = subscription(in.Events)
		set["events"] = e.Events
	}
	if len(set) == 0 {
		return e, nil
	}
	return e, setEndpoint(w, e, set)
}

// DisableEndpoint stops deliveries to w's endpoint id. Disabling twice is
// not a second change: the unit names no record then.
func DisableEndpoint(w *work.Unit, id uuid.UUID) (*WebhookEndpoint, error) {
	e, err := lockEndpoint(w, id)
	if err != nil || e.Status == EndpointDisabled {
		return e, err
	}
	e.Status = EndpointDisabled
	return e, setEndpoint(w, e, map[string]any{"status": e.Status})
}

// DeleteEndpoint deletes w's endpoint id: it receives nothing more, and a
// delivery still retrying stops at its next attempt, as for a disabled
// endpoint. Its deliveries stay in the history (migration 0037).
func DeleteEndpoint(w *work.Unit, id uuid.UUID) error {
	e, err := lockEndpoint(w, id)
	if err != nil {
		return err
	}
	e.Status = EndpointDeleted
	return setEndpoint(w, e, map[string]any{"status": e.Status})
}

// SecretRotation is how long the previous secret of a rotation keeps
// signing, in seconds (a day when left out, 0 to drop it at once).
type SecretRotation struct {
	input.Errors
	GraceSeconds input.Opt[int]
}

// DefaultRotationGrace and MaxRotationGrace bound the grace of a rotation.
const (
	DefaultRotationGrace = 24 * time.Hour
	MaxRotationGrace     = 7 * 24 * time.Hour
)

// Declare names the rotation's field.
func (in *SecretRotation) Declare(f *input.Fields) {
	f.Int("grace_seconds", &in.GraceSeconds, input.Int{Min: 0, Max: int(MaxRotationGrace / time.Second), Desc: "schema.webhook_grace"})
}

// Grace is the rotation's grace period.
func (in *SecretRotation) Grace() time.Duration {
	if !in.GraceSeconds.Set() {
		return DefaultRotationGrace
	}
	return time.Duration(in.GraceSeconds.Value) * time.Second
}

// RotateSecret gives w's endpoint id a new signing secret; the previous
// one keeps signing for grace, so receivers switch without dropping
// deliveries.
func RotateSecret(w *work.Unit, id uuid.UUID, grace time.Duration) (*WebhookEndpoint, error) {
	e, err := lockEndpoint(w, id)
	if err != nil {
		return nil, err
	}
	return e, setEndpoint(w, e, e.rotate(grace))
}

// DeliveryLog is a delivery with its event's type and every attempt,
// oldest first.
type DeliveryLog struct {
	WebhookDelivery
	EventType  string
	AttemptLog []WebhookAttempt `gorm:"-"`
}

// LastStatus is the HTTP status of the last attempt, nil before one or
// when it got no answer.
func (d *DeliveryLog) LastStatus() *int {
	if len(d.AttemptLog) == 0 {
		return nil
	}
	return d.AttemptLog[len(d.AttemptLog)-1].StatusCode
}

// Deliveries selects the deliveries of the organization's endpoint id,
// each with its event's type, after checking the endpoint is the
// organization's (deliveries have no organization of their own).
func Deliveries(ctx context.Context, db *gorm.DB, orgID, endpointID uuid.UUID) (*gorm.DB, error) {
	if _, err := FindEndpoint(ctx, db, orgID, endpointID); err != nil {
		return nil, err
	}
	return deliveriesOf(ctx, db, endpointID), nil
}

// deliveriesOf selects the deliveries of an endpoint of any organization.
// The type is a subquery, not a join, so that "id" names the delivery's.
func deliveriesOf(ctx context.Context, db *gorm.DB, endpointID uuid.UUID) *gorm.DB {
	return db.WithContext(ctx).Table("webhook_deliveries").
		Select("webhook_deliveries.*, (SELECT type FROM events WHERE events.id = webhook_deliveries.event_id) AS event_type").
		Where("endpoint_id = ?", endpointID)
}

// WithAttempts fills the attempt log of each delivery, in one query for
// all of them.
func WithAttempts(ctx context.Context, db *gorm.DB, rows []DeliveryLog) ([]DeliveryLog, error) {
	if len(rows) == 0 {
		return rows, nil
	}
	at := make(map[uuid.UUID]int, len(rows))
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		at[r.ID], ids[i] = i, r.ID
	}
	var attempts []WebhookAttempt
	if err := db.WithContext(ctx).Where("delivery_id IN ?", ids).Order("attempted_at, id").Find(&attempts).Error; err != nil {
		return nil, err
	}
	for _, a := range attempts {
		d := &rows[at[a.DeliveryID]]
		d.AttemptLog = append(d.AttemptLog, a)
	}
	return rows, nil
}

// FindDelivery reads the delivery id of the organization's endpoint
// endpointID with its attempts.
func FindDelivery(ctx context.Context, db *gorm.DB, orgID, endpointID, id uuid.UUID) (*DeliveryLog, error) {
	q, err := Deliveries(ctx, db, orgID, endpointID)
	if err != nil {
		return nil, err
	}
	row, err := domain.Take[DeliveryLog](q.Where("id = ?", id))
	if err != nil {
		return nil, err
	}
	rows, err := WithAttempts(ctx, db, []DeliveryLog{*row})
	if err != nil {
		return nil, err
	}
	return &rows[0], nil
}

// Retry is the retry schedule a delivery's run is given (the
// installation's WEBHOOK_RETRY_* settings).
type Retry struct {
	Initial, For time.Duration
}

// ErrEndpointDisabled refuses to resend to an endpoint that receives
// nothing.
var ErrEndpointDisabled = &domain.ConflictError{Code: "webhook_endpoint_disabled", Key: "error.webhook_endpoint_disabled"}

// ResendDelivery sends the delivery id of w's endpoint endpointID again,
// whatever its state: it is pending again, and a run of its own is
// recorded to start after commit, with the same event id and body and a
// fresh signature. A run still retrying the delivery goes on; the first
// success ends both.
func ResendDelivery(w *work.Unit, endpointID, id uuid.UUID, retry Retry) (*DeliveryLog, error) {
	d, _, err := resendDelivery(w, endpointID, id, retry, nil)
	return d, err
}

// resendDelivery is ResendDelivery, refused by check, when not nil, for a
// delivery whose state it does not allow, once the delivery is locked;
// it also answers the resend's run, which the relay starts.
func resendDelivery(w *work.Unit, endpointID, id uuid.UUID, retry Retry, check func(*WebhookDelivery, *WebhookEndpoint) error) (*DeliveryLog, domain.Run, error) {
	e, err := lockEndpoint(w, endpointID)
	if err != nil {
		return nil, domain.Run{}, err
	}
	if e.Status != EndpointActive {
		return nil, domain.Run{}, ErrEndpointDisabled
	}
	d, err := domain.Take[DeliveryLog](deliveriesOf(w.Context(), w.Tx(), endpointID).
		Clauses(clause.Locking{Strength: "UPDATE", Table: clause.Table{Name: "webhook_deliveries"}}).Where("id = ?", id))
	if err != nil {
		return nil, domain.Run{}, err
	}
	if check != nil {
		if err := check(&d.WebhookDelivery, e); err != nil {
			return nil, domain.Run{}, err
		}
	}
	d.Status, d.CompletedAt = DeliveryPending, nil
	if err := w.Tx().Model(&d.WebhookDelivery).Updates(map[string]any{"status": d.Status, "completed_at": nil}).Error; err != nil {
		return nil, domain.Run{}, err
	}
	w.Touch("webhook_delivery", d.ID)
	in := DeliveryInput{Org: domain.OrgOf(w.Organization()), DeliveryID: d.ID, EventID: d.EventID, EndpointID: e.ID,
		RetryInitial: retry.Initial, RetryFor: retry.For, Resend: domain.NewID()}
	if err := domain.Start(w, DeliveryWorkflow, in, "Resend "+DeliverySummary(d.EventType, e.URL)); err != nil {
		return nil, domain.Run{}, err
	}
	rows, err := WithAttempts(w.Context(), w.Tx(), []DeliveryLog{*d})
	if err != nil {
		return nil, domain.Run{}, err
	}
	return &rows[0], domain.Run{WorkflowID: DeliveryWorkflow.ID(in)}, nil
}
