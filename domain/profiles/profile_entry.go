package profiles

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/registers"
	"ppwr/internal/input"
	"ppwr/internal/register"
	"ppwr/internal/work"
)

// ProfileEntry is the organization's profile in one Member State.
type ProfileEntry struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Country        string
	Values         datatypes.JSON `gorm:"type:jsonb"`
	// Evidence are the document versions the values cite, each with the
	// value that cites it.
	Evidence     datatypes.JSONSlice[registers.EvidenceRef] `gorm:"type:jsonb"`
	Status       string
	Supersedes   *uuid.UUID `gorm:"type:uuid"`
	SupersededBy *uuid.UUID `gorm:"type:uuid"`
	CreatedAt    time.Time
	registers.ReviewState
}

// TableName maps the model onto its table.
func (ProfileEntry) TableName() string { return "compliance_profile_entries" }

// ReviewStatuses are the review statuses of a profile entry: it is always
// reviewable.
var ReviewStatuses = []string{registers.EntryUnreviewed, registers.EntryAccepted, registers.EntryRejected, registers.EntryNeedsChanges}

// ProfileEntryCreate is the body of a new profile entry: its values.
type ProfileEntryCreate struct {
	input.Errors
	Values register.Values
}

// NewProfileEntryCreate is an empty body of a new entry.
func NewProfileEntryCreate() *ProfileEntryCreate {
	return &ProfileEntryCreate{Values: register.Values{}}
}

// Declare names the values of the profile's declaration.
func (in *ProfileEntryCreate) Declare(f *input.Fields) {
	f.Object("values", input.Object{Required: true}, func(v *input.Fields) { register.ComplianceProfile.Declare(v, in.Values) })
}

// CreateProfileEntry records the organization's profile in the entry's
// Member State, after checking the values' cross-field rules, that the
// documents they cite are the organization's approved versions and that
// the re-use system they name is the organization's. It supersedes the
// country's active entry, whatever its review status: from then on the
// new entry alone speaks for the country, once it is accepted.
func CreateProfileEntry(w *work.Unit, in *ProfileEntryCreate) (*ProfileEntry, error) {
	reg, ctx, tx, org := register.ComplianceProfile, w.Context(), w.Tx(), w.Organization()
	reg.Check(in.Values, register.Subject{}, func(field, key string, args ...any) { in.Fail("values."+field, key, args...) })
	refs := registers.NewRefCheck(&in.Errors, uuid.Nil)
	evidence := datatypes.JSONSlice[registers.EvidenceRef]{}
	for _, r := range reg.Refs(in.Values) {
		field := "values." + r.Field
		refs.Ref(field, "document", r.ID)
		evidence = append(evidence, registers.EvidenceRef{Kind: registers.EvidenceDocumentVersion, ID: r.ID, Field: &field})
	}
	if err := refs.Check(ctx, tx, org); err != nil {
		return nil, err
	}
	if err := in.checkReuseSystem(ctx, tx, org); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	country := in.Values.String("country")
	// Creations for one country wait for each other, so each supersedes
	// the one before it and a country never has two active entries.
	if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "compliance-profile:"+org.String()+":"+country).Error; err != nil {
		return nil, err
	}
	var previous []ProfileEntry
	if err := domain.Tenant(ctx, tx, org).Where("country = ? AND status = ?", country, registers.EntryActive).Find(&previous).Error; err != nil {
		return nil, err
	}
	reg.Complete(in.Values, register.Subject{})
	values, err := json.Marshal(in.Values)
	if err != nil {
		return nil, err
	}
	at := domain.Now()
	e := &ProfileEntry{ID: domain.NewID(), OrganizationID: org, Country: country, Values: values, Evidence: evidence,
		Status: registers.EntryActive, CreatedAt: at, ReviewState: registers.NewReviewState(w, registers.EntryUnreviewed, at)}
	if len(previous) > 0 {
		e.Supersedes = &previous[0].ID
	}
	if err := tx.Create(e).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	if e.Supersedes != nil {
		if err := tx.Model(&previous[0]).Updates(map[string]any{"status": registers.EntrySuperseded, "superseded_by": e.ID, "updated_at": at}).Error; err != nil {
			return nil, err
		}
	}
	w.Touch("compliance_profile_entry", e.ID)
	return e, domain.Emit(w, ProfileEntryCreated{ID: e.ID, Country: country})
}

// checkReuseSystem refuses a take-away re-use system that is not one of
// the organization's, named by its id or code as reuse-units name theirs.
func (in *ProfileEntryCreate) checkReuseSystem(ctx context.Context, db *gorm.DB, org uuid.UUID) error {
	name := in.Values.String("takeaway_reuse_system")
	if name == "" {
		return nil
	}
	var known bool
	if err := db.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM reuse_systems WHERE organization_id = ? AND (id::text = ? OR code = ?))`,
		org, name, name).Scan(&known).Error; err != nil {
		return err
	}
	if !known {
		in.Fail("values.takeaway_reuse_system", "field.unknown_reuse_system")
	}
	return nil
}

// ReviewProfileEntry records the one review decision on an unreviewed,
// active entry. Four eyes: whoever created the entry cannot decide on it.
func ReviewProfileEntry(w *work.Unit, id uuid.UUID, in *registers.ReviewBody) (*ProfileEntry, error) {
	q := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("id = ?", id)
	e, err := registers.ReviewOnce(w, q, in, func(e *ProfileEntry) error {
		switch {
		case e.Status == registers.EntrySuperseded:
			return registers.ErrEntrySuperseded.On("decision", "field.entry_superseded")
		case e.ReviewStatus != registers.EntryUnreviewed:
			return registers.ErrEntryDecided.On("decision", "field.entry_decided", e.ReviewStatus)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.Touch("compliance_profile_entry", e.ID)
	return e, domain.Emit(w, ProfileEntryReviewed{ID: e.ID, Country: e.Country, Decision: e.ReviewStatus})
}
