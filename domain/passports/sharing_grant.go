package passports

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Sharing grants: the spec's one exception to organization scope. A
// grant lets another organization read a published passport's latest
// version until the grant is revoked or its expires_on day has passed;
// access stops at once then. The granting organization alone sees the
// grant's writes (publish, share, revoke); the grantee only lists it.

// Grant statuses, derived from revoked_at and expires_on on the day read.
const (
	GrantActive  = "active"
	GrantRevoked = "revoked"
	GrantExpired = "expired"
)

// Directions of a grant, seen from the reading organization.
const (
	GrantGiven    = "given"
	GrantReceived = "received"
)

// Vocabularies of grants.
var (
	GrantStatuses   = []string{GrantActive, GrantRevoked, GrantExpired}
	GrantDirections = []string{GrantGiven, GrantReceived}
)

// Limits of a grant's texts.
const GrantNoteMax = 2000

// Rules of grants.
var (
	ErrPassportAlreadyShared = &domain.RuleError{Code: "passport_already_shared", Key: "error.passport_already_shared"}
	ErrGrantRevoked          = &domain.RuleError{Code: "sharing_grant_revoked", Key: "error.sharing_grant_revoked"}
)

// SharingGrant is read access to a passport given by its organization
// (OrganizationID) to another (GranteeOrganizationID).
type SharingGrant struct {
	ID                    uuid.UUID  `gorm:"type:uuid;primaryKey"`
	OrganizationID        uuid.UUID  `gorm:"type:uuid"`
	PassportID            uuid.UUID  `gorm:"type:uuid"`
	GranteeOrganizationID uuid.UUID  `gorm:"type:uuid"`
	ExpiresOn             *time.Time `gorm:"type:date"`
	Note                  *string
	RevokedAt             *time.Time
	RevokedBy             *uuid.UUID `gorm:"type:uuid"`
	RevokeReason          *string
	Revision              int
	CreatedBy             *uuid.UUID `gorm:"type:uuid"`
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// Status is the grant's status today (UTC): revoked wins over expired,
// and a grant is valid through its expires_on day.
func (g *SharingGrant) Status() string {
	switch {
	case g.RevokedAt != nil:
		return GrantRevoked
	case g.ExpiresOn != nil && g.ExpiresOn.Before(domain.Today()):
		return GrantExpired
	}
	return GrantActive
}

// PassportShare is the body of a grant.
type PassportShare struct {
	input.Errors
	Organization input.Opt[uuid.UUID]
	ExpiresOn    input.Opt[time.Time]
	Note         input.Opt[string]
}

// Declare names the grant's fields; expires_on is the last day of access.
func (in *PassportShare) Declare(f *input.Fields) {
	f.Ref("organization", &in.Organization, input.Ref{Required: true, Desc: "grant.organization"})
	f.Date("expires_on", &in.ExpiresOn, input.Date{Desc: "grant.expires_on"})
	f.Text("note", &in.Note, input.Text{Nullable: true, NotBlank: true, Max: GrantNoteMax})
	if f.Binding() && in.ExpiresOn.Set() && in.ExpiresOn.Value.Before(domain.Today()) {
		f.Fail("expires_on", "field.not_before_today")
	}
}

// SharePassport grants another active organization read access to a
// published passport of the organization. A second grant to the same
// organization while one is active is refused, so one revocation always
// ends its access.
func SharePassport(w *work.Unit, id uuid.UUID, in *PassportShare) (*SharingGrant, error) {
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	// The lock orders concurrent grants of the passport, so the check for
	// an active grant below sees the others.
	p, err := domain.LockFor[Passport](ctx, tx, org, id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if in.Organization.Set() {
		if err := checkGrantee(ctx, tx, org, in); err != nil {
			return nil, err
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if p.Status != PassportPublished {
		return nil, ErrPassportNotPublished
	}
	var active []uuid.UUID
	if err := GrantsInStatus(domain.Tenant(ctx, tx, org).Model(&SharingGrant{}), GrantActive).
		Where("passport_id = ? AND grantee_organization_id = ?", p.ID, in.Organization.Value).Limit(1).Pluck("id", &active).Error; err != nil {
		return nil, err
	}
	if len(active) > 0 {
		return nil, ErrPassportAlreadyShared.On("organization", "field.already_shared", active[0].String())
	}
	at := domain.Now()
	g := &SharingGrant{ID: domain.NewID(), OrganizationID: org, PassportID: p.ID, GranteeOrganizationID: in.Organization.Value,
		ExpiresOn: domain.Optional(in.ExpiresOn), Note: domain.Optional(in.Note), Revision: 1, CreatedBy: w.Actor().UserID, CreatedAt: at, UpdatedAt: at}
	if err := tx.Create(g).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	w.Touch("sharing_grant", g.ID)
	if err := domain.Emit(w, PassportShared{ID: p.ID, Grant: g.ID, Organization: g.GranteeOrganizationID}); err != nil {
		return nil, err
	}
	return g, emitTo(w, g.GranteeOrganizationID, SharingGrantReceived{ID: g.ID, Passport: p.ID, Organization: org})
}

// checkGrantee fails the body's organization when it is the granting one
// or not an active organization. Which ids are organizations is no secret worth a 404: ids are
// random, and a grant needs the grantee's id from the grantee.
func checkGrantee(ctx context.Context, db *gorm.DB, org uuid.UUID, in *PassportShare) error {
	grantee := in.Organization.Value
	if grantee == org {
		in.Fail("organization", "field.own_organization")
		return nil
	}
	var n int64
	if err := db.WithContext(ctx).Model(&accounts.Organization{}).Where("id = ? AND status = ?", grantee, accounts.OrganizationActive).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		in.Fail("organization", "field.unknown_organization")
	}
	return nil
}

// GrantRevoke is the body of a revocation.
type GrantRevoke struct {
	input.Errors
	Revision input.Opt[int]
	Reason   input.Opt[string]
}

// Declare names the revocation's fields.
func (in *GrantRevoke) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	f.Text("reason", &in.Reason, input.Text{Nullable: true, NotBlank: true, Max: GrantNoteMax})
}

// RevokeSharingGrant ends a grant the organization gave, at once. The
// grantee cannot revoke (the grant is not the grantee's record: 404); a
// revoked grant stays revoked, so a second revocation is refused before
// its revision is looked at.
func RevokeSharingGrant(w *work.Unit, id uuid.UUID, in *GrantRevoke) (*SharingGrant, error) {
	g, err := domain.LockFor[SharingGrant](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if g.RevokedAt != nil {
		return nil, ErrGrantRevoked
	}
	if g.Revision != in.Revision.Value {
		return nil, domain.ErrRevisionConflict
	}
	at := domain.Now()
	g.RevokedAt, g.RevokedBy, g.RevokeReason, g.Revision, g.UpdatedAt = &at, w.Actor().UserID, domain.Optional(in.Reason), g.Revision+1, at
	if err := w.Tx().Model(g).Select("revoked_at", "revoked_by", "revoke_reason", "revision", "updated_at").Updates(g).Error; err != nil {
		return nil, err
	}
	w.Touch("sharing_grant", g.ID)
	revoked := SharingGrantRevoked{ID: g.ID, Passport: g.PassportID}
	if err := domain.Emit(w, revoked); err != nil {
		return nil, err
	}
	return g, emitTo(w, g.GranteeOrganizationID, revoked)
}

// SharingGrantsOf are the grants the organization gave and received, or
// those of one direction.
func SharingGrantsOf(ctx context.Context, db *gorm.DB, org uuid.UUID, direction string) *gorm.DB {
	q := db.WithContext(ctx).Model(&SharingGrant{})
	switch direction {
	case GrantGiven:
		return q.Where("organization_id = ?", org)
	case GrantReceived:
		return q.Where("grantee_organization_id = ?", org)
	}
	return q.Where("(organization_id = ? OR grantee_organization_id = ?)", org, org)
}

// GrantsInStatus narrows q to grants in the status today, as Status
// tells it.
func GrantsInStatus(q *gorm.DB, status string) *gorm.DB {
	// A day, not an instant: compared with a date in any session time zone.
	on := domain.Today().Format(time.DateOnly)
	switch status {
	case GrantRevoked:
		return q.Where("revoked_at IS NOT NULL")
	case GrantExpired:
		return q.Where("revoked_at IS NULL AND expires_on < ?", on)
	}
	return q.Where("revoked_at IS NULL AND (expires_on IS NULL OR expires_on >= ?)", on)
}

// emitTo writes an event into another organization's outbox: the
// grantee hears of the grants it receives and loses.
func emitTo(w *work.Unit, org uuid.UUID, data domain.Payload) error {
	e, err := domain.NewEvent(org, data)
	if err != nil {
		return err
	}
	return w.Defer(e)
}

// PassportShared announces, to the granting organization, a grant of a
// passport to another organization.
type PassportShared struct {
	ID           uuid.UUID `json:"id"`
	Grant        uuid.UUID `json:"sharing_grant"`
	Organization uuid.UUID `json:"organization"`
}

func (PassportShared) EventType() string { return "passport.shared" }

// SharingGrantReceived announces, to the grantee, a grant it received
// from the organization named.
type SharingGrantReceived struct {
	ID           uuid.UUID `json:"id"`
	Passport     uuid.UUID `json:"passport"`
	Organization uuid.UUID `json:"granting_organization"`
}

func (SharingGrantReceived) EventType() string { return "sharing_grant.received" }

// SharingGrantRevoked announces, to both organizations, that a grant
// ended.
type SharingGrantRevoked struct {
	ID       uuid.UUID `json:"id"`
	Passport uuid.UUID `json:"passport"`
}

func (SharingGrantRevoked) EventType() string { return "sharing_grant.revoked" }
