package movements

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Reporting flows are the packaging placed on a market or used, with the
// mass registers and reports count. A supply event of a supply or a use
// generates its flow; a direct flow reports an activity no supply event
// records, and changes no stock.

// Kinds of flow.
const (
	FlowPlaced = "placed"
	FlowUsed   = "used"
)

// FlowKinds are the kinds of flow.
var FlowKinds = []string{FlowPlaced, FlowUsed}

// Flow is a reporting flow.
type Flow struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	DataVersionID  uuid.UUID `gorm:"type:uuid"`
	Kind           string
	Quantity       decimal.Decimal
	Unit           string
	MassG          decimal.Decimal
	Country        string
	EventOn        time.Time
	Reusable       bool
	// SupplyEventID is the event that generated the flow; nil for a
	// direct flow.
	SupplyEventID *uuid.UUID `gorm:"type:uuid"`
	Note          *string
	// The counterparty the packaging was supplied to (PPWR Art. 22): sent
	// with a direct flow, the supply event's for a generated one.
	CounterpartyName    *string
	CounterpartyCountry *string
	CounterpartyAddress *string
	CreatedAt           time.Time
}

// FlowCreate is the body of a direct flow.
type FlowCreate struct {
	input.Errors
	Item     input.Opt[uuid.UUID]
	Kind     input.Opt[string]
	Quantity input.Opt[decimal.Decimal]
	Unit     input.Opt[string]
	MassG    input.Opt[decimal.Decimal]
	Country  input.Opt[string]
	EventOn  input.Opt[time.Time]
	Reusable input.Opt[bool]
	Note     input.Opt[string]
	Counterparty
}

// Declare names the flow's fields.
func (in *FlowCreate) Declare(f *input.Fields) {
	f.Ref("item", &in.Item, input.Ref{Required: true})
	f.Enum("kind", &in.Kind, input.Enum{Required: true, Values: FlowKinds})
	f.Decimal("quantity", &in.Quantity, input.Decimal{Required: true, Positive: true})
	declareUnit(f, &in.Unit, true)
	f.Decimal("mass_g", &in.MassG, input.Decimal{Required: true})
	f.Code("country", &in.Country, input.Code{Required: true, Known: dictionaries.Default().HasCountry})
	DeclareEventOn(f, &in.EventOn)
	f.Bool("reusable", &in.Reusable, input.Bool{})
	f.Text("note", &in.Note, input.Text{NotBlank: true, Nullable: true, Max: catalog.DescriptionMax})
	in.Counterparty.declare(f, "schema.flow_counterparty")
	// A counterparty is named in full or not at all, as a supply
	// event's is.
	for _, field := range []string{"counterparty_country", "counterparty_address"} {
		f.RequiredWith(field, "counterparty_name")
		f.RequiredWith("counterparty_name", field)
	}
}

// CreateFlow records a direct flow of an active item of the organization,
// citing the item's current data version. Its mass is the one sent: the
// flow may count packaging whose mass differs from the catalogue's.
func CreateFlow(w *work.Unit, in *FlowCreate) (*Flow, error) {
	var item *catalog.CatalogItem
	if in.Item.Set() && !in.Has("item") {
		var err error
		item, err = catalog.LockItemShared(w, in.Item.Value)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			in.Fail("item", "field.not_found")
		case err != nil:
			return nil, err
		case item.Status == catalog.ItemArchived:
			in.Fail("item", "field.archived")
		default:
			catalog.UnitConverts(&in.Errors, "unit", item, in.Unit.Value)
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	version, err := catalog.CurrentDataVersion(w, item)
	if err != nil {
		return nil, err
	}
	f := &Flow{
		ID: domain.NewID(), OrganizationID: w.Organization(), CatalogItemID: item.ID, DataVersionID: version, Kind: in.Kind.Value,
		Quantity: in.Quantity.Value, Unit: in.Unit.Value, MassG: in.MassG.Value, Country: in.Country.Value,
		EventOn: in.EventOn.Value, Reusable: in.Reusable.Value, Note: domain.Optional(in.Note), CreatedAt: domain.Now(),
		CounterpartyName: domain.Optional(in.CounterpartyName), CounterpartyCountry: domain.Optional(in.CounterpartyCountry),
		CounterpartyAddress: domain.Optional(in.CounterpartyAddress),
	}
	if err := recordFlow(w, f); err != nil {
		return nil, err
	}
	w.Touch("flow", f.ID)
	return f, nil
}

// recordFlow writes a flow and announces it. A flow placing the item on
// a market is a supply record its assessments read (rule R40): it
// refreshes them.
func recordFlow(w *work.Unit, f *Flow) error {
	if err := w.Defer(f); err != nil {
		return err
	}
	if f.Kind == FlowPlaced {
		if err := catalog.RefreshAssessments(w, f.CatalogItemID); err != nil {
			return err
		}
	}
	return domain.Emit(w, FlowCreated{ID: f.ID})
}

// FlowFilter narrows the organization's flows.
type FlowFilter struct {
	input.Errors
	Item input.Opt[uuid.UUID]
	Kind input.Opt[string]
	Period
}

// Declare names the filter's parameters.
func (q *FlowFilter) Declare(f *input.Fields) {
	f.Ref("item", &q.Item, input.Ref{})
	f.Enum("kind", &q.Kind, input.Enum{Values: FlowKinds})
	q.Period.declare(f, &q.Errors)
}

// Apply narrows q, a query of flows, by the filter.
func (q *FlowFilter) Apply(db *gorm.DB) *gorm.DB {
	if q.Item.Set() {
		db = db.Where("catalog_item_id = ?", q.Item.Value)
	}
	if q.Kind.Set() {
		db = db.Where("kind = ?", q.Kind.Value)
	}
	return q.Period.Apply(db)
}
