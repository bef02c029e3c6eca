package models

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Family groups catalogue items that share a design (for example one box
// in several sizes).
type Family struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Name           string
	Description    string
	Revision       int `gorm:"default:1"`
	Timestamps
}

// TableName names the families table.
func (Family) TableName() string { return "families" }

// Families is the organization's families, for listing.
func Families(ctx context.Context, db *gorm.DB, orgID uuid.UUID) *gorm.DB {
	return db.WithContext(ctx).Model(&Family{}).Scopes(InOrganization(orgID))
}

// FindFamily reads one family of the organization (ErrNotFound otherwise).
func FindFamily(ctx context.Context, db *gorm.DB, orgID, id uuid.UUID) (*Family, error) {
	var f Family
	err := db.WithContext(ctx).Scopes(InOrganization(orgID)).Where("id = ?", id).Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// CreateFamily inserts f with a fresh id and revision 1.
func CreateFamily(ctx context.Context, tx *gorm.DB, f *Family) error {
	now := structureNow()
	f.ID, f.Revision, f.CreatedAt, f.UpdatedAt = NewID(), 1, now, now
	return tx.WithContext(ctx).Create(f).Error
}
