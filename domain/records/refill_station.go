package records

import (
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/domain/registers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// RefillStation is a place where end users refill their own containers
// (PPWR Art. 28, Annex VI Part C).
type RefillStation struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	Name            string
	Location        string
	CountryCode     string
	Products        datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	RefillRules     string
	HygieneEvidence datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	Revision        int
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// RefillStationCreate is the body of a new station: the "rules for
// refill" end users must be told (Art. 28(1)-(4)) are required, and its
// hygiene and safety evidence (Annex VI Part C) is approved documents.
type RefillStationCreate struct {
	input.Errors
	Name            input.Opt[string]
	Location        input.Opt[string]
	Country         input.Opt[string]
	Products        input.Opt[[]uuid.UUID]
	RefillRules     input.Opt[string]
	HygieneEvidence input.Opt[[]uuid.UUID]
}

// Declare names the station's fields.
func (in *RefillStationCreate) Declare(f *input.Fields) {
	f.Text("name", &in.Name, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
	f.Text("location", &in.Location, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
	f.Code("country", &in.Country, input.Code{Required: true, Known: dictionaries.Default().HasCountry})
	f.Refs("products", &in.Products, input.Refs{MaxItems: RecordItemsMax, Desc: "schema.refill_products"})
	f.Text("refill_rules", &in.RefillRules, input.Text{Required: true, NotBlank: true, Max: RecordTextMax, Desc: "schema.refill_rules"})
	f.Refs("hygiene_evidence", &in.HygieneEvidence, input.Refs{MaxItems: RecordEvidenceMax, Desc: "schema.approved_evidence"})
}

// CreateRefillStation records a station of the organization.
func CreateRefillStation(w *work.Unit, in *RefillStationCreate) (*RefillStation, error) {
	refs := registers.NewRefCheck(&in.Errors, uuid.Nil)
	refs.Refs("products", "item", in.Products.Value)
	refs.Refs("hygiene_evidence", "document", in.HygieneEvidence.Value)
	if err := refs.Check(w.Context(), w.Tx(), w.Organization()); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	at := domain.Now()
	s := &RefillStation{ID: domain.NewID(), OrganizationID: w.Organization(), Name: in.Name.Value, Location: in.Location.Value,
		CountryCode: in.Country.Value, Products: domain.NonNilIDs(in.Products.Value), RefillRules: in.RefillRules.Value,
		HygieneEvidence: domain.NonNilIDs(in.HygieneEvidence.Value), Revision: 1, CreatedAt: at, UpdatedAt: at}
	if err := w.Tx().Create(s).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	w.Touch("refill_station", s.ID)
	return s, domain.Emit(w, RefillStationCreated{ID: s.ID})
}

// RefillStationCreated announces a new refill station.
type RefillStationCreated domain.RecordCreated

func (RefillStationCreated) EventType() string { return "refill_station.created" }
