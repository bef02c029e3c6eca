// Package health answers the liveness and readiness probes of a process:
// /healthz says the process is up, /readyz probes each backing service it
// depends on and names the ones that do not answer. The API serves them
// on its own engine; the worker, which serves no API, on a listener of
// its own (WORKER_HEALTH_ADDR).
package health

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"
)

// Timeout bounds a readiness probe: a service that does not answer
// within it is reported as failing, so a probe answers in about this long
// even when a service is frozen.
const Timeout = 3 * time.Second

// Checks probe each backing service by its name (internal/bound's names).
type Checks map[string]func(context.Context) error

// Advisory wraps the check of a service the process reports but can serve
// without: the API records workflow starts for the relay and never waits
// on Temporal, so a Temporal outage should not take every API replica out
// of its load balancer. A failing advisory check makes the report
// "degraded", still ready.
func Advisory(check func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := check(ctx); err != nil {
			return advisoryError{err}
		}
		return nil
	}
}

type advisoryError struct{ error }

func (e advisoryError) Unwrap() error { return e.error }

// Report is the answer of /readyz: Status is "ready", "degraded" (an
// advisory check failed) or "unavailable".
type Report struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// Run probes every service at once within Timeout, so one that hangs does
// not eat the others' time; ready is whether all but the advisory ones
// answered.
func (cs Checks) Run(ctx context.Context) (report Report, ready bool) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	report = Report{Checks: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failed, degraded bool
	for name, check := range cs {
		wg.Go(func() {
			err := check(ctx)
			mu.Lock()
			defer mu.Unlock()
			report.Checks[name] = "ok"
			if err != nil {
				report.Checks[name] = err.Error()
				if errors.As(err, new(advisoryError)) {
					degraded = true
				} else {
					failed = true
				}
			}
		})
	}
	wg.Wait()
	switch {
	case failed:
		report.Status = "unavailable"
	case degraded:
		report.Status = "degraded"
	default:
		report.Status = "ready"
	}
	return report, !failed
}

// Handler serves /healthz and /readyz over cs.
func Handler(cs Checks) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		report, ready := cs.Run(r.Context())
		status := http.StatusOK
		if !ready {
			status = http.StatusServiceUnavailable
		}
		writeJSON(w, status, report)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// Postgres probes db's pool.
func Postgres(db *gorm.DB) func(context.Context) error {
	return func(ctx context.Context) error {
		sqlDB, err := db.DB()
		if err != nil {
			return err
		}
		return sqlDB.PingContext(ctx)
	}
}

// Temporal probes the frontend c is connected to.
func Temporal(c client.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}
}
