package registers

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/register"
	"ppwr/internal/work"
)

// PPWR technical register entries. Each register is declared once in
// internal/register; this file keeps the entries of all of them, with
// the envelope every register shares (ppwr-facts §2): the item revision
// and data version the entry rests on, the components and market
// scenarios in scope, the method, the evidence and the validity. An entry
// never changes after it is created except for its one internal review
// decision; a correction is a new entry that supersedes it.

// Entry statuses and review statuses.
const (
	EntryActive     = "active"
	EntrySuperseded = "superseded"

	EntryNotReviewable = "not_applicable"
	EntryUnreviewed    = "unreviewed"
	EntryAccepted      = "accepted"
	EntryRejected      = "rejected"
	EntryNeedsChanges  = "needs_changes"
)

// Vocabularies of entries.
var (
	EntryStatuses       = []string{EntryActive, EntrySuperseded}
	EntryReviewStatuses = []string{EntryNotReviewable, EntryUnreviewed, EntryAccepted, EntryRejected, EntryNeedsChanges}
	EntryDecisions      = []string{EntryAccepted, EntryRejected, EntryNeedsChanges}
	// EntryMethods say how the values were obtained.
	EntryMethods = []string{"standard", "test_method", "calculation", "declared_by_supplier"}
	// EvidenceKinds are what an entry's evidence points to.
	EvidenceKinds = []string{EvidenceDocumentVersion, EvidenceProposalKind}
)

// Kinds of evidence.
const (
	EvidenceDocumentVersion = "document_version"
	EvidenceProposalKind    = "evidence_proposal"
)

// Limits of an entry.
const (
	EntryEvidenceMax  = 100
	EntryReasonMax    = 2000
	EntryReferenceMax = 500
)

// Rules of register entries.
var (
	ErrSelfReview      = &domain.ForbiddenError{Code: "separate_reviewer_required", Key: "error.separate_reviewer_required"}
	ErrEntryDecided    = &domain.RuleError{Code: "entry_already_reviewed", Key: "error.entry_already_reviewed"}
	ErrEntrySuperseded = &domain.RuleError{Code: "entry_superseded", Key: "error.entry_superseded"}
	ErrEntryCorrected  = &domain.ConflictError{Code: "entry_already_superseded", Key: "error.entry_already_superseded"}
)

// RegisterEntry is one entry of one register about one item.
type RegisterEntry struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	CatalogItemID   uuid.UUID `gorm:"type:uuid"`
	Register        string
	CatalogRevision int
	DataVersionID   uuid.UUID                        `gorm:"type:uuid"`
	Components      datatypes.JSONSlice[uuid.UUID]   `gorm:"type:jsonb"`
	MarketScenarios datatypes.JSONSlice[uuid.UUID]   `gorm:"type:jsonb"`
	RuleSet         *string                          //
	RuleSetVersion  *string                          //
	Values          datatypes.JSON                   `gorm:"type:jsonb"`
	Method          string                           //
	MethodReference *string                          //
	Evidence        datatypes.JSONSlice[EvidenceRef] `gorm:"type:jsonb"`
	ValidFrom       time.Time                        `gorm:"type:date"`
	ValidUntil      *time.Time                       `gorm:"type:date"`
	Status          string
	Supersedes      *uuid.UUID `gorm:"type:uuid"`
	SupersededBy    *uuid.UUID `gorm:"type:uuid"`
	CreatedAt       time.Time
	ReviewState
}

// TableName maps the model onto its table.
func (RegisterEntry) TableName() string { return "ppwr_register_entries" }

// EvidenceRef is one piece of an entry's evidence. Field names the value
// that cited it (a laboratory report, a prefilled dimension), or is nil
// for evidence listed in the envelope.
type EvidenceRef struct {
	Kind  string    `json:"kind"`
	ID    uuid.UUID `json:"id"`
	Field *string   `json:"field"`
}

// RegisterEntryCreate is the body of a new entry of Register.
type RegisterEntryCreate struct {
	input.Errors
	Register        *register.Register
	CatalogRevision input.Opt[int]
	Components      input.Opt[[]string]
	MarketScenarios input.Opt[[]string]
	RuleSet         input.Opt[string]
	Method          input.Opt[string]
	MethodReference input.Opt[string]
	Evidence        []EvidenceRef
	ValidFrom       input.Opt[time.Time]
	ValidUntil      input.Opt[time.Time]
	Supersedes      input.Opt[uuid.UUID]
	Values          register.Values
}

// NewRegisterEntryCreate is an empty body of a new entry of r.
func NewRegisterEntryCreate(r *register.Register) *RegisterEntryCreate {
	return &RegisterEntryCreate{Register: r, Values: register.Values{}}
}

func IsUUID(s string) bool { _, err := uuid.Parse(s); return err == nil && len(s) == 36 }

// Declare names the envelope's fields and the register's values.
func (in *RegisterEntryCreate) Declare(f *input.Fields) {
	f.Int("catalog_revision", &in.CatalogRevision, input.Revision(true))
	ids := input.List{Known: IsUUID, UnknownKey: "field.uuid_in_list"}
	f.List("components", &in.Components, ids)
	scenarios := ids
	scenarios.Desc = "register.market_scenarios"
	f.List("market_scenarios", &in.MarketScenarios, scenarios)
	f.Code("rule_set", &in.RuleSet, input.Code{Nullable: true, Known: PublishedRuleSet, Desc: "register.rule_set"})
	f.Enum("method", &in.Method, input.Enum{Required: true, Values: EntryMethods})
	f.Text("method_reference", &in.MethodReference, input.Text{Nullable: true, NotBlank: true, Max: EntryReferenceMax})
	f.Items("evidence", input.Items{MaxItems: EntryEvidenceMax}, func(i int, e *input.Fields) {
		var kind input.Opt[string]
		var id input.Opt[uuid.UUID]
		e.Enum("kind", &kind, input.Enum{Required: true, Values: EvidenceKinds})
		e.Ref("id", &id, input.Ref{Required: true})
		if i >= 0 {
			in.Evidence = append(in.Evidence, EvidenceRef{Kind: kind.Value, ID: id.Value})
		}
	})
	f.Date("valid_from", &in.ValidFrom, input.Date{})
	f.Date("valid_until", &in.ValidUntil, input.Date{})
	f.Ref("supersedes", &in.Supersedes, input.Ref{Nullable: true, Desc: "register.supersedes"})
	f.Object("values", input.Object{Required: true}, func(v *input.Fields) { in.Register.Declare(v, in.Values) })
	if f.Binding() && in.ValidUntil.Set() && in.validFrom().After(in.ValidUntil.Value) {
		f.Fail("valid_until", "field.valid_until_before_from")
	}
}

func PublishedRuleSet(code string) bool { _, ok := dictionaries.Default().RuleSet(code); return ok }

// validFrom is the first day the entry is valid: today unless sent.
func (in *RegisterEntryCreate) validFrom() time.Time {
	if in.ValidFrom.Set() {
		return in.ValidFrom.Value
	}
	return domain.Today()
}

// CreateRegisterEntry records an entry of the body's register about the
// item at its current revision, after checking every reference in the
// envelope and the values against the organization's records. Computed
// values are computed here, never taken from the client.
func CreateRegisterEntry(w *work.Unit, itemID uuid.UUID, in *RegisterEntryCreate) (*RegisterEntry, error) {
	item, err := catalog.LockItemShared(w, itemID)
	if err != nil {
		return nil, err
	}
	reg, ctx, tx, org := in.Register, w.Context(), w.Tx(), w.Organization()
	if err := in.prefill(ctx, tx, org, item.ID); err != nil {
		return nil, err
	}
	subject := register.Subject{FoodContact: item.FoodContactStatus == "food_contact", Reusable: item.ReuseType != "single_use"}
	reg.Check(in.Values, subject, func(field, key string, args ...any) { in.Fail("values."+field, key, args...) })
	refs := NewRefCheck(&in.Errors, item.ID)
	for i, id := range in.Components.Value {
		refs.add("components."+strconv.Itoa(i), register.Component, uuid.MustParse(id))
	}
	for i, id := range in.MarketScenarios.Value {
		refs.add("market_scenarios."+strconv.Itoa(i), register.Scenario, uuid.MustParse(id))
	}
	for _, r := range reg.Refs(in.Values) {
		refs.add("values."+r.Field, r.Kind, r.ID)
		if r.Kind == register.Document {
			field := "values." + r.Field
			in.Evidence = append(in.Evidence, EvidenceRef{Kind: EvidenceDocumentVersion, ID: r.ID, Field: &field})
		}
	}
	for i, e := range in.Evidence {
		if e.Field == nil {
			refs.evidence("evidence."+strconv.Itoa(i)+".id", e)
		}
	}
	if err := refs.Check(ctx, tx, org); err != nil {
		return nil, err
	}
	previous, err := in.superseded(ctx, tx, org, item.ID)
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if in.CatalogRevision.Value != item.Revision {
		return nil, domain.ErrRevisionConflict
	}
	dataVersion, err := catalog.CurrentDataVersion(w, item)
	if err != nil {
		return nil, err
	}
	reg.Complete(in.Values, subject)
	values, err := json.Marshal(in.Values)
	if err != nil {
		return nil, err
	}
	at := domain.Now()
	e := &RegisterEntry{ID: domain.NewID(), OrganizationID: org, CatalogItemID: item.ID, Register: reg.Slug, CatalogRevision: item.Revision,
		DataVersionID: dataVersion, Components: uuids(in.Components.Value), MarketScenarios: uuids(in.MarketScenarios.Value),
		Values: values, Method: in.Method.Value, MethodReference: domain.Optional(in.MethodReference), Evidence: dedupe(in.Evidence),
		ValidFrom: in.validFrom(), ValidUntil: domain.Optional(in.ValidUntil), Status: EntryActive, Supersedes: domain.Optional(in.Supersedes),
		CreatedAt: at, ReviewState: NewReviewState(w, EntryNotReviewable, at)}
	if reg.Reviewable {
		e.ReviewStatus = EntryUnreviewed
	}
	if in.RuleSet.Set() {
		rs, _ := dictionaries.Default().RuleSet(in.RuleSet.Value)
		e.RuleSet, e.RuleSetVersion = &rs.Code, &rs.Version
	}
	if err := tx.Create(e).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	if previous != nil {
		res := tx.Model(previous).Where("status = ?", EntryActive).
			Updates(map[string]any{"status": EntrySuperseded, "superseded_by": e.ID, "updated_at": at})
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected == 0 {
			return nil, ErrEntryCorrected
		}
	}
	if err := catalog.RefreshAssessments(w, item.ID); err != nil {
		return nil, err
	}
	w.Touch("ppwr_register_entry", e.ID)
	return e, domain.Emit(w, RegisterEntryCreated{ID: e.ID, Register: reg.Slug, Item: item.ID})
}

// prefill stands the item's accepted evidence in for the values the
// register lets it fill (an empty-space entry's outer dimensions from
// LENGTH_MM, WIDTH_MM and HEIGHT_MM), citing the proposal as evidence.
func (in *RegisterEntryCreate) prefill(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) error {
	fields := in.Register.Prefills()
	if len(fields) == 0 {
		return nil
	}
	facts, err := documents.EvidencedFacts(ctx, db, org, itemID)
	if err != nil {
		return err
	}
	for _, fd := range fields {
		if in.Values.Has(fd.Name) || in.Has("values."+fd.Name) {
			continue
		}
		i := slices.IndexFunc(facts, func(f documents.EvidencedFact) bool {
			_, known := fd.Unit.Accepted[f.Unit]
			return f.Code == fd.Prefill && f.ComponentID == nil && known
		})
		if i < 0 {
			in.Fail("values."+fd.Name, "field.required_or_evidence", fd.Prefill)
			continue
		}
		fact, field := facts[i], "values."+fd.Name
		in.Values[fd.Name] = register.QuantityValue(fact.Value.Mul(fd.Unit.Accepted[fact.Unit]), fd.Unit.Canonical)
		in.Evidence = append(in.Evidence, EvidenceRef{Kind: EvidenceProposalKind, ID: fact.ProposalID, Field: &field})
	}
	return nil
}

// superseded is the active entry the body corrects, of the same register
// and item.
func (in *RegisterEntryCreate) superseded(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (*RegisterEntry, error) {
	if !in.Supersedes.Set() {
		return nil, nil
	}
	prev, err := domain.Take[RegisterEntry](domain.Tenant(ctx, db, org).
		Where("catalog_item_id = ? AND register = ? AND id = ?", itemID, in.Register.Slug, in.Supersedes.Value))
	switch {
	case err == domain.ErrNotFound:
		in.Fail("supersedes", "field.unknown_entry")
		return nil, nil
	case err != nil:
		return nil, err
	case prev.Status == EntrySuperseded:
		in.Fail("supersedes", "field.entry_superseded")
	}
	return prev, nil
}

func uuids(ids []string) datatypes.JSONSlice[uuid.UUID] {
	out := datatypes.JSONSlice[uuid.UUID]{}
	for _, s := range ids {
		out = append(out, uuid.MustParse(s))
	}
	return out
}

// dedupe keeps the first citation of each record.
func dedupe(refs []EvidenceRef) datatypes.JSONSlice[EvidenceRef] {
	out := datatypes.JSONSlice[EvidenceRef]{}
	for _, r := range refs {
		if !slices.ContainsFunc(out, func(o EvidenceRef) bool { return o.Kind == r.Kind && o.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out
}
