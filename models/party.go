package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"
)

// Party is a business partner of the organization: a supplier or another
// role in the packaging chain. Parties are created and read only.
type Party struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Name           string
	Roles          pq.StringArray `gorm:"type:text[]"`
	CountryCode    string
	TaxID          string `gorm:"column:tax_id"`
	Email          string
	Address        string
	CreatedAt      time.Time
}

// PartyRoles are the roles a party may hold, in the order documented.
var PartyRoles = []string{"supplier", "customer", "manufacturer", "importer", "recycler", "other"}

// TableName names the parties table.
func (Party) TableName() string { return "parties" }

// Parties is the organization's parties, for listing.
func Parties(ctx context.Context, db *gorm.DB, orgID uuid.UUID) *gorm.DB {
	return db.WithContext(ctx).Model(&Party{}).Scopes(InOrganization(orgID))
}

// FindParty reads one party of the organization (ErrNotFound otherwise).
func FindParty(ctx context.Context, db *gorm.DB, orgID, id uuid.UUID) (*Party, error) {
	var p Party
	err := db.WithContext(ctx).Scopes(InOrganization(orgID)).Where("id = ?", id).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// CreateParty inserts p with a fresh id.
func CreateParty(ctx context.Context, tx *gorm.DB, p *Party) error {
	p.ID, p.CreatedAt = NewID(), structureNow()
	return tx.WithContext(ctx).Create(p).Error
}
