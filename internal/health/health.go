// Package health answers the liveness and readiness probes of a process:
// /healthz says the process is up, /readyz probes each backing service it
// depends on and names the ones that do not answer. The API serves them
// on its own engine; the worker, which serves no API, on a listener of
// its own (WORKER_HEALTH_ADDR).
package health

import (
	"context"
	"encoding/json"
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

// Report is the answer of /readyz.
type Report struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// Run probes every service at once within Timeout, so one that hangs does
// not eat the others' time; ready is whether all answered.
func (cs Checks) Run(ctx context.Context) (report Report, ready bool) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	report = Report{Status: "ready", Checks: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	ready = true
	for name, check := range cs {
		wg.Go(func() {
			result := "ok"
			if err := check(ctx); err != nil {
				result = err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			report.Checks[name] = result
			if result != "ok" {
				ready, report.Status = false, "unavailable"
			}
		})
	}
	wg.Wait()
	return report, ready
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
