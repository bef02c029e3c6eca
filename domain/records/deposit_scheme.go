package records

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/registers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// DepositScheme records that items take part in a deposit-return scheme
// of a market (PPWR Art. 50, rule R62): who runs it, the deposit, the
// label it requires and the evidence of participation. The service never
// collects or refunds a deposit (the spec's boundary 3).
type DepositScheme struct {
	ID               uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID   uuid.UUID `gorm:"type:uuid"`
	Market           string
	SchemeName       string
	SchemeOperator   string
	DepositAmount    decimal.Decimal `gorm:"type:numeric"`
	Currency         string
	Items            datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	LabelRequirement string
	LabelApplied     bool
	Evidence         datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	ParticipatesFrom time.Time                      `gorm:"type:date"`
	CreatedAt        time.Time
	registers.ReviewState
}

// Limits of documentary records.
const (
	RecordNameMax     = 300
	RecordTextMax     = 4000
	RecordItemsMax    = 1000
	RecordEvidenceMax = 50
)

// DepositSchemeCreate is the body of a new deposit-scheme record.
type DepositSchemeCreate struct {
	input.Errors
	Market           input.Opt[string]
	SchemeName       input.Opt[string]
	SchemeOperator   input.Opt[string]
	DepositAmount    input.Opt[decimal.Decimal]
	Currency         input.Opt[string]
	Items            input.Opt[[]uuid.UUID]
	LabelRequirement input.Opt[string]
	LabelApplied     input.Opt[bool]
	Evidence         input.Opt[[]uuid.UUID]
	ParticipatesFrom input.Opt[time.Time]
}

// Declare names the record's fields.
func (in *DepositSchemeCreate) Declare(f *input.Fields) {
	f.Code("market", &in.Market, input.Code{Required: true, Known: dictionaries.Default().HasCountry})
	f.Text("scheme_name", &in.SchemeName, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
	f.Text("scheme_operator", &in.SchemeOperator, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
	f.Decimal("deposit_amount", &in.DepositAmount, input.Decimal{Required: true, Positive: true})
	f.Text("currency", &in.Currency, input.Text{Required: true, Max: 3, Desc: "schema.currency"})
	f.Refs("items", &in.Items, input.Refs{Required: true, MinItems: 1, MaxItems: RecordItemsMax, Desc: "schema.deposit_items"})
	f.Text("label_requirement", &in.LabelRequirement, input.Text{Required: true, NotBlank: true, Max: RecordTextMax, Desc: "schema.deposit_label"})
	f.Bool("label_applied", &in.LabelApplied, input.Bool{Required: true})
	f.Refs("evidence", &in.Evidence, input.Refs{MaxItems: RecordEvidenceMax, Desc: "schema.approved_evidence"})
	f.Date("participates_from", &in.ParticipatesFrom, input.Date{Required: true})
	if f.Binding() && in.Currency.Set() && !isCurrencyCode(in.Currency.Value) {
		f.Fail("currency", "field.currency")
	}
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// CreateDepositScheme records a scheme: its items must be the
// organization's, its evidence approved document versions of it.
func CreateDepositScheme(w *work.Unit, in *DepositSchemeCreate) (*DepositScheme, error) {
	refs := registers.NewRefCheck(&in.Errors, uuid.Nil)
	refs.Refs("items", "item", in.Items.Value)
	refs.Refs("evidence", "document", in.Evidence.Value)
	if err := refs.Check(w.Context(), w.Tx(), w.Organization()); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	at := domain.Now()
	s := &DepositScheme{ID: domain.NewID(), OrganizationID: w.Organization(), Market: in.Market.Value, SchemeName: in.SchemeName.Value,
		SchemeOperator: in.SchemeOperator.Value, DepositAmount: in.DepositAmount.Value, Currency: in.Currency.Value,
		Items: in.Items.Value, LabelRequirement: in.LabelRequirement.Value, LabelApplied: in.LabelApplied.Value,
		Evidence: domain.NonNilIDs(in.Evidence.Value), ParticipatesFrom: in.ParticipatesFrom.Value, CreatedAt: at,
		ReviewState: registers.NewReviewState(w, registers.EntryUnreviewed, at)}
	if err := w.Tx().Create(s).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	w.Touch("deposit_scheme", s.ID)
	return s, domain.Emit(w, DepositSchemeCreated{ID: s.ID})
}

// NewDepositReview is the body of a decision on a deposit-scheme record.
func NewDepositReview() *registers.ReviewBody {
	return &registers.ReviewBody{Decisions: []string{registers.EntryAccepted, registers.EntryRejected}, Desc: "schema.deposit_decision"}
}

// ErrRecordDecided refuses a second review decision on a record reviewed
// once.
var ErrRecordDecided = &domain.RuleError{Code: "record_already_reviewed", Key: "error.record_already_reviewed"}

// ReviewDepositScheme records the one review decision of a scheme record,
// by someone other than its creator. Its acceptance refreshes the
// assessments of its items, which read accepted schemes only.
func ReviewDepositScheme(w *work.Unit, id uuid.UUID, in *registers.ReviewBody) (*DepositScheme, error) {
	s, err := registers.ReviewOnce(w, domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("id = ?", id), in, func(s *DepositScheme) error {
		if s.ReviewStatus != registers.EntryUnreviewed {
			return ErrRecordDecided.On("decision", "field.record_decided", s.ReviewStatus)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.ReviewStatus == registers.EntryAccepted {
		if err := catalog.RefreshAssessments(w, s.Items...); err != nil {
			return nil, err
		}
	}
	w.Touch("deposit_scheme", s.ID)
	return s, domain.Emit(w, DepositSchemeReviewed{ID: s.ID, Status: s.ReviewStatus})
}

type (
	// DepositSchemeCreated announces a new deposit-scheme record.
	DepositSchemeCreated domain.RecordCreated
	// DepositSchemeReviewed announces its review decision.
	DepositSchemeReviewed domain.RecordStatus
)

func (DepositSchemeCreated) EventType() string { return "deposit_scheme.created" }

func (DepositSchemeReviewed) EventType() string { return "deposit_scheme.reviewed" }
