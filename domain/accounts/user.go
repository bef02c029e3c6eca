package accounts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
)

// User is a person who holds API keys; e-mail verification and MFA are
// managed in the administration panel and only read by the API.
type User struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	Email           string
	Name            string
	EmailVerifiedAt *time.Time
	MFAEnabled      bool `gorm:"column:mfa_enabled"`
	domain.Timestamps
}

// CreateUser inserts a user.
func CreateUser(ctx context.Context, db *gorm.DB, email, name string, verified, mfa bool) (*User, error) {
	u := &User{ID: domain.NewID(), Email: strings.TrimSpace(email), Name: name, MFAEnabled: mfa}
	if verified {
		now := time.Now().UTC()
		u.EmailVerifiedAt = &now
	}
	if err := db.WithContext(ctx).Create(u).Error; err != nil {
		return nil, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}
