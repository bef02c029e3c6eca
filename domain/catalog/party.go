package catalog

import (
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"ppwr/domain"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Party is a business partner of the organization: a supplier or another
// role in the packaging chain. Parties are created and read only.
type Party struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Name           string
	Roles          pq.StringArray `gorm:"type:text[]"`
	CountryCode    string
	TaxID          string `gorm:"column:tax_id"`
	Email          string
	Address        string
	CreatedAt      time.Time
}

// PartyRoles are the roles a party may hold, in the order documented.
var PartyRoles = []string{"supplier", "customer", "manufacturer", "importer", "recycler", "other"}

// TableName names the parties table.
func (Party) TableName() string { return "parties" }

// PartyCreate is the body of a new party.
type PartyCreate struct {
	input.Errors
	Name    input.Opt[string]
	Roles   input.Opt[[]string]
	Country input.Opt[string]
	TaxID   input.Opt[string]
	Email   input.Opt[string]
	Address input.Opt[string]
}

// Declare names the party's fields; a role sent twice is kept once.
func (in *PartyCreate) Declare(f *input.Fields) {
	f.Text("name", &in.Name, input.Text{Required: true, Max: StructureNameMax})
	f.List("roles", &in.Roles, input.List{Required: true, MinItems: 1, Values: PartyRoles})
	f.Code("country", &in.Country, input.Code{Required: true, Known: dictionaries.Default().HasCountry})
	f.Text("tax_id", &in.TaxID, input.Text{Nullable: true, Max: PartyTaxIDMax})
	f.Email("email", &in.Email, input.Email{Nullable: true, Max: PartyEmailMax})
	f.Text("address", &in.Address, input.Text{Nullable: true, Max: PartyAddressMax})
}

// CreateParty creates a party.
func CreateParty(w *work.Unit, in *PartyCreate) (*Party, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	p := &Party{
		ID: domain.NewID(), OrganizationID: w.Organization(), Name: in.Name.Value, Roles: pq.StringArray(in.Roles.Value),
		CountryCode: in.Country.Value, TaxID: in.TaxID.Value, Email: in.Email.Value, Address: in.Address.Value, CreatedAt: domain.Now(),
	}
	if err := w.Defer(p); err != nil {
		return nil, err
	}
	w.Touch("party", p.ID)
	return p, domain.Emit(w, PartyCreated{PartyID: p.ID})
}
