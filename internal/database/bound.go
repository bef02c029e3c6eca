package database

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"gorm.io/gorm"

	"ppwr/internal/bound"
)

// timeoutKey carries a context's bound on each wait on PostgreSQL.
type timeoutKey struct{}

// WithTimeout bounds every wait on PostgreSQL made with ctx through a
// database of Open (a statement, a begin, a commit) to limit: a server
// that does not answer fails the call with a *bound.UnavailableError.
// The API bounds its requests so (DATABASE_TIMEOUT); the worker's
// activities are bounded by Temporal's timeouts instead, so a long batch
// statement of theirs is not cut.
func WithTimeout(ctx context.Context, limit time.Duration) context.Context {
	return context.WithValue(ctx, timeoutKey{}, limit)
}

// watch starts a watchdog on PostgreSQL when ctx is bounded.
func watch(ctx context.Context) (context.Context, *bound.Watchdog) {
	if limit, _ := ctx.Value(timeoutKey{}).(time.Duration); limit > 0 {
		return bound.Watch(ctx, bound.Postgres, limit)
	}
	return ctx, nil
}

// watched is a statement's watchdog and the context it replaced.
type watched struct {
	w      *bound.Watchdog
	parent context.Context
}

// watchOf keys a statement's watchdog in its Settings, as spanOf keys
// its span: GORM's InstanceSet and InstanceGet format the statement's
// address into a string key on every call, which cost each statement
// three allocations; a key holding only the pointer costs none.
type watchOf struct{ *gorm.Statement }

// boundStatements bounds each statement GORM runs. A row query (Row,
// Rows, Scan) hands its rows to the caller, who reads them after the
// callback: its watchdog only pauses, and its context ends with the
// caller's.
func boundStatements(db *gorm.DB) error {
	cb := db.Callback()
	end := func(rows bool) func(*gorm.DB) { return func(tx *gorm.DB) { endWatch(tx, rows) } }
	return errors.Join(
		cb.Create().Before("gorm:create").Register("ppwr:bound", startWatch),
		cb.Create().After("gorm:create").Register("ppwr:bound_end", end(false)),
		cb.Query().Before("gorm:query").Register("ppwr:bound", startWatch),
		cb.Query().After("gorm:query").Register("ppwr:bound_end", end(false)),
		cb.Update().Before("gorm:update").Register("ppwr:bound", startWatch),
		cb.Update().After("gorm:update").Register("ppwr:bound_end", end(false)),
		cb.Delete().Before("gorm:delete").Register("ppwr:bound", startWatch),
		cb.Delete().After("gorm:delete").Register("ppwr:bound_end", end(false)),
		cb.Raw().Before("gorm:raw").Register("ppwr:bound", startWatch),
		cb.Raw().After("gorm:raw").Register("ppwr:bound_end", end(false)),
		cb.Row().Before("gorm:row").Register("ppwr:bound", startWatch),
		cb.Row().After("gorm:row").Register("ppwr:bound_end", end(true)),
	)
}

func startWatch(tx *gorm.DB) {
	ctx, w := watch(tx.Statement.Context)
	if w != nil {
		tx.Statement.Settings.Store(watchOf{tx.Statement}, watched{w: w, parent: tx.Statement.Context})
		tx.Statement.Context = ctx
	}
}

func endWatch(tx *gorm.DB, rows bool) {
	v, ok := tx.Statement.Settings.Load(watchOf{tx.Statement})
	if !ok {
		return
	}
	s := v.(watched)
	tx.Error = s.w.Err(tx.Error)
	if rows {
		s.w.Pause()
		return
	}
	s.w.Stop()
	tx.Statement.Context = s.parent
}

// boundedPool is the pool whose transactions are bounded: their begin and
// commit wait on the server like a statement does. A transaction lives on
// the context of its begin (database/sql rolls it back when that context
// ends), so its watchdog is paused between those calls, not stopped.
type boundedPool struct{ *sql.DB }

// GetDBConn gives GORM's DB() the pool.
func (p boundedPool) GetDBConn() (*sql.DB, error) { return p.DB, nil }

// BeginTx begins a transaction within the context's bound, on a
// connection of its own (sql.Conn) rather than one database/sql hides, so
// that the transaction can also write by COPY (ExecTogether), which
// database/sql does not offer.
func (p boundedPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	ctx, w := watch(ctx)
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		w.Stop()
		return nil, w.Err(err)
	}
	tx, err := conn.BeginTx(ctx, opts)
	if err != nil {
		_ = conn.Close()
		w.Stop()
		return nil, w.Err(err)
	}
	w.Pause()
	// database/sql rolls back a transaction whose context ends, and gives
	// its connection back only where the driver cannot reset a session; a
	// sql.Conn goes back when closed, so it is closed then too.
	release := context.AfterFunc(ctx, func() { _ = conn.Close() })
	return &boundedTx{Tx: tx, conn: conn, release: release, w: w}, nil
}

type boundedTx struct {
	*sql.Tx
	conn    *sql.Conn
	release func() bool
	w       *bound.Watchdog
}

func (t *boundedTx) Commit() error { return t.end(t.Tx.Commit) }

func (t *boundedTx) Rollback() error { return t.end(t.Tx.Rollback) }

func (t *boundedTx) end(fn func() error) error {
	t.w.Wait()
	defer t.w.Stop()
	err := fn()
	t.release()
	_ = t.conn.Close()
	return t.w.Err(err)
}
