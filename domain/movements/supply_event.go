package movements

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/stock"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Supply events record packaging physically moving in or out of the
// organization: each moves the item's stock through the ledger, and a
// supply to a customer or an own use also generates the reporting flow
// that registers and reports count, in the same transaction.

// Directions of supply events.
const (
	DirectionReceived       = "received"
	DirectionSupplied       = "supplied"
	DirectionUsed           = "used"
	DirectionProduced       = "produced"
	DirectionOpeningBalance = "opening_balance"
	DirectionAdjustmentIn   = "adjustment_in"
	DirectionAdjustmentOut  = "adjustment_out"
)

// SupplyDirections are the event kinds; the first four add stock.
var SupplyDirections = []string{
	DirectionReceived, DirectionProduced, DirectionOpeningBalance, DirectionAdjustmentIn,
	DirectionSupplied, DirectionUsed, DirectionAdjustmentOut,
}

// outgoing reports whether a direction takes stock out.
func outgoing(direction string) bool {
	return direction == DirectionSupplied || direction == DirectionUsed || direction == DirectionAdjustmentOut
}

// GeneratedFlowKinds are the reporting flows directions generate: what is
// supplied is placed on a market, what is used is used. Other directions
// move stock without reaching a market.
var GeneratedFlowKinds = map[string]string{DirectionSupplied: FlowPlaced, DirectionUsed: FlowUsed}

// UsageChannels say where used packaging went; e-commerce use names its
// transaction.
var UsageChannels = []string{UsageEcommerce, "retail", "wholesale", "own_operations"}

// UsageEcommerce is the channel whose use needs a transaction reference.
const UsageEcommerce = "ecommerce"

// Reuse states of packaging at an event.
const (
	ReuseReusable  = "reusable"
	ReuseSingleUse = "single_use"
)

// ReuseStates are the values of reusable_at_event.
var ReuseStates = []string{ReuseReusable, ReuseSingleUse}

// Limits of the supply event's text fields.
const (
	CounterpartyNameMax     = 300
	TransactionReferenceMax = 200
)

// Counterparty names who supplied the packaging, or to whom it was
// supplied: what an operator must be able to tell an authority (PPWR Art.
// 22).
type Counterparty struct {
	CounterpartyName    input.Opt[string]
	CounterpartyCountry input.Opt[string]
	CounterpartyAddress input.Opt[string]
}

// declare names the counterparty's fields; desc, if any, says why the
// name is asked for.
func (c *Counterparty) declare(f *input.Fields, desc input.Msg) {
	f.Text("counterparty_name", &c.CounterpartyName, input.Text{NotBlank: true, Nullable: true, Max: CounterpartyNameMax, Desc: desc})
	f.Code("counterparty_country", &c.CounterpartyCountry, input.Code{Nullable: true, Known: dictionaries.Default().HasCountry})
	f.Text("counterparty_address", &c.CounterpartyAddress, input.Text{NotBlank: true, Nullable: true, Max: catalog.PartyAddressMax})
}

// SupplyEvent is one physical movement of an item.
type SupplyEvent struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	CatalogItemID   uuid.UUID `gorm:"type:uuid"`
	DataVersionID   uuid.UUID `gorm:"type:uuid"`
	CatalogRevision int
	Direction       string
	// As sent: Quantity with Unit, or QuantityUnits.
	Quantity      decimal.NullDecimal
	Unit          *string
	QuantityUnits decimal.NullDecimal
	// StockQuantity is signed as it moves stock, in StockUnit.
	StockQuantity        decimal.Decimal
	StockUnit            string
	MassG                decimal.Decimal
	CounterpartyName     *string
	CounterpartyCountry  *string
	CounterpartyAddress  *string
	UsageChannel         *string
	TransactionReference *string
	Note                 *string
	EventOn              time.Time
	ReusableAtEvent      string
	Country              *string
	FlowID               *uuid.UUID `gorm:"type:uuid"`
	CreatedAt            time.Time
}

// SupplyEventCreate is the body of a new supply event.
type SupplyEventCreate struct {
	input.Errors
	CatalogRevision input.Opt[int]
	DataVersion     input.Opt[uuid.UUID]
	Direction       input.Opt[string]
	Quantity        input.Opt[decimal.Decimal]
	Unit            input.Opt[string]
	QuantityUnits   input.Opt[decimal.Decimal]
	Counterparty
	UsageChannel         input.Opt[string]
	TransactionReference input.Opt[string]
	Note                 input.Opt[string]
	EventOn              input.Opt[time.Time]
	ReusableAtEvent      input.Opt[string]
	Country              input.Opt[string]
}

// Declare names the event's fields and the rules between them: which
// fields a direction needs, and one quantity form.
func (in *SupplyEventCreate) Declare(f *input.Fields) {
	countries := dictionaries.Default().HasCountry
	f.Int("catalog_revision", &in.CatalogRevision, input.Revision(true))
	f.Ref("data_version", &in.DataVersion, input.Ref{})
	f.Enum("direction", &in.Direction, input.Enum{Required: true, Values: SupplyDirections})
	f.Decimal("quantity", &in.Quantity, input.Decimal{Positive: true})
	declareUnit(f, &in.Unit, false)
	f.Decimal("quantity_units", &in.QuantityUnits, input.Decimal{Positive: true})
	in.Counterparty.declare(f, "")
	f.Enum("usage_channel", &in.UsageChannel, input.Enum{Values: UsageChannels})
	f.Text("transaction_reference", &in.TransactionReference, input.Text{NotBlank: true, Nullable: true, Max: TransactionReferenceMax})
	f.Text("note", &in.Note, input.Text{NotBlank: true, Nullable: true, Max: catalog.DescriptionMax})
	DeclareEventOn(f, &in.EventOn)
	f.Enum("reusable_at_event", &in.ReusableAtEvent, input.Enum{Values: ReuseStates})
	f.Code("country", &in.Country, input.Code{Nullable: true, Known: countries, Desc: "schema.supply_country"})
	trade := input.Is("direction", DirectionReceived, DirectionSupplied)
	f.RequiredWhen("counterparty_name", trade)
	f.RequiredWhen("counterparty_country", trade)
	f.RequiredWhen("counterparty_address", trade)
	used := input.Is("direction", DirectionUsed)
	f.RequiredWhen("usage_channel", used)
	f.RequiredWhen("country", used)
	f.RequiredWhen("transaction_reference", used, input.Is("usage_channel", UsageEcommerce))
	f.RequiredWhen("note", input.Is("direction", DirectionAdjustmentIn, DirectionAdjustmentOut))
	if f.Binding() {
		in.declareQuantityForm(f)
	}
}

// declareQuantityForm accepts quantity with unit, or quantity_units alone.
func (in *SupplyEventCreate) declareQuantityForm(f *input.Fields) {
	switch {
	case in.QuantityUnits.Sent && (in.Quantity.Sent || in.Unit.Sent):
		for name, sent := range map[string]bool{"quantity": in.Quantity.Sent, "unit": in.Unit.Sent, "quantity_units": true} {
			if sent {
				f.Fail(name, "field.quantity_forms")
			}
		}
	case in.QuantityUnits.Sent:
	case !in.Quantity.Sent && !in.Unit.Sent:
		catalog.OneRequired(f, false, "quantity", "quantity_units")
	default:
		if !in.Quantity.Set() && !in.Has("quantity") {
			f.Fail("quantity", "field.required")
		}
		if !in.Unit.Set() && !in.Has("unit") {
			f.Fail("unit", "field.required")
		}
	}
}

// declareUnit declares a base unit; whether the item converts it is the
// command's check (unitConverts).
func declareUnit(f *input.Fields, dst *input.Opt[string], required bool) {
	f.Enum("unit", dst, input.Enum{Required: required, Values: catalog.StockUnits, Refused: catalog.RefusedStockUnits})
}

// DeclareEventOn declares event_on: the real date of the activity, so
// never after today. Today is the UTC date, the same for every client.
func DeclareEventOn(f *input.Fields, dst *input.Opt[time.Time]) {
	f.Date("event_on", dst, input.Date{Required: true})
	if f.Binding() && dst.Set() && dst.Value.After(domain.Today()) {
		f.Fail("event_on", "field.after_today")
	}
}

// CreateSupplyEvent records a supply event of the item at its current
// revision: it moves the item's stock and, for a supply or a use,
// generates the reporting flow (nil otherwise). A shortage of a
// stock-tracked item refuses it and nothing is written.
func CreateSupplyEvent(w *work.Unit, itemID uuid.UUID, in *SupplyEventCreate) (*SupplyEvent, *Flow, error) {
	item, err := catalog.LockItemShared(w, itemID)
	if err != nil {
		return nil, nil, err
	}
	if item.Status == catalog.ItemArchived {
		return nil, nil, domain.ErrItemArchived
	}
	catalog.UnitConverts(&in.Errors, "unit", item, in.Unit.Value)
	quantity, field := in.QuantityUnits.Value, "quantity_units"
	if in.Quantity.Set() && in.Unit.Set() && !in.Has("unit") {
		quantity, _ = item.ToStockUnit(in.Quantity.Value, in.Unit.Value)
		field = "quantity"
		if quantity.IsZero() && !in.Has("quantity") {
			in.Fail("quantity", "field.converts_to_zero", item.StockUnit)
		}
	}
	version, err := catalog.CurrentDataVersion(w, item)
	if err != nil {
		return nil, nil, err
	}
	staleVersion, err := in.staleDataVersion(w, item, version)
	if err != nil {
		return nil, nil, err
	}
	if in.Failed() {
		return nil, nil, in.Err()
	}
	if in.CatalogRevision.Value != item.Revision || staleVersion {
		return nil, nil, domain.ErrRevisionConflict
	}
	signed := quantity
	if outgoing(in.Direction.Value) {
		signed = quantity.Neg()
	}
	country := domain.Optional(in.Country)
	if country == nil && in.Direction.Value == DirectionSupplied {
		country = domain.Optional(in.CounterpartyCountry)
	}
	e := &SupplyEvent{
		ID: domain.NewID(), OrganizationID: w.Organization(), CatalogItemID: item.ID, DataVersionID: version,
		CatalogRevision: item.Revision, Direction: in.Direction.Value,
		Quantity: nullDecimal(in.Quantity), Unit: domain.Optional(in.Unit), QuantityUnits: nullDecimal(in.QuantityUnits),
		StockQuantity: signed, StockUnit: item.StockUnit, MassG: item.MassOf(quantity),
		CounterpartyName: domain.Optional(in.CounterpartyName), CounterpartyCountry: domain.Optional(in.CounterpartyCountry),
		CounterpartyAddress: domain.Optional(in.CounterpartyAddress), UsageChannel: domain.Optional(in.UsageChannel),
		TransactionReference: domain.Optional(in.TransactionReference), Note: domain.Optional(in.Note),
		EventOn: in.EventOn.Value, ReusableAtEvent: reuseAtEvent(item, in.ReusableAtEvent), Country: country, CreatedAt: domain.Now(),
	}
	if err := stock.ApplyStock(w, []stock.StockChange{{Item: item, DataVersion: version, Kind: stock.MovementSupply, Physical: signed,
		Source: work.Record{Type: stock.MovementSupply, ID: e.ID}, Field: field}}); err != nil {
		return nil, nil, err
	}
	var flow *Flow
	if kind, ok := GeneratedFlowKinds[e.Direction]; ok {
		flow = &Flow{
			ID: domain.NewID(), OrganizationID: e.OrganizationID, CatalogItemID: item.ID, DataVersionID: version, Kind: kind,
			Quantity: quantity, Unit: item.StockUnit, MassG: e.MassG, Country: *country, EventOn: e.EventOn,
			Reusable: e.ReusableAtEvent == ReuseReusable, SupplyEventID: &e.ID, CreatedAt: e.CreatedAt,
			CounterpartyName: e.CounterpartyName, CounterpartyCountry: e.CounterpartyCountry, CounterpartyAddress: e.CounterpartyAddress,
		}
		e.FlowID = &flow.ID
	}
	if err := w.Defer(e); err != nil {
		return nil, nil, err
	}
	if e.Direction == DirectionReceived {
		// A receipt is a supply record the item's assessments read (R40).
		if err := catalog.RefreshAssessments(w, item.ID); err != nil {
			return nil, nil, err
		}
	}
	if err := domain.Emit(w, SupplyEventCreated{ID: e.ID}); err != nil {
		return nil, nil, err
	}
	if flow != nil {
		if err := recordFlow(w, flow); err != nil {
			return nil, nil, err
		}
	}
	w.Touch("supply_event", e.ID)
	return e, flow, nil
}

// staleDataVersion reports whether the data version sent is an earlier
// one of the item's than current; one that is not the item's fails.
func (in *SupplyEventCreate) staleDataVersion(w *work.Unit, item *catalog.CatalogItem, current uuid.UUID) (bool, error) {
	if !in.DataVersion.Set() || in.DataVersion.Value == current {
		return false, nil
	}
	_, err := domain.FindOfItem[catalog.DataVersion](w.Context(), w.Read(), w.Organization(), item.ID, in.DataVersion.Value)
	if errors.Is(err, domain.ErrNotFound) {
		in.Fail("data_version", "field.not_found")
		return false, nil
	}
	return err == nil, err
}

// reuseAtEvent is the reuse state sent, or the item's own: reusable and
// refillable packaging counts as reusable.
func reuseAtEvent(item *catalog.CatalogItem, sent input.Opt[string]) string {
	switch {
	case sent.Set():
		return sent.Value
	case item.ReuseType == ReuseSingleUse:
		return ReuseSingleUse
	}
	return ReuseReusable
}

func nullDecimal(v input.Opt[decimal.Decimal]) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: v.Value, Valid: v.Set()}
}

// SupplyEventFilter narrows an item's events by direction and by date.
type SupplyEventFilter struct {
	input.Errors
	Direction input.Opt[string]
	Period
}

// Declare names the filter's parameters.
func (q *SupplyEventFilter) Declare(f *input.Fields) {
	f.Enum("direction", &q.Direction, input.Enum{Values: SupplyDirections})
	q.Period.declare(f, &q.Errors)
}

// Apply narrows q, a query of an item's supply events, by the filter.
func (q *SupplyEventFilter) Apply(db *gorm.DB) *gorm.DB {
	if q.Direction.Set() {
		db = db.Where("direction = ?", q.Direction.Value)
	}
	return q.Period.Apply(db)
}

// SupplySummaryQuery is the period a supply summary sums.
type SupplySummaryQuery struct {
	input.Errors
	Period
}

// Declare names the summary's parameters.
func (q *SupplySummaryQuery) Declare(f *input.Fields) { q.Period.declare(f, &q.Errors) }

// Period is an inclusive range of event dates; either end may be open.
type Period struct {
	From input.Opt[time.Time]
	To   input.Opt[time.Time]
}

func (p *Period) declare(f *input.Fields, errs *input.Errors) {
	f.Date("from", &p.From, input.Date{})
	f.Date("to", &p.To, input.Date{})
	if f.Binding() && p.From.Set() && p.To.Set() && !errs.Has("from") && !errs.Has("to") && p.To.Value.Before(p.From.Value) {
		f.Fail("to", "field.before_from")
	}
}

// Apply narrows q, a query of dated records, to the period.
func (p *Period) Apply(q *gorm.DB) *gorm.DB {
	if p.From.Set() {
		q = q.Where("event_on >= ?", p.From.Value)
	}
	if p.To.Set() {
		q = q.Where("event_on <= ?", p.To.Value)
	}
	return q
}

// DirectionTotal sums an item's supply events of one direction.
type DirectionTotal struct {
	Direction     string          `json:"direction"`
	Count         int64           `json:"count"`
	StockQuantity decimal.Decimal `json:"stock_quantity" schema:"signed"`
	MassG         decimal.Decimal `json:"mass_g"`
}

// SupplyTotals are the item's supply events in the period summed per
// direction, every direction listed (zero when none).
func SupplyTotals(w *work.Unit, itemID uuid.UUID, p *Period) ([]DirectionTotal, error) {
	var rows []DirectionTotal
	err := p.Apply(domain.Tenant(w.Context(), w.Read(), w.Organization()).Model(&SupplyEvent{})).
		Select("direction, count(*) AS count, sum(stock_quantity) AS stock_quantity, sum(mass_g) AS mass_g").
		Where("catalog_item_id = ?", itemID).Group("direction").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make([]DirectionTotal, len(SupplyDirections))
	for i, d := range SupplyDirections {
		out[i] = DirectionTotal{Direction: d}
		for _, r := range rows {
			if r.Direction == d {
				out[i] = r
			}
		}
	}
	return out, nil
}
