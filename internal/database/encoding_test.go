package database

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values, pointers and arrays of them are encoded by the direct plans,
// never through driver.Valuer's text, and to the same bytes.
func TestDirectPlansForValuesAndPointers(t *testing.T) {
	m := pgtype.NewMap()
	encodeDirectly(m)
	id, amount := uuid.New(), decimal.RequireFromString("24.5")
	for _, c := range []struct {
		oid          uint32
		value, deref any
	}{
		{pgtype.UUIDOID, id, &id},
		{pgtype.NumericOID, amount, &amount},
		{pgtype.UUIDArrayOID, Array([]uuid.UUID{id}), Array([]uuid.UUID{id})},
		{pgtype.NumericArrayOID, Array([]decimal.Decimal{amount}), Array([]decimal.Decimal{amount})},
	} {
		want, err := m.Encode(c.oid, pgtype.BinaryFormatCode, c.value, nil)
		require.NoError(t, err)
		for _, v := range []any{c.value, c.deref} {
			plan := m.PlanEncode(c.oid, pgtype.BinaryFormatCode, v)
			assert.NotContains(t, fmt.Sprintf("%T", plan), "DriverValuer", "%T is encoded through its Valuer", v)
			got, err := m.Encode(c.oid, pgtype.BinaryFormatCode, v, nil)
			require.NoError(t, err)
			assert.Equal(t, want, got, "%T", v)
		}
	}
}
