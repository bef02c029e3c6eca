package models

import (
	"context"
	"errors"
	"net/netip"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/internal/access"
)

var lockForUpdate = clause.Locking{Strength: "UPDATE"}

// Credential is everything the authorization rule needs about a bearer
// token. It is read in one query and may be cached by replicas (see
// internal/credcache), so it holds no per-request facts.
type Credential struct {
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

// ErrUnknownToken means no key has this token hash.
var ErrUnknownToken = errors.New("unknown api key")

// LookupCredential resolves a token hash.
func LookupCredential(ctx context.Context, db *gorm.DB, tokenHash []byte) (*Credential, error) {
	var c Credential
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
	return &c, nil
}

// AllowsIP applies the organization's IP allow-list (empty: any address).
// An address that cannot be parsed is refused when a list is configured.
func (c *Credential) AllowsIP(ip string) bool {
	if len(c.IPAllowList) == 0 {
		return true
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, raw := range c.IPAllowList {
		if p, err := netip.ParsePrefix(raw); err == nil && p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}

// HasAbility reports whether the key carries ability a.
func (c *Credential) HasAbility(a access.Ability) bool {
	for _, have := range c.Abilities {
		if have == string(a) {
			return true
		}
	}
	return false
}

// HasPermission reports whether the membership grants p.
func (c *Credential) HasPermission(p access.Permission) bool {
	return c.HasMembership && c.Role.Grants(c.Permissions, p)
}
