package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"

	"ppwr/domain"
)

// APIKey is a bearer credential of one user in one organization. Only a hash
// of the token is stored; the token is shown once, at creation.
type APIKey struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	UserID         uuid.UUID `gorm:"type:uuid"`
	Name           string
	TokenPrefix    string
	TokenHash      []byte
	Abilities      pq.StringArray `gorm:"type:text[]"`
	CreatedAt      time.Time
	RevokedAt      *time.Time
}

// tokenPrefix marks ppwr keys so secret scanners and humans recognise them.
const tokenPrefix = "ppwr_"

// tokenSecretLen is the base64url length of 32 random bytes.
const tokenSecretLen = 43

// HashToken is the lookup hash of a token. Tokens carry 256 random bits, so
// a fast hash is enough: there is nothing to brute-force.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// WellFormedToken reports whether s has the shape of a ppwr token, so
// garbage is rejected without a database round trip.
func WellFormedToken(s string) bool {
	return len(s) == len(tokenPrefix)+tokenSecretLen && strings.HasPrefix(s, tokenPrefix)
}

// NewToken is a fresh token: the ppwr prefix and 256 random bits. Store
// only its HashToken, and its DisplayPrefix for people to tell tokens
// apart.
func NewToken() (string, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return "", err
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(secret), nil
}

// DisplayPrefix is the start of a token that lists show: enough for a
// person to recognise it, far too little to guess the rest.
func DisplayPrefix(token string) string { return token[:len(tokenPrefix)+6] }

// ErrKeyNotFound is returned when revoking a key that does not exist.
var ErrKeyNotFound = errors.New("api key not found")

// CreateAPIKey generates a token, stores its hash and returns the key and the
// token (which cannot be recovered later).
func CreateAPIKey(ctx context.Context, db *gorm.DB, orgID, userID uuid.UUID, name string, abilities []string) (*APIKey, string, error) {
	token, err := NewToken()
	if err != nil {
		return nil, "", err
	}
	key := &APIKey{
		ID: domain.NewID(), OrganizationID: orgID, UserID: userID, Name: name,
		TokenPrefix: DisplayPrefix(token), TokenHash: HashToken(token),
		Abilities: pq.StringArray(abilities),
	}
	if key.Abilities == nil {
		key.Abilities = pq.StringArray{}
	}
	if err := db.WithContext(ctx).Create(key).Error; err != nil {
		return nil, "", fmt.Errorf("create api key: %w", err)
	}
	return key, token, nil
}

// RevokeAPIKey marks a key revoked; revoking twice keeps the first time.
func RevokeAPIKey(ctx context.Context, db *gorm.DB, id uuid.UUID) (*APIKey, error) {
	var key APIKey
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(LockForUpdate).First(&key, "id = ?", id).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return ErrKeyNotFound
			}
			return err
		}
		if key.RevokedAt != nil {
			return nil
		}
		now := time.Now().UTC()
		key.RevokedAt = &now
		return tx.Model(&key).Update("revoked_at", now).Error
	})
	return &key, err
}
