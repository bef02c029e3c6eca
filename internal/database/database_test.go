package database_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/internal/database"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// uuid.UUID and decimal.Decimal parameters reach PostgreSQL unchanged
// through the direct binary encoding, nil pointers as NULL.
func TestParametersEncodeDirectly(t *testing.T) {
	db := testenv.DB(t)
	id := uuid.New()
	for _, text := range []string{"24.5", "-0.001", "1000", "123456789012345678901234567890.123456789", "0"} {
		d := decimal.RequireFromString(text)
		var got struct {
			ID      string
			Amount  string
			Missing *string
		}
		var none *uuid.UUID
		require.NoError(t, db.Raw("SELECT ?::uuid::text AS id, ?::numeric::text AS amount, ?::uuid::text AS missing", id, d, none).Scan(&got).Error)
		assert.Equal(t, id.String(), got.ID)
		assert.True(t, decimal.RequireFromString(got.Amount).Equal(d), "%s came back as %s", text, got.Amount)
		assert.Nil(t, got.Missing)
	}
}

// The service's connections run without JIT compilation, unless their
// URL asks for it.
func TestConnectionsRunWithoutJIT(t *testing.T) {
	var jit string
	require.NoError(t, testenv.DB(t).Raw("SHOW jit").Scan(&jit).Error)
	assert.Equal(t, "off", jit)

	db, err := database.Open(t.Context(), testenv.DatabaseURL(t)+"&jit=on")
	require.NoError(t, err)
	sqlDB, err := db.DB()
	require.NoError(t, err)
	t.Cleanup(func() { sqlDB.Close() })
	require.NoError(t, db.Raw("SHOW jit").Scan(&jit).Error)
	assert.Equal(t, "on", jit, "the URL's setting is kept")
}

type note struct {
	ID        uuid.UUID `gorm:"type:uuid;primaryKey"`
	Body      string
	Stamp     string
	CreatedAt time.Time
}

// BeforeCreate is the hook Insert must run, as GORM's Create does.
func (n *note) BeforeCreate(*gorm.DB) error {
	if n.Stamp == "" {
		n.Stamp = "stamped"
	}
	return nil
}

// tagged has a database-side default, so GORM chooses its columns per row
// and Insert leaves its rendering to GORM.
type tagged struct {
	ID    uuid.UUID `gorm:"type:uuid;primaryKey"`
	Level int       `gorm:"default:7"`
}

func insert(t *testing.T, db *gorm.DB, row any) database.Statement {
	t.Helper()
	stmt, err := database.Insert(db, row)
	require.NoError(t, err)
	return stmt
}

// Rows inserted together in one statement are written as GORM's Create
// writes them, and a failing one takes the others with it.
func TestInsertTogether(t *testing.T) {
	db := testenv.DB(t)
	require.NoError(t, db.Exec("CREATE TABLE notes (id uuid PRIMARY KEY, body text NOT NULL, stamp text NOT NULL, created_at timestamptz NOT NULL)").Error)
	require.NoError(t, db.Exec("CREATE TABLE taggeds (id uuid PRIMARY KEY, level integer NOT NULL DEFAULT 7)").Error)

	viaGORM := &note{ID: uuid.New(), Body: "by gorm"}
	require.NoError(t, db.Create(viaGORM).Error)
	first, second := &note{ID: uuid.New(), Body: "one $1 dollar"}, &note{ID: uuid.New(), Body: "two", Stamp: "own"}
	defaulted := &tagged{ID: uuid.New()}
	rename := database.Statement{SQL: "UPDATE notes SET body = $1 WHERE body = $2", Vars: []any{"never", "absent"}}
	// The two notes, apart in the list, are merged into one multi-row insert.
	require.NoError(t, database.ExecTogether(t.Context(), db, insert(t, db, first), insert(t, db, defaulted), insert(t, db, second), rename))
	assert.False(t, first.CreatedAt.IsZero(), "the row is complete once rendered")

	var got []note
	require.NoError(t, db.Order("body").Find(&got).Error)
	require.Len(t, got, 3)
	assert.Equal(t, "by gorm", got[0].Body)
	assert.Equal(t, "one $1 dollar", got[1].Body, "values travel as parameters, so a '$' in one is kept")
	assert.Equal(t, []string{"stamped", "stamped", "own"}, []string{got[0].Stamp, got[1].Stamp, got[2].Stamp})
	assert.WithinDuration(t, first.CreatedAt, got[1].CreatedAt, time.Millisecond)
	var level int
	require.NoError(t, db.Raw("SELECT level FROM taggeds WHERE id = ?", defaulted.ID).Scan(&level).Error)
	assert.Equal(t, 7, level, "GORM leaves a zero field with a default to the database")

	dup := insert(t, db, &note{ID: first.ID, Body: "again"})
	assert.Error(t, database.ExecTogether(t.Context(), db, insert(t, db, &note{ID: uuid.New(), Body: "three"}), dup))
	var n int64
	require.NoError(t, db.Model(&note{}).Count(&n).Error)
	assert.Equal(t, int64(3), n)
}

// An Array parameter reaches PostgreSQL as one array through GORM, which
// expands a plain slice into a list.
func TestArrayParameters(t *testing.T) {
	db := testenv.DB(t)
	ids := []uuid.UUID{uuid.New(), uuid.New()}
	amounts := []decimal.Decimal{decimal.RequireFromString("2.5"), decimal.RequireFromString("-1")}
	var got struct {
		Second string
		Sum    string
	}
	require.NoError(t, db.Raw("SELECT (?::uuid[])[2]::text AS second, (SELECT sum(a) FROM unnest(?::numeric[]) AS a)::text AS sum",
		database.Array(ids), database.Array(amounts)).Scan(&got).Error)
	assert.Equal(t, ids[1].String(), got.Second)
	assert.Equal(t, "1.5", got.Sum)
}
