// Package models holds the GORM models, one file per aggregate, and the
// queries that belong to them. Schema changes live in ../migrations; GORM
// never migrates.
package models

import (
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// NewID returns a time-ordered UUIDv7, so that ordering by id is ordering by
// creation and keyset pagination needs no second column.
func NewID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// InOrganization scopes a query to one tenant. Every query on a tenant table
// goes through it, so a handler cannot forget the organization.
func InOrganization(orgID uuid.UUID) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return db.Where("organization_id = ?", orgID) }
}

// Timestamps are the creation and modification times of mutable records.
type Timestamps struct {
	CreatedAt time.Time
	UpdatedAt time.Time
}
