package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

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
	engine, db, orgID, ring := inProcessAPI(b)
	benchAgainstBare(b, engine, db, itemCreateScenario(db, orgID, ring), http.StatusCreated)
}

// BenchmarkRead is BenchmarkCreate for GET /catalog-items/{id} and its
// bare handler.
func BenchmarkRead(b *testing.B) {
	engine, db, orgID, ring := inProcessAPI(b)
	items, err := seedItems(db, orgID, 64)
	if err != nil {
		b.Fatal(err)
	}
	benchAgainstBare(b, engine, db, itemReadScenario(db, orgID, ring, items), http.StatusOK)
}

// inProcessAPI is the API's engine as ppwr serve builds it, on a database of
// its own, with one user and key to send requests as.
func inProcessAPI(b *testing.B) (http.Handler, *gorm.DB, uuid.UUID, *tokenRing) {
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
	return engine, db, orgID, &tokenRing{tokens: tokens}
}

// benchAgainstBare runs s through engine and through its first bare
// handler, each answering want.
func benchAgainstBare(b *testing.B, engine http.Handler, db *gorm.DB, s scenario, want int) {
	bare := gin.New()
	method := s.bare[0].method
	if method == "" {
		method = http.MethodGet
	}
	bare.Handle(method, s.bare[0].path, s.bare[0].handler)
	run := func(b *testing.B, h http.Handler, request func(string, int) (*http.Request, error)) {
		before := cpuNow(db)
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				r, err := request("", i)
				if err != nil {
					b.Error(err)
					return
				}
				// net/http serves every request on a context that ends
				// with its connection, and pgx and database/sql watch
				// such a context during a query: without one the bare
				// handler would skip that work, which it does over HTTP.
				ctx, cancel := context.WithCancel(r.Context())
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r.WithContext(ctx))
				cancel()
				if w.Code != want {
					b.Error(w.Code, w.Body.String())
					return
				}
			}
		})
		reportCPU(b, cpuNow(db).sub(before), b.N, "op")
	}
	b.Run("ppwr", func(b *testing.B) { run(b, engine, s.fullRequest) })
	b.Run("bare", func(b *testing.B) { run(b, bare, s.bare[0].request) })
}

// reportCPU reports the CPU time used of this process and of PostgreSQL
// per unit, over n of them.
func reportCPU(b *testing.B, used cpuUse, n int, unit string) {
	b.ReportMetric(float64(used.process.Microseconds())/float64(n), "process-µs/"+unit)
	b.ReportMetric(float64(used.database.Microseconds())/float64(n), "postgres-µs/"+unit)
}
