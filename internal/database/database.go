// Package database opens the PostgreSQL connection pool through GORM and
// writes rows in as few round trips as possible.
package database

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// slowStatement is the duration above which a statement is logged.
const slowStatement = 500 * time.Millisecond

// problemsOnly passes only failed and slow statements to GORM's slog
// logger, which renders every statement's SQL with its values before
// deciding to drop it: a tenth of a write's CPU time in the benchmark.
type problemsOnly struct{ logger.Interface }

func (l problemsOnly) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if err != nil || time.Since(begin) > slowStatement {
		l.Interface.Trace(ctx, begin, fc, err)
	}
}

// Open connects and verifies the connection. GORM logs only slow queries
// and errors; request logs carry the rest.
func Open(ctx context.Context, url string) (*gorm.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	// JIT compilation pays only for queries that run for seconds over
	// expressions evaluated many millions of times. The service's big
	// statements (a year's BDO sources, report rows) stay below that, yet
	// their estimated cost crosses the threshold: a summary over a million
	// flows spent about 280 ms compiling, a quarter of its time. A URL that
	// sets jit keeps its value.
	if _, set := cfg.RuntimeParams["jit"]; !set {
		cfg.RuntimeParams["jit"] = "off"
	}
	pool := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(func(_ context.Context, conn *pgx.Conn) error {
		encodeDirectly(conn.TypeMap())
		return nil
	}))
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: boundedPool{pool}}), &gorm.Config{
		Logger: problemsOnly{logger.NewSlogLogger(slog.Default(), logger.Config{
			SlowThreshold:             slowStatement,
			LogLevel:                  logger.Warn,
			IgnoreRecordNotFoundError: true,
		})},
		// PostgreSQL keeps microseconds: a timestamp GORM sets must read back
		// as it was answered when the row was written.
		NowFunc: func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
		// Handlers decide about transactions; single statements need none.
		SkipDefaultTransaction: true,
		TranslateError:         true,
	})
	if err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("database: open: %w", err)
	}
	if err := boundStatements(db); err != nil {
		_ = pool.Close()
		return nil, err
	}
	if err := traceSQL(db); err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("database: tracing: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(40)
	sqlDB.SetMaxIdleConns(40)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	if err := sqlDB.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("database: ping: %w", err)
	}
	return db, nil
}
