package activities

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/internal/safedial"
	"ppwr/internal/telemetry"
	"ppwr/webhooksig"
)

// ErrEndpointUnusable is the error type of a delivery that no retry can
// fix: the endpoint was disabled, or its URL is no longer allowed.
const ErrEndpointUnusable = "EndpointUnusable"

// webhookTimeout bounds one POST, as the receiver rules promise.
const webhookTimeout = 10 * time.Second

// Webhooks sends webhook deliveries.
type Webhooks struct {
	DB                *gorm.DB
	AllowHTTPLoopback bool
	// Client is the HTTP client; nil means a client with the 10 s timeout
	// that does not follow redirects (a redirect is a failed attempt).
	Client *http.Client
}

func (w *Webhooks) client() *http.Client {
	if w.Client != nil {
		return w.Client
	}
	return &http.Client{
		// The dial guard refuses internal addresses as they are dialled,
		// so a URL whose name was rebound since it was checked reaches
		// none.
		Transport:     safedial.Transport(w.AllowHTTPLoopback),
		Timeout:       webhookTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Deliver makes one attempt: it signs the event's stored body afresh, POSTs
// it and records the attempt. A non-2xx answer or a transport error is
// returned, so Temporal retries it with the workflow's policy.
func (w *Webhooks) Deliver(ctx context.Context, in webhooks.DeliveryInput) error {
	// A delivery belongs to its event and endpoint, which are the
	// organization's: they are read through its scope.
	var d webhooks.WebhookDelivery
	if err := w.DB.WithContext(ctx).First(&d, "id = ?", in.DeliveryID).Error; err != nil {
		return err
	}
	if d.Status == webhooks.DeliverySucceeded {
		return nil // a retry of an attempt whose success was already recorded
	}
	event, err := domain.Find[domain.Event](ctx, w.DB, in.OrganizationID, d.EventID)
	if err != nil {
		return err
	}
	endpoint, err := domain.Find[webhooks.WebhookEndpoint](ctx, w.DB, in.OrganizationID, d.EndpointID)
	if err != nil {
		return err
	}
	if endpoint.Status != webhooks.EndpointActive {
		return temporal.NewNonRetryableApplicationError("endpoint is disabled", ErrEndpointUnusable, nil)
	}
	if err := webhooks.CheckWebhookURL(endpoint.URL, w.AllowHTTPLoopback); err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrEndpointUnusable, err)
	}

	start := time.Now()
	status, postErr := w.post(ctx, endpoint, event, start)
	attempt := webhooks.WebhookAttempt{
		ID: domain.NewID(), DeliveryID: d.ID, AttemptedAt: start.UTC(), DurationMs: int(time.Since(start).Milliseconds()),
	}
	if status != 0 {
		attempt.StatusCode = &status
	}
	if postErr == nil && (status < 200 || status > 299) {
		postErr = fmt.Errorf("receiver answered %d", status)
	}
	telemetry.WebhookAttempt(attemptOutcome(status, postErr))
	var next *time.Time
	if postErr != nil {
		attempt.Error = postErr.Error()
		// Temporal's attempt, not the delivery's count: an attempt that
		// failed before it could be recorded still lengthened the pause.
		next = in.NextAttempt(d.CreatedAt, time.Now().UTC(), int(activity.GetInfo(ctx).Attempt))
	}
	if err := w.record(ctx, &attempt, next); err != nil {
		return err
	}
	return postErr
}

// attemptOutcome names an attempt's outcome in the metrics: no answer at
// all, an answer that refused the event, or success.
func attemptOutcome(status int, err error) string {
	switch {
	case status == 0:
		return telemetry.WebhookUnreachable
	case err != nil:
		return telemetry.WebhookRejected
	}
	return telemetry.WebhookSucceeded
}

func (w *Webhooks) post(ctx context.Context, endpoint *webhooks.WebhookEndpoint, event *domain.Event, now time.Time) (int, error) {
	body := []byte(event.Body)
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ppwr-webhooks/1")
	req.Header.Set(webhooksig.Header, webhooksig.Sign(endpoint.SigningSecrets(now), body, now))
	res, err := w.client().Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	// Drain a little so the connection can be reused; receivers' bodies are ignored.
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, nil
}

// record stores the attempt and the delivery's new state together: a
// failed attempt's error and next attempt time, or the success.
func (w *Webhooks) record(ctx context.Context, attempt *webhooks.WebhookAttempt, next *time.Time) error {
	return w.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(attempt).Error; err != nil {
			return err
		}
		updates := map[string]any{"attempts": gorm.Expr("attempts + 1"), "last_error": attempt.Error, "next_attempt_at": next}
		if attempt.Error == "" {
			updates["status"], updates["completed_at"] = webhooks.DeliverySucceeded, attempt.AttemptedAt
		}
		return tx.Model(&webhooks.WebhookDelivery{}).Where("id = ?", attempt.DeliveryID).Updates(updates).Error
	})
}

// MarkFailed records that a delivery was given up; a delivery that has
// meanwhile succeeded stays succeeded.
func (w *Webhooks) MarkFailed(ctx context.Context, in webhooks.DeliveryInput, reason string) error {
	return w.DB.WithContext(ctx).Model(&webhooks.WebhookDelivery{}).
		Where("id = ? AND status = ?", in.DeliveryID, webhooks.DeliveryPending).
		Updates(map[string]any{"status": webhooks.DeliveryFailed, "completed_at": time.Now().UTC(), "last_error": reason, "next_attempt_at": nil}).Error
}
