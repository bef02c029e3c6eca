package operators

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
)

// Session is a browser signed in to the console, as its requests see it.
type Session struct {
	// Name is the person the session acts for: its token's name, or the
	// name the SSO proxy vouched for.
	Name string
	// TokenID is the token it was signed in with; nil when the SSO proxy
	// signed it in.
	TokenID *uuid.UUID
	// CSRF is the secret every form of the session carries back.
	CSRF      string
	ExpiresAt time.Time
}

// sessionRow is a session as stored: the id itself is never.
type sessionRow struct {
	IDHash    []byte     `gorm:"primaryKey"`
	TokenID   *uuid.UUID `gorm:"type:uuid"`
	Name      string
	CSRFToken string `gorm:"column:csrf_token"`
	CreatedAt time.Time
	ExpiresAt time.Time
}

func (sessionRow) TableName() string { return "support_sessions" }

// SessionTTL bounds a session, like a working day: past it (or past its
// token's expiry, whichever comes first) its person signs in again.
const SessionTTL = 12 * time.Hour

// ErrSignInRefused is a token that is malformed, unknown, expired or
// revoked. Which of them is not told: the answer would help a guesser.
var ErrSignInRefused = errors.New("unknown, expired or revoked support token")

// ErrNoSession is a session id that is unknown, expired, signed out, or
// whose token has since expired or been revoked.
var ErrNoSession = errors.New("no such session")

// SignIn opens a session with a support token and returns its id, for
// the cookie, and the session.
func SignIn(ctx context.Context, db *gorm.DB, token string) (string, *Session, error) {
	if !accounts.WellFormedToken(token) {
		return "", nil, ErrSignInRefused
	}
	var t Token
	err := db.WithContext(ctx).Select("id", "name", "expires_at").
		Where("token_hash = ? AND revoked_at IS NULL AND expires_at > now()", accounts.HashToken(token)).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", nil, ErrSignInRefused
	}
	if err != nil {
		return "", nil, err
	}
	return openSession(ctx, db, t.Name, &t.ID, t.ExpiresAt)
}

// SignInTrusted opens a session for name, whom a trusted SSO proxy
// authenticated; it ends with SessionTTL and the proxy's word, as the
// console checks that every request of it still carries the same name.
func SignInTrusted(ctx context.Context, db *gorm.DB, name string) (string, *Session, error) {
	return openSession(ctx, db, name, nil, time.Time{})
}

// openSession stores a new session for name, ending at SessionTTL from now or at
// notAfter if that is sooner (and not zero). Expired sessions of anyone
// are deleted on the way, so the table holds about the sessions alive.
func openSession(ctx context.Context, db *gorm.DB, name string, tokenID *uuid.UUID, notAfter time.Time) (string, *Session, error) {
	id, err := accounts.NewToken()
	if err != nil {
		return "", nil, err
	}
	csrf, err := accounts.NewToken()
	if err != nil {
		return "", nil, err
	}
	now := domain.Now()
	row := sessionRow{IDHash: accounts.HashToken(id), TokenID: tokenID, Name: name, CSRFToken: csrf, CreatedAt: now, ExpiresAt: now.Add(SessionTTL)}
	if !notAfter.IsZero() && notAfter.Before(row.ExpiresAt) {
		row.ExpiresAt = notAfter
	}
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("expires_at <= now()").Delete(&sessionRow{}).Error; err != nil {
			return err
		}
		return tx.Create(&row).Error
	})
	if err != nil {
		return "", nil, err
	}
	return id, &Session{Name: name, TokenID: tokenID, CSRF: csrf, ExpiresAt: row.ExpiresAt}, nil
}

// LookupSession is the live session id names. It is read on every
// request, so a token revoked or expired since the sign-in stops its
// sessions at once, on every replica of the console.
func LookupSession(ctx context.Context, db *gorm.DB, id string) (*Session, error) {
	if !accounts.WellFormedToken(id) {
		return nil, ErrNoSession
	}
	var row sessionRow
	err := db.WithContext(ctx).Table("support_sessions AS s").Select("s.*").
		Joins("LEFT JOIN support_tokens t ON t.id = s.token_id").
		Where("s.id_hash = ? AND s.expires_at > now()", accounts.HashToken(id)).
		Where("s.token_id IS NULL OR (t.revoked_at IS NULL AND t.expires_at > now())").
		Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	return &Session{Name: row.Name, TokenID: row.TokenID, CSRF: row.CSRFToken, ExpiresAt: row.ExpiresAt}, nil
}

// SignOut ends the session id; an unknown one is already signed out.
func SignOut(ctx context.Context, db *gorm.DB, id string) error {
	return db.WithContext(ctx).Where("id_hash = ?", accounts.HashToken(id)).Delete(&sessionRow{}).Error
}
