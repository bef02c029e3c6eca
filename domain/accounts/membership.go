package accounts

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/internal/access"
)

// Membership ties a user to an organization with a role.
type Membership struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	UserID         uuid.UUID `gorm:"type:uuid"`
	Role           access.Role
	Permissions    pq.StringArray `gorm:"type:text[]"`
	Active         bool
	domain.Timestamps
}

// UpsertMembership adds a user to an organization or, when the membership
// exists, replaces its role, permissions and active flag.
func UpsertMembership(ctx context.Context, db *gorm.DB, m *Membership) error {
	if m.ID == uuid.Nil {
		m.ID = domain.NewID()
	}
	if m.Permissions == nil {
		m.Permissions = pq.StringArray{}
	}
	err := db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "organization_id"}, {Name: "user_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"role", "permissions", "active", "updated_at"}),
	}).Create(m).Error
	if err != nil {
		return fmt.Errorf("upsert membership: %w", err)
	}
	// On conflict the row keeps its original id; read it back.
	return db.WithContext(ctx).Where("organization_id = ? AND user_id = ?", m.OrganizationID, m.UserID).First(m).Error
}
