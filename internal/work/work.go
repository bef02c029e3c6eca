// Package work is the unit of work: one transaction and everything that
// commits with it. A write, whether an API request, an operator's command
// or a workflow's activity, runs its reads and writes on a Unit, defers the
// rows it need not read back (events, data versions, workflow starts, the
// audit entry), and commits them all in one final statement. So a change,
// its audit entry, its outbox events and its workflow starts commit
// together or not at all. A write to rows that many units wait for (a
// stock balance) runs as a last step after that statement, so its locks
// are held only until the commit that follows.
package work

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/internal/database"
)

// Actor kinds, as the audit log names them.
const (
	ActorAPIKey   = "api_key"
	ActorOperator = "operator"
	ActorSystem   = "system"
)

// ActorKinds are every actor kind: the audit log's published enumeration
// of actor.type is this list, so a kind added here is published with it.
var ActorKinds = []string{ActorAPIKey, ActorOperator, ActorSystem}

// Actor is who a unit of work acts for: an API key (with its user), an
// operator of the admin CLI, or the system, such as a workflow acting for
// a record (an import's apply among them).
type Actor struct {
	Kind           string
	OrganizationID uuid.UUID
	UserID         *uuid.UUID
	APIKeyID       *uuid.UUID
	// Reference ties the audit entry to its trigger: a request id, or the
	// workflow id of an activity.
	Reference string
	// Quiet units emit no per-record events: the system applying an
	// import's rows, whose rows record what each changed and whose import
	// announces itself (import.completed).
	Quiet bool
}

// Record names the record a write changed, for its audit entry.
type Record struct {
	Type string
	ID   uuid.UUID
}

// Unit is one unit of work. It is not safe for concurrent use.
type Unit struct {
	ctx context.Context
	// pool is the pool; bound is it bound to ctx, made on first use: a
	// unit that only defers rows (a catalogue create) never needs it.
	pool, bound *gorm.DB
	tx          *gorm.DB
	actor       Actor
	deferred    []database.Statement
	last        []func(tx *gorm.DB) error
	record      *Record
}

// New starts a unit of work for actor on db; no transaction is begun
// until one is needed.
func New(ctx context.Context, db *gorm.DB, actor Actor) *Unit {
	return &Unit{ctx: ctx, pool: db, actor: actor}
}

// Context is the unit's context.
func (u *Unit) Context() context.Context { return u.ctx }

// Actor is who the unit acts for.
func (u *Unit) Actor() Actor { return u.actor }

// Organization is the tenant the unit works in.
func (u *Unit) Organization() uuid.UUID { return u.actor.OrganizationID }

// Tx is the unit's transaction, begun on first use: reads that decide a
// write (and take locks) and writes that must be read back run on it.
func (u *Unit) Tx() *gorm.DB {
	if u.tx == nil {
		u.tx = u.db().Begin()
	}
	return u.tx
}

// Read is the transaction once begun, else the pool: for reads that take
// no lock and need not see the unit's own writes.
func (u *Unit) Read() *gorm.DB {
	if u.tx != nil {
		return u.tx
	}
	return u.db()
}

// db is the pool bound to the unit's context.
func (u *Unit) db() *gorm.DB {
	if u.bound == nil {
		u.bound = u.pool.WithContext(u.ctx)
	}
	return u.bound
}

// Defer renders the insert of row at once, so the row is complete (ids,
// timestamps) for the caller, and writes it at Commit in one statement
// with the unit's other deferred rows. Deferred rows cannot be read back
// before Commit.
func (u *Unit) Defer(row any) error {
	stmt, err := database.Insert(u.pool, row)
	if err != nil {
		return err
	}
	u.deferred = append(u.deferred, stmt)
	return nil
}

// DeferExec adds a write in SQL with positional parameters ($1, $2, ...)
// to the statement Commit runs; like a deferred row, it cannot be read
// back before Commit.
func (u *Unit) DeferExec(sql string, vars ...any) {
	u.deferred = append(u.deferred, database.Statement{SQL: sql, Vars: vars})
}

// Touch names the record the unit changed; the last one named is the
// audit entry's.
func (u *Unit) Touch(recordType string, id uuid.UUID) { u.record = &Record{Type: recordType, ID: id} }

// Touched is the record the unit changed, if it named one.
func (u *Unit) Touched() *Record { return u.record }

// Last adds a step Commit runs in the transaction after writing the
// deferred rows, just before committing: a write to rows that many units
// wait for (a stock balance) holds their locks for that step and the
// commit only, not for the rest of the unit's work. An error from a step
// rolls the unit back and is Commit's.
func (u *Unit) Last(step func(tx *gorm.DB) error) { u.last = append(u.last, step) }

// Commit writes the deferred rows and rows in one statement (in a
// transaction, a hundred rows or more into one table by COPY beside it:
// database.ExecTogether), runs the last steps, and commits. A unit that
// needed no transaction costs this one round trip. On error nothing is
// written.
func (u *Unit) Commit(rows ...any) error {
	for _, row := range rows {
		if err := u.Defer(row); err != nil {
			return err
		}
	}
	conn := u.pool
	if u.tx != nil || len(u.last) > 0 {
		conn = u.Tx()
	}
	if err := database.ExecTogether(u.ctx, conn, u.deferred...); err != nil {
		u.Rollback()
		return err
	}
	for _, step := range u.last {
		if err := step(conn); err != nil {
			u.Rollback()
			return err
		}
	}
	u.deferred, u.last = nil, nil
	if u.tx == nil {
		return nil
	}
	err := u.tx.Commit().Error
	u.tx = nil
	return err
}

// Rollback abandons the unit: its transaction and its deferred rows.
func (u *Unit) Rollback() {
	if u.tx != nil {
		u.tx.Rollback()
		u.tx = nil
	}
	u.deferred, u.last = nil, nil
}
