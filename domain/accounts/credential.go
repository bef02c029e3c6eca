package accounts

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/internal/access"
)

var LockForUpdate = clause.Locking{Strength: "UPDATE"}

// ErrUnknownToken means no key has this token hash.
var ErrUnknownToken = errors.New("unknown api key")

// credentialRow is the shape of the credential query.
type credentialRow struct {
	KeyID            uuid.UUID
	OrganizationID   uuid.UUID
	UserID           uuid.UUID
	Abilities        pq.StringArray `gorm:"type:text[]"`
	Revoked          bool
	EmailVerified    bool
	UserMFA          bool `gorm:"column:user_mfa"`
	HasMembership    bool
	MembershipActive bool
	Role             access.Role
	Permissions      pq.StringArray `gorm:"type:text[]"`
	OrganizationOK   bool           `gorm:"column:organization_ok"`
	RequireMFA       bool           `gorm:"column:require_mfa"`
	DualControl      bool
	IPAllowList      pq.StringArray `gorm:"type:text[];column:ip_allow_list"`
}

// LookupCredential resolves a token hash.
func LookupCredential(ctx context.Context, db *gorm.DB, tokenHash []byte) (*access.Credential, error) {
	var c credentialRow
	res := db.WithContext(ctx).Raw(`
SELECT k.id AS key_id, k.organization_id, k.user_id, k.abilities,
       k.revoked_at IS NOT NULL AS revoked,
       u.email_verified_at IS NOT NULL AS email_verified,
       u.mfa_enabled AS user_mfa,
       m.id IS NOT NULL AS has_membership,
       COALESCE(m.active, false) AS membership_active,
       COALESCE(m.role, '') AS role,
       COALESCE(m.permissions, '{}') AS permissions,
       o.status = 'active' AS organization_ok,
       o.require_mfa, o.dual_control,
       o.ip_allow_list::text[] AS ip_allow_list
FROM api_keys k
JOIN users u ON u.id = k.user_id
JOIN organizations o ON o.id = k.organization_id
LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
WHERE k.token_hash = ?`, tokenHash).Scan(&c)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, ErrUnknownToken
	}
	return &access.Credential{
		KeyID: c.KeyID, OrganizationID: c.OrganizationID, UserID: c.UserID, Abilities: c.Abilities, Revoked: c.Revoked,
		EmailVerified: c.EmailVerified, UserMFA: c.UserMFA, HasMembership: c.HasMembership, MembershipActive: c.MembershipActive,
		Role: c.Role, Permissions: c.Permissions, OrganizationOK: c.OrganizationOK, RequireMFA: c.RequireMFA,
		DualControl: c.DualControl, IPAllowList: c.IPAllowList,
	}, nil
}
