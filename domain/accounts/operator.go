package accounts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/access"
)

// The operator's commands: organizations, users, memberships and keys are
// managed by an operator, never through the API. Each command is one
// transaction, its audit entry (domain.AuditOperator) included.

// Violations of the accounts' constraints, as the operator is told them:
// the statement's own error names a constraint, not the record.
var (
	ErrAlreadyExists    = errors.New("a record with these unique values (slug, e-mail or membership) already exists")
	ErrReferenceMissing = errors.New("a record the command refers to (organization or user) does not exist")
)

// operatorTx runs fn as one operator command on db.
func operatorTx(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error) error {
	err := db.WithContext(ctx).Transaction(fn)
	switch {
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return ErrAlreadyExists
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return ErrReferenceMissing
	}
	return err
}

// RequireOrganization reports an organization that does not exist as a
// domain.MissingError, where a write would fail on a foreign key and a
// list would be empty.
func RequireOrganization(ctx context.Context, db *gorm.DB, id uuid.UUID) error {
	var n int64
	if err := db.WithContext(ctx).Model(&Organization{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return &domain.MissingError{Record: "organization", ID: id}
	}
	return nil
}

// BootstrapInput names the organization and the owner Bootstrap creates.
type BootstrapInput struct {
	Name string
	// Email is the owner's; empty, an example.test address is made up.
	Email string
}

// Bootstrapped is what Bootstrap created; APIKey is the key's token,
// which cannot be recovered later.
type Bootstrapped struct {
	OrganizationID uuid.UUID
	UserID         uuid.UUID
	APIKey         string
}

// Bootstrap creates an organization with a verified owner and a key
// holding every ability: all a fresh installation needs to call the API.
// A random suffix keeps the slug, and the made-up address, unique.
func Bootstrap(ctx context.Context, db *gorm.DB, in BootstrapInput) (*Bootstrapped, error) {
	suffix := randomSuffix()
	email := in.Email
	if email == "" {
		email = "owner-" + suffix + "@example.test"
	}
	var out Bootstrapped
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		org, err := CreateOrganization(ctx, tx, in.Name, Slugify(in.Name)+"-"+suffix)
		if err != nil {
			return err
		}
		user, err := CreateUser(ctx, tx, email, "Owner", true, false)
		if err != nil {
			return err
		}
		if err := UpsertMembership(ctx, tx, &Membership{OrganizationID: org.ID, UserID: user.ID, Role: access.Owner, Active: true}); err != nil {
			return err
		}
		all, _ := access.ParseAbilities("all")
		key, token, err := CreateAPIKey(ctx, tx, org.ID, user.ID, "bootstrap", all)
		if err != nil {
			return err
		}
		out = Bootstrapped{OrganizationID: org.ID, UserID: user.ID, APIKey: token}
		return domain.AuditOperator(ctx, tx, org.ID, "admin.bootstrap", "api_key", key.ID, map[string]any{"user_id": user.ID})
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// OperatorCreateOrganization creates an organization (slug derived from
// the name when empty).
func OperatorCreateOrganization(ctx context.Context, db *gorm.DB, name, slug string) (*Organization, error) {
	var org *Organization
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		var err error
		if org, err = CreateOrganization(ctx, tx, name, slug); err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, org.ID, "admin.org.create", "organization", org.ID, map[string]any{"name": org.Name})
	})
	if err != nil {
		return nil, err
	}
	return org, nil
}

// ListOrganizations lists every organization, oldest first.
func ListOrganizations(ctx context.Context, db *gorm.DB) ([]Organization, error) {
	return domain.OldestFirst[Organization](db.WithContext(ctx))
}

// FindOrganization is the organization id, of any: operators name
// organizations by id (a domain.MissingError when there is none).
func FindOrganization(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Organization, error) {
	var org Organization
	err := db.WithContext(ctx).Take(&org, "id = ?", id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, &domain.MissingError{Record: "organization", ID: id}
	}
	if err != nil {
		return nil, err
	}
	return &org, nil
}

// PolicyChange is a change of an organization's access policies; a nil
// field is left as it is.
type PolicyChange struct {
	// IPAllowList holds addresses or CIDRs (ParseCIDRs); empty clears the
	// allow-list.
	IPAllowList []string
	RequireMFA  *bool
	DualControl *bool
}

// OperatorSetPolicy applies change to the organization id. A change is a
// new revision; no change at all is neither a revision nor audited.
func OperatorSetPolicy(ctx context.Context, db *gorm.DB, id uuid.UUID, change PolicyChange) (*Organization, error) {
	var org Organization
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		if err := tx.Clauses(LockForUpdate).First(&org, "id = ?", id).Error; err != nil {
			return fmt.Errorf("organization %s: %w", id, err)
		}
		changes := map[string]any{}
		if change.IPAllowList != nil {
			cidrs, err := ParseCIDRs(change.IPAllowList)
			if err != nil {
				return err
			}
			org.IPAllowList, changes["ip_allow_list"] = cidrs, cidrs
		}
		if change.RequireMFA != nil {
			org.RequireMFA, changes["require_mfa"] = *change.RequireMFA, *change.RequireMFA
		}
		if change.DualControl != nil {
			org.DualControl, changes["dual_control"] = *change.DualControl, *change.DualControl
		}
		if len(changes) == 0 {
			return nil
		}
		changes["revision"] = gorm.Expr("revision + 1")
		changes["updated_at"] = time.Now().UTC()
		if err := tx.Model(&org).Updates(changes).Error; err != nil {
			return err
		}
		delete(changes, "revision")
		return domain.AuditOperator(ctx, tx, org.ID, "admin.org.policy", "organization", org.ID, changes)
	})
	if err != nil {
		return nil, err
	}
	return &org, nil
}

// NewUser is a user an operator creates.
type NewUser struct {
	Email, Name   string
	EmailVerified bool
	MFA           bool
}

// OperatorCreateUser creates a user. A user belongs to no organization,
// so there is no audit log to record it in.
func OperatorCreateUser(ctx context.Context, db *gorm.DB, in NewUser) (*User, error) {
	var u *User
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		var err error
		u, err = CreateUser(ctx, tx, in.Email, in.Name, in.EmailVerified, in.MFA)
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// ListUsers lists every user, oldest first.
func ListUsers(ctx context.Context, db *gorm.DB) ([]User, error) {
	return domain.OldestFirst[User](db.WithContext(ctx))
}

// Member is a user with their membership of one organization.
type Member struct {
	User
	Role        access.Role
	Permissions pq.StringArray `gorm:"type:text[]"`
	Active      bool
}

// ListMembers lists the organization's members, in user order.
func ListMembers(ctx context.Context, db *gorm.DB, orgID uuid.UUID) ([]Member, error) {
	if err := RequireOrganization(ctx, db, orgID); err != nil {
		return nil, err
	}
	return domain.OldestFirst[Member](db.WithContext(ctx).Table("users").
		Select("users.*, memberships.role, memberships.permissions, memberships.active").
		Joins("JOIN memberships ON memberships.user_id = users.id AND memberships.organization_id = ?", orgID))
}

// OperatorAddMember adds m.UserID to m.OrganizationID with m's role,
// permissions and active flag, or changes the membership to them. It
// returns the membership as stored.
func OperatorAddMember(ctx context.Context, db *gorm.DB, m Membership) (*Membership, error) {
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		if err := RequireOrganization(ctx, tx, m.OrganizationID); err != nil {
			return err
		}
		if err := UpsertMembership(ctx, tx, &m); err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, m.OrganizationID, "admin.member.add", "membership", m.ID, map[string]any{
			"id": m.ID, "organizationId": m.OrganizationID, "userId": m.UserID, "role": m.Role,
			"permissions": []string(m.Permissions), "active": m.Active,
		})
	})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// NewKey is an API key an operator creates for a member.
type NewKey struct {
	OrganizationID uuid.UUID
	UserID         uuid.UUID
	Name           string
	Abilities      []string
}

// OperatorCreateKey creates an API key and returns it with its token,
// which cannot be recovered later.
func OperatorCreateKey(ctx context.Context, db *gorm.DB, in NewKey) (*APIKey, string, error) {
	var key *APIKey
	var token string
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		if err := RequireOrganization(ctx, tx, in.OrganizationID); err != nil {
			return err
		}
		var err error
		if key, token, err = CreateAPIKey(ctx, tx, in.OrganizationID, in.UserID, in.Name, in.Abilities); err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, in.OrganizationID, "admin.key.create", "api_key", key.ID, map[string]any{
			"user_id": in.UserID, "abilities": in.Abilities, "name": in.Name,
		})
	})
	if err != nil {
		return nil, "", err
	}
	return key, token, nil
}

// ListAPIKeys lists the organization's keys, oldest first. Their token
// hashes are not even read, so no caller can show them.
func ListAPIKeys(ctx context.Context, db *gorm.DB, orgID uuid.UUID) ([]APIKey, error) {
	if err := RequireOrganization(ctx, db, orgID); err != nil {
		return nil, err
	}
	return domain.OldestFirst[APIKey](domain.Tenant(ctx, db, orgID).Omit("token_hash"))
}

// OperatorRevokeKey revokes the key id at once (RevokeAPIKey).
func OperatorRevokeKey(ctx context.Context, db *gorm.DB, id uuid.UUID) (*APIKey, error) {
	var key *APIKey
	err := operatorTx(ctx, db, func(tx *gorm.DB) error {
		var err error
		if key, err = RevokeAPIKey(ctx, tx, id); err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, key.OrganizationID, "admin.key.revoke", "api_key", key.ID, map[string]any{})
	})
	if err != nil {
		return nil, err
	}
	return key, nil
}
