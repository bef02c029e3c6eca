package packing

import (
	"regexp"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/domain/movements"
	"ppwr/domain/stock"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Set usages: sets of a packing set packed into a parcel, by a set
// consumption or a consumed reservation. A usage keeps the recipe it was
// packed by, so it still says what went into the parcel after the recipe
// or the catalogue changes.

// Limits of packing requests.
const (
	OrderReferenceMax = 100
	SetsCountMax      = 10000
)

// PackedSets are sets of a packing set for one parcel, with the recipe
// they are packed by: what a reservation holds and a usage records.
type PackedSets struct {
	ID                uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID    uuid.UUID `gorm:"type:uuid"`
	PackagingSystemID uuid.UUID `gorm:"type:uuid"`
	SystemRevision    int
	ConfigurationHash string
	Composition       datatypes.JSONSlice[CompositionLine] `gorm:"type:jsonb"`
	SetsCount         int
	OrderReference    string
	Country           string
	CreatedAt         time.Time
}

// packedSets are count sets of the configuration for the parcel p.
func packedSets(w *work.Unit, cfg *Configuration, count int, p *Parcel) PackedSets {
	return PackedSets{ID: domain.NewID(), OrganizationID: w.Organization(), PackagingSystemID: cfg.System.ID, SystemRevision: cfg.System.Revision,
		ConfigurationHash: cfg.Hash, Composition: cfg.Composition, SetsCount: count, OrderReference: p.OrderReference.Value,
		Country: p.Country.Value, CreatedAt: domain.Now()}
}

// PackagingSystemUsage is one use of a packing set.
type PackagingSystemUsage struct {
	PackedSets
	EventOn       time.Time  `gorm:"type:date"`
	ReservationID *uuid.UUID `gorm:"type:uuid"`
}

// configurationHashForm is a configuration hash as the configuration
// answers it.
var configurationHashForm = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Parcel names the parcel a packing request packs: its order reference
// and country of destination.
type Parcel struct {
	OrderReference input.Opt[string]
	Country        input.Opt[string]
}

func (p *Parcel) declare(f *input.Fields) {
	f.Text("order_reference", &p.OrderReference, input.Text{Required: true, Max: OrderReferenceMax})
	f.Code("country", &p.Country, input.Code{Required: true, Known: dictionaries.Default().HasCountry})
}

// SetPacking is what a set consumption and a reservation both send: the
// configuration read, and how many sets go into which parcel.
type SetPacking struct {
	input.Errors
	Parcel
	Revision          input.Opt[int]
	ConfigurationHash input.Opt[string]
	SetsCount         input.Opt[int]
}

func (in *SetPacking) declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	f.Text("configuration_hash", &in.ConfigurationHash, input.Text{Required: true, Max: 64})
	if f.Binding() && in.ConfigurationHash.Set() && !configurationHashForm.MatchString(in.ConfigurationHash.Value) {
		f.Fail("configuration_hash", "field.configuration_hash")
	}
	f.Int("sets_count", &in.SetsCount, input.Int{Required: true, Min: 1, Max: SetsCountMax})
	in.Parcel.declare(f)
}

// SetConsumption is the body of a set consumption.
type SetConsumption struct {
	SetPacking
	EventOn input.Opt[time.Time]
}

// Declare names the consumption's fields.
func (in *SetConsumption) Declare(f *input.Fields) {
	in.SetPacking.declare(f)
	movements.DeclareEventOn(f, &in.EventOn)
}

// ConsumeSets packs sets of the packing set id into a parcel: it claims
// the parcel, records the usage with the current recipe and takes every
// ingredient from stock, all in w. A shortage of any ingredient fails it
// whole.
func ConsumeSets(w *work.Unit, id uuid.UUID, in *SetConsumption) (*PackagingSystemUsage, error) {
	cfg, err := packingConfiguration(w, id, &in.SetPacking)
	if err != nil {
		return nil, err
	}
	u := &PackagingSystemUsage{PackedSets: packedSets(w, cfg, in.SetsCount.Value, &in.Parcel), EventOn: in.EventOn.Value}
	ClaimParcel(w, u.OrderReference, PathSetConsumption, u.ID)
	source := work.Record{Type: "packaging_system_usage", ID: u.ID}
	if err := stock.ApplyStock(w, SetStock(cfg, cfg.Composition, u.SetsCount, stock.MovementSetConsumption, -1, 0, source, "sets_count")); err != nil {
		return nil, err
	}
	if err := w.Defer(u); err != nil {
		return nil, err
	}
	w.Touch("packaging_system_usage", u.ID)
	return u, domain.Emit(w, PackagingSystemConsumed{PackagingSystemID: cfg.System.ID, Revision: cfg.System.Revision})
}
