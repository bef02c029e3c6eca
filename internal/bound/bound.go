// Package bound bounds the waits on backing services (the object store,
// PostgreSQL, Temporal, clamd, SMTP). A service that stops answering
// without closing its connections (a frozen process, a dropped route)
// would otherwise hold a request until the client gives up; bounded, the
// wait ends in an *UnavailableError naming the service, which the API
// answers as 503 service_unavailable with Retry-After, in one place
// (kit.ProblemOf).
package bound

import (
	"context"
	"errors"
	"sync"
	"time"
)

// The services' names, as errors, answers and readiness checks give them.
const (
	S3       = "s3"
	Postgres = "postgres"
	Temporal = "temporal"
	Clamd    = "clamd"
	SMTP     = "smtp"
)

// UnavailableError is a service that did not answer within its bound.
type UnavailableError struct {
	Service string
	Err     error
}

func (e *UnavailableError) Error() string {
	return e.Service + " did not answer in time: " + e.Err.Error()
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ServiceOf is the service an error says did not answer, or "".
func ServiceOf(err error) string {
	var u *UnavailableError
	if errors.As(err, &u) {
		return u.Service
	}
	return ""
}

// Watchdog cancels its context once the service has been waited on for
// longer than the bound in one stretch. Only the time spent waiting on the
// service counts: a stream's time in the hands of a slow client (reading
// an upload's body, writing a download's) does not, so a large transfer
// is not cut for being large.
type Watchdog struct {
	service string
	limit   time.Duration
	mu      sync.Mutex
	timer   *time.Timer
	fired   bool
	cancel  context.CancelFunc
}

// Watch starts a watchdog on service over ctx; the wait is counted from
// now. Stop releases it.
func Watch(ctx context.Context, service string, limit time.Duration) (context.Context, *Watchdog) {
	ctx, cancel := context.WithCancel(ctx)
	w := &Watchdog{service: service, limit: limit, cancel: cancel}
	w.Wait()
	return ctx, w
}

// A nil *Watchdog is no bound: its methods do nothing, and Err answers
// err as it is.

// Wait starts counting: the caller is about to wait on the service.
func (w *Watchdog) Wait() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired || w.limit <= 0 {
		return
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(w.limit, w.fire)
		return
	}
	w.timer.Reset(w.limit)
}

// Pause stops counting: the service answered, and the caller works on
// something else until its next Wait.
func (w *Watchdog) Pause() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

func (w *Watchdog) fire() {
	w.mu.Lock()
	w.fired = true
	w.mu.Unlock()
	w.cancel()
}

// Err is err, as an *UnavailableError when the watchdog ended the wait.
func (w *Watchdog) Err(err error) error {
	if w == nil || err == nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired {
		return &UnavailableError{Service: w.service, Err: err}
	}
	return err
}

// Stop releases the watchdog and cancels its context.
func (w *Watchdog) Stop() {
	if w == nil {
		return
	}
	w.Pause()
	w.cancel()
}

// Call runs fn, a single call to service, within limit.
func Call(ctx context.Context, service string, limit time.Duration, fn func(context.Context) error) error {
	ctx, w := Watch(ctx, service, limit)
	defer w.Stop()
	return w.Err(fn(ctx))
}
