package operators

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
)

// Token is a support person's credential for the console. It belongs to
// no organization: support works across all of them. Only a hash of the
// token is stored; the token is shown once, at creation.
type Token struct {
	ID          uuid.UUID `gorm:"type:uuid;primaryKey"`
	Name        string
	TokenPrefix string
	TokenHash   []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
	RevokedAt   *time.Time
}

// TableName names the table apart from the API's keys.
func (Token) TableName() string { return "support_tokens" }

// DefaultTokenTTL is how long a token lasts unless its creator says
// otherwise: a month, so a token left behind does not open the console
// for good.
const DefaultTokenTTL = 720 * time.Hour

// CreateToken issues a token for the person name, valid for ttl, and
// returns it with the token, which cannot be recovered later. A token
// belongs to no organization, so there is no audit log to record it in.
func CreateToken(ctx context.Context, db *gorm.DB, name string, ttl time.Duration) (*Token, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, "", errors.New("a support token needs the name of the person it is for")
	}
	if ttl <= 0 {
		return nil, "", fmt.Errorf("a support token's lifetime must be positive, got %s", ttl)
	}
	token, err := accounts.NewToken()
	if err != nil {
		return nil, "", err
	}
	now := domain.Now()
	t := &Token{
		ID: domain.NewID(), Name: name, TokenPrefix: accounts.DisplayPrefix(token), TokenHash: accounts.HashToken(token),
		CreatedAt: now, ExpiresAt: now.Add(ttl),
	}
	if err := db.WithContext(ctx).Create(t).Error; err != nil {
		return nil, "", fmt.Errorf("create support token: %w", err)
	}
	return t, token, nil
}

// ListTokens lists every support token, oldest first. Their hashes are
// not even read, so no caller can show them.
func ListTokens(ctx context.Context, db *gorm.DB) ([]Token, error) {
	return domain.OldestFirst[Token](db.WithContext(ctx).Omit("token_hash"))
}

// RevokeToken revokes the token id at once: its sessions are refused from
// their next request on. Revoking twice keeps the first time.
func RevokeToken(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Token, error) {
	var t Token
	err := db.WithContext(ctx).Raw(`UPDATE support_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?
RETURNING id, name, token_prefix, created_at, expires_at, revoked_at`, domain.Now(), id).Scan(&t).Error
	if err != nil {
		return nil, err
	}
	if t.ID == uuid.Nil {
		return nil, &domain.MissingError{Record: "support token", ID: id}
	}
	return &t, nil
}
