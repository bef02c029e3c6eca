package database_test

import (
	"testing"

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

type note struct {
	ID   uuid.UUID `gorm:"type:uuid;primaryKey"`
	Body string
}

// Writes run together in one statement see one snapshot and all commit.
func TestExecTogether(t *testing.T) {
	db := testenv.DB(t)
	require.NoError(t, db.Exec("CREATE TABLE notes (id uuid PRIMARY KEY, body text NOT NULL)").Error)
	first, second := &note{ID: uuid.New(), Body: "one $1 dollar"}, &note{ID: uuid.New(), Body: "two"}
	var stmts []database.Statement
	for _, w := range []database.Write{database.Create(first), database.Create(second), func(tx *gorm.DB) *gorm.DB {
		return tx.Model(&note{}).Where("body = ?", "absent").Update("body", "never")
	}} {
		stmt, err := database.Render(db, w)
		require.NoError(t, err)
		stmts = append(stmts, stmt)
	}
	require.NoError(t, database.ExecTogether(t.Context(), db, stmts...))
	var bodies []string
	require.NoError(t, db.Model(&note{}).Order("body").Pluck("body", &bodies).Error)
	assert.Equal(t, []string{"one $1 dollar", "two"}, bodies, "values travel as parameters, so a '$' in one is kept")

	dup, err := database.Render(db, database.Create(&note{ID: first.ID, Body: "again"}))
	require.NoError(t, err)
	third, err := database.Render(db, database.Create(&note{ID: uuid.New(), Body: "three"}))
	require.NoError(t, err)
	assert.Error(t, database.ExecTogether(t.Context(), db, third, dup))
	var n int64
	require.NoError(t, db.Model(&note{}).Count(&n).Error)
	assert.Equal(t, int64(2), n, "a failing write takes the others with it")
}
