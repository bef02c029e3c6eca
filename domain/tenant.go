package domain

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/internal/input"
)

// NewID returns a time-ordered UUIDv7, so that ordering by id is ordering by
// creation and keyset pagination needs no second column.
func NewID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// InOrganization scopes a query to one tenant.
func InOrganization(orgID uuid.UUID) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return db.Where("organization_id = ?", orgID) }
}

// Tenant is every query on a tenant table: db scoped to the organization.
// Reads of child records go through it too, so no path can forget the
// tenant.
func Tenant(ctx context.Context, db *gorm.DB, orgID uuid.UUID) *gorm.DB {
	// The scope is applied here rather than through Scopes, which keeps it
	// until the statement runs and then clones the statement again to
	// apply it: a dozen allocations of every tenant query.
	return InOrganization(orgID)(db.WithContext(ctx))
}

// Find reads the organization's record id of type T (ErrNotFound
// otherwise).
func Find[T any](ctx context.Context, db *gorm.DB, orgID, id uuid.UUID) (*T, error) {
	// One condition where Tenant and a second Where would build two: this
	// is the API's most frequent read.
	return Take[T](db.WithContext(ctx).Where("organization_id = ? AND id = ?", orgID, id))
}

// FindOfItem reads the organization's record id of type T that belongs
// to the catalogue item itemID (ErrNotFound otherwise).
func FindOfItem[T any](ctx context.Context, db *gorm.DB, orgID, itemID, id uuid.UUID) (*T, error) {
	return Take[T](Tenant(ctx, db, orgID).Where("catalog_item_id = ? AND id = ?", itemID, id))
}

// LockFor reads the organization's record id of type T with a row lock
// of the given strength.
func LockFor[T any](ctx context.Context, tx *gorm.DB, orgID, id uuid.UUID, strength string) (*T, error) {
	return Take[T](Tenant(ctx, tx, orgID).Clauses(clause.Locking{Strength: strength}).Where("id = ?", id))
}

// OldestFirst reads the records q selects, oldest first (ids are
// UUIDv7); none is an empty list.
func OldestFirst[T any](q *gorm.DB) ([]T, error) {
	rows := []T{}
	// Qualified: q may join a table with an id of its own.
	byID := clause.OrderByColumn{Column: clause.Column{Table: clause.CurrentTable, Name: "id"}}
	if err := q.Order(byID).Find(&rows).Error; err != nil {
		return nil, err
	}
	return rows, nil
}

func Take[T any](q *gorm.DB) (*T, error) {
	var row T
	if err := q.Take(&row).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &row, nil
}

// Timestamps are the creation and modification times of mutable records.
type Timestamps struct {
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Now is the current time at the database's precision, so a created
// record answers the same timestamps as its later reads.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func NonNilIDs(s []uuid.UUID) []uuid.UUID {
	if s == nil {
		return []uuid.UUID{}
	}
	return s
}

// Optional is a stored optional value: nil unless set.
func Optional[T any](v input.Opt[T]) *T {
	if !v.Set() {
		return nil
	}
	return &v.Value
}

// Today is the current UTC date at midnight, the latest event date.
func Today() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }
