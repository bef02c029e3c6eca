package database

import (
	"database/sql/driver"
	"reflect"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
)

// valuerByPointer is a Valuer only through its pointer, so pgx calls Value
// on a nil one, which says what NULL means for it.
type valuerByPointer struct{}

func (*valuerByPointer) Value() (driver.Value, error) { return "none", nil }

// A nil pointer is rendered as an untyped nil only where pgx sends it as
// NULL without calling it.
func TestNilIsNullWhereNoMethodIsCalled(t *testing.T) {
	assert.True(t, nilIsNull(reflect.TypeFor[*decimal.Decimal]()), "decimal.Decimal is a Valuer by value")
	assert.True(t, nilIsNull(reflect.TypeFor[*uuid.UUID]()))
	assert.True(t, nilIsNull(reflect.TypeFor[*string]()))
	assert.False(t, nilIsNull(reflect.TypeFor[*valuerByPointer]()), "pgx calls its Value")
	assert.False(t, nilIsNull(reflect.TypeFor[string]()))
}
