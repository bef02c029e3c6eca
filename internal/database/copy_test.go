package database_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/internal/database"
	"ppwr/internal/telemetry"
	"ppwr/internal/testenv"
)

// COPY writes every row, JSON given as text included, or none of them.
func TestCopyWritesAllRowsOrNone(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	require.NoError(t, db.Exec(`CREATE TABLE copied (id uuid PRIMARY KEY, n integer NOT NULL, doc jsonb, note text)`).Error)
	a, b := uuid.New(), uuid.New()
	columns := []string{"id", "n", "doc", "note"}
	require.NoError(t, database.Copy(ctx, db, "copied", columns, [][]any{{a, 1, `{"k":"ą"}`, nil}, {b, 2, nil, "x"}}))
	var got []struct {
		ID   uuid.UUID
		N    int
		Doc  *string
		Note *string
	}
	require.NoError(t, db.Raw(`SELECT id, n, doc->>'k' AS doc, note FROM copied ORDER BY n`).Scan(&got).Error)
	require.Len(t, got, 2)
	assert.Equal(t, a, got[0].ID)
	assert.Equal(t, "ą", *got[0].Doc)
	assert.Nil(t, got[0].Note)
	assert.Nil(t, got[1].Doc)

	err := database.Copy(ctx, db, "copied", columns, [][]any{{uuid.New(), 3, nil, nil}, {a, 4, nil, nil}})
	require.Error(t, err, "a duplicate key")
	var n int64
	require.NoError(t, db.Raw(`SELECT count(*) FROM copied`).Scan(&n).Error)
	assert.Equal(t, int64(2), n, "the batch with a duplicate wrote nothing")
}

type shelf struct {
	ID   uuid.UUID `gorm:"type:uuid;primaryKey"`
	Name string
}

type book struct {
	ID      uuid.UUID `gorm:"type:uuid;primaryKey"`
	ShelfID uuid.UUID `gorm:"type:uuid"`
	Title   string
	Price   decimal.Decimal
	Tags    datatypes.JSON `gorm:"type:jsonb"`
	Note    *string
}

// statementNames runs fn with a context whose trace records, and answers
// the names of the statement spans fn's SQL made.
func statementNames(t *testing.T, fn func(ctx context.Context)) []string {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	provider := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	telemetry.InstallTracer(provider)
	t.Cleanup(func() { telemetry.InstallTracer(sdktrace.NewTracerProvider()) })
	ctx, root := provider.Tracer("test").Start(context.Background(), "unit")
	fn(ctx)
	root.End()
	var names []string
	for _, s := range spans.GetSpans() {
		if s.Name != "unit" {
			names = append(names, s.Name)
		}
	}
	return names
}

// In a transaction, many rows into one table are written by COPY in their
// place among the statements: a shelf inserted before its books, which
// reference it, and an update after them that sees them. Values of every
// kind arrive as they were, NULL included; on the pool the same rows are
// one statement, as without a transaction there is no connection of its
// own to copy on.
func TestExecTogetherCopiesManyRowsInATransaction(t *testing.T) {
	db := testenv.DB(t)
	require.NoError(t, db.Exec(`CREATE TABLE shelves (id uuid PRIMARY KEY, name text NOT NULL)`).Error)
	require.NoError(t, db.Exec(`CREATE TABLE books (id uuid PRIMARY KEY, shelf_id uuid NOT NULL REFERENCES shelves (id),
		title text NOT NULL, price numeric NOT NULL, tags jsonb NOT NULL, note text)`).Error)
	write := func(ctx context.Context, tx *gorm.DB, name string, n int) uuid.UUID {
		s := &shelf{ID: uuid.New(), Name: name}
		stmts := []database.Statement{insert(t, db, s)}
		for i := range n {
			var note *string
			if i%2 == 0 {
				note = new("ą" + strconv.Itoa(i))
			}
			stmts = append(stmts, insert(t, db, &book{ID: uuid.New(), ShelfID: s.ID, Title: "Book " + strconv.Itoa(i),
				Price: decimal.RequireFromString("12.34"), Tags: datatypes.JSON(`["new", "ł"]`), Note: note}))
		}
		stmts = append(stmts, database.Statement{SQL: "UPDATE shelves SET name = name || ' (' || (SELECT count(*) FROM books WHERE shelf_id = $1) || ')' WHERE id = $1",
			Vars: []any{s.ID}})
		require.NoError(t, database.ExecTogether(ctx, tx, stmts...))
		return s.ID
	}

	var copied uuid.UUID
	names := statementNames(t, func(ctx context.Context) {
		tx := db.WithContext(ctx).Begin()
		copied = write(ctx, tx, "copied", 150)
		require.NoError(t, tx.Commit().Error)
	})
	assert.Equal(t, []string{"WITH shelves", "COPY books", "WITH"}, names)
	var s shelf
	require.NoError(t, db.Take(&s, "id = ?", copied).Error)
	assert.Equal(t, "copied (150)", s.Name, "the update after the copy sees the copied rows")
	var books []book
	require.NoError(t, db.Where("shelf_id = ?", copied).Order("title").Find(&books).Error)
	require.Len(t, books, 150)
	assert.Equal(t, "Book 0", books[0].Title)
	assert.True(t, decimal.RequireFromString("12.34").Equal(books[0].Price))
	assert.JSONEq(t, `["new", "ł"]`, string(books[0].Tags))
	assert.Equal(t, new("ą0"), books[0].Note)
	assert.Nil(t, books[1].Note, "Book 1 has no note")

	names = statementNames(t, func(ctx context.Context) { write(ctx, db.WithContext(ctx), "together", 150) })
	assert.Equal(t, []string{"WITH shelves,books"}, names)
}

// A copy that fails fails the transaction: nothing written before it in
// the transaction stays.
func TestAFailedCopyWritesNothing(t *testing.T) {
	db := testenv.DB(t)
	require.NoError(t, db.Exec(`CREATE TABLE tallies (id uuid PRIMARY KEY, n integer NOT NULL)`).Error)
	type tally struct {
		ID uuid.UUID `gorm:"type:uuid;primaryKey"`
		N  int
	}
	taken := uuid.New()
	require.NoError(t, db.Create(&tally{ID: taken, N: -1}).Error)
	tx := db.Begin()
	defer tx.Rollback()
	require.NoError(t, tx.Exec("INSERT INTO tallies VALUES (?, 0)", uuid.New()).Error)
	stmts := make([]database.Statement, 200)
	for i := range stmts {
		stmts[i] = insert(t, db, &tally{ID: uuid.New(), N: i})
	}
	stmts[150] = insert(t, db, &tally{ID: taken, N: 150})
	require.Error(t, database.ExecTogether(t.Context(), tx, stmts...), "a duplicate key")
	tx.Rollback()
	var n int64
	require.NoError(t, db.Raw("SELECT count(*) FROM tallies").Scan(&n).Error)
	assert.Equal(t, int64(1), n)
}

// A transaction holds a connection of its own (so that it can copy); one
// abandoned when its context ends gives it back to the pool, as
// database/sql does for a transaction it began on the pool.
func TestATransactionWhoseContextEndsGivesItsConnectionBack(t *testing.T) {
	db, err := database.Open(t.Context(), testenv.DatabaseURL(t))
	require.NoError(t, err)
	sqlDB, err := db.DB()
	require.NoError(t, err)
	t.Cleanup(func() { _ = sqlDB.Close() })
	sqlDB.SetMaxOpenConns(1)
	for range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		tx := db.WithContext(ctx).Begin()
		require.NoError(t, tx.Error)
		require.NoError(t, tx.Exec("SELECT 1").Error)
		cancel()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	require.NoError(t, db.WithContext(ctx).Exec("SELECT 1").Error, "the pool's one connection is free again")
}
