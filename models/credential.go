package models

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/internal/access"
)

var lockForUpdate = clause.Locking{Strength: "UPDATE"}

// Credential is everything the authorization rule needs about a bearer
// token, read in one query on every request.
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
	IPAllowed        bool `gorm:"column:ip_allowed"`
	// RateAllowed is false when any charged bucket refused the request;
	// RetryAfter is then the whole seconds to wait.
	RateAllowed     bool
	RateWaitSeconds float64
}

// RetryAfter is the Retry-After of a refused request.
func (c *Credential) RetryAfter() int { return retryAfter(c.RateWaitSeconds) }

// ErrUnknownToken means no key has this token hash.
var ErrUnknownToken = errors.New("unknown api key")

// LookupCredential resolves a token hash and charges the key's user one
// request on each of buckets, all in one round trip: authentication and the
// rate limit run on every request, so they share it. Every request of a
// valid key counts, including those later refused with 403. The IP
// allow-list is evaluated in SQL with inet containment so that CIDR
// semantics match what operators configured.
func LookupCredential(ctx context.Context, db *gorm.DB, tokenHash []byte, clientIP string, buckets []RateBucket) (*Credential, error) {
	suffixes, intervals := make(pq.StringArray, len(buckets)), make(pq.Int64Array, len(buckets))
	for i, b := range buckets {
		suffixes[i], intervals[i] = b.Suffix, b.intervalMicros()
	}
	var c Credential
	res := db.WithContext(ctx).Raw(`
WITH cred AS (
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
       (cardinality(o.ip_allow_list) = 0 OR
        (?::text <> '' AND ?::inet <<= ANY (o.ip_allow_list))) AS ip_allowed
FROM api_keys k
JOIN users u ON u.id = k.user_id
JOIN organizations o ON o.id = k.organization_id
LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
WHERE k.token_hash = ?)
SELECT cred.*, COALESCE(rate.allowed, true) AS rate_allowed, COALESCE(rate.wait_seconds, 0) AS rate_wait_seconds
FROM cred
LEFT JOIN LATERAL (
    -- The filter sits on the bucket list, before the function: a join
    -- condition would only be checked after the function had charged.
    SELECT bool_and(t.allowed) AS allowed, max(t.wait_seconds) AS wait_seconds
    FROM (SELECT * FROM unnest(?::text[], ?::bigint[]) AS u(suffix, interval_us) WHERE NOT cred.revoked) b,
         ppwr_take_rate_token('user:' || cred.user_id || b.suffix, b.interval_us) AS t
) rate ON true`, clientIP, nullIfEmpty(clientIP), tokenHash, suffixes, intervals).Scan(&c)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, ErrUnknownToken
	}
	return &c, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
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
