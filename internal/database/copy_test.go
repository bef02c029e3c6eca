package database_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/database"
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
