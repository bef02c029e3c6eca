package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/gin-gonic/gin"

	"ppwr/api"
	"ppwr/api/kit"
	"ppwr/internal/config"
	"ppwr/internal/credcache"
	"ppwr/internal/testenv"
)

// BenchmarkCreate sends POST /catalog-items through the API's engine and
// through the same-work handler (durable.go) in this process, without
// HTTP or a load generator, 8 per core at once against the test
// database, and reports the CPU time of this process and of PostgreSQL per
// create: with -benchmem and -cpuprofile it shows what the API spends per
// create beyond the work itself.
func BenchmarkCreate(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	db, dbURL, drop, err := testenv.CreateDatabase("ppwr_bench_")
	if err != nil {
		b.Skip("no test database:", err)
	}
	b.Cleanup(drop)
	cfg, err := config.FromEnv()
	if err != nil {
		b.Fatal(err)
	}
	cfg.RateLimitPerMinute, cfg.RecommendationRateLimitPerMinute = 1_000_000_000, 1_000_000_000
	creds := credcache.New()
	ctx, stop := context.WithCancel(context.Background())
	b.Cleanup(stop)
	go creds.Listen(ctx, dbURL)
	engine, err := api.NewEngine(api.Deps{Deps: kit.Deps{Config: cfg, DB: db}, Credentials: creds})
	if err != nil {
		b.Fatal(err)
	}
	orgID, tokens, err := seedClients(db, 1)
	if err != nil {
		b.Fatal(err)
	}
	s := itemCreateScenario(db, orgID, &tokenRing{tokens: tokens})
	bare := gin.New()
	bare.POST(s.bare[0].path, s.bare[0].handler)
	run := func(b *testing.B, h http.Handler, request func(string, int) (*http.Request, error)) {
		before := cpuNow(db)
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r, err := request("", 0)
				if err != nil {
					b.Error(err)
					return
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusCreated {
					b.Error(w.Code, w.Body.String())
					return
				}
			}
		})
		used := cpuNow(db).sub(before)
		b.ReportMetric(float64(used.process.Microseconds())/float64(b.N), "process-µs/op")
		b.ReportMetric(float64(used.database.Microseconds())/float64(b.N), "postgres-µs/op")
	}
	b.Run("ppwr", func(b *testing.B) { run(b, engine, s.fullRequest) })
	b.Run("same-work", func(b *testing.B) { run(b, bare, s.bare[0].request) })
}
