package packing

import (
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/movements"
	"ppwr/domain/stock"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Packing consumptions record the packaging one parcel took, line by
// line, without a packing set: what an ERP or a warehouse system reports
// when it packs freely.

// PackingLinesMax is the most lines one parcel is packed with.
const PackingLinesMax = 100

// PackingConsumption is the packaging one parcel took.
type PackingConsumption struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	OrderReference string
	EventOn        time.Time `gorm:"type:date"`
	Country        string
	CreatedAt      time.Time
	Lines          []PackingConsumptionLine `gorm:"-"`
}

// PackingConsumptionLine is one item of a packing consumption, as sent
// and in the item's stock unit at the data version it was recorded on.
type PackingConsumptionLine struct {
	ID                   uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID       uuid.UUID `gorm:"type:uuid"`
	PackingConsumptionID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID        uuid.UUID `gorm:"type:uuid"`
	DataVersionID        uuid.UUID `gorm:"type:uuid"`
	CatalogRevision      int
	Quantity             decimal.Decimal
	Unit                 string
	StockQuantity        decimal.Decimal
	MassG                decimal.Decimal
	Reusable             bool
}

// PackingConsumptionCreate is the body of a packing consumption.
type PackingConsumptionCreate struct {
	input.Errors
	Parcel
	EventOn input.Opt[time.Time]
	Lines   []*PackingLine
}

// PackingLine is one line of a packing consumption's body.
type PackingLine struct {
	index    int
	Item     input.Opt[uuid.UUID]
	Revision input.Opt[int]
	Quantity input.Opt[decimal.Decimal]
	Unit     input.Opt[string]
	Reusable input.Opt[bool]
}

// Declare names the consumption's fields.
func (in *PackingConsumptionCreate) Declare(f *input.Fields) {
	in.Parcel.declare(f)
	movements.DeclareEventOn(f, &in.EventOn)
	in.Lines = nil
	f.Items("lines", input.Items{Required: true, MinItems: 1, MaxItems: PackingLinesMax}, func(i int, v *input.Fields) {
		l := &PackingLine{index: i}
		v.Ref("item", &l.Item, input.Ref{Required: true})
		v.Int("revision", &l.Revision, input.Revision(true))
		v.Decimal("quantity", &l.Quantity, input.Decimal{Required: true, Positive: true})
		v.Text("unit", &l.Unit, input.Text{Required: true, Max: 20})
		v.Bool("reusable", &l.Reusable, input.Bool{Required: true})
		in.Lines = append(in.Lines, l)
	})
}

func (l *PackingLine) field(name string) string { return "lines." + strconv.Itoa(l.index) + "." + name }

// CreatePackingConsumption records a packing consumption: it claims the
// parcel, stores the lines and takes every item from stock, all in w. A
// bad line or a shortage of any item records nothing.
func CreatePackingConsumption(w *work.Unit, in *PackingConsumptionCreate) (*PackingConsumption, error) {
	items, versions, err := packingItems(w, in)
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	for _, l := range in.Lines {
		if items[l.Item.Value].Revision != l.Revision.Value {
			return nil, domain.ErrRevisionConflict
		}
	}
	pc := &PackingConsumption{ID: domain.NewID(), OrganizationID: w.Organization(), OrderReference: in.OrderReference.Value,
		EventOn: in.EventOn.Value, Country: in.Country.Value, CreatedAt: domain.Now()}
	ClaimParcel(w, pc.OrderReference, PathPackingConsumption, pc.ID)
	source := work.Record{Type: "packing_consumption", ID: pc.ID}
	changes := make([]stock.StockChange, len(in.Lines))
	for i, l := range in.Lines {
		it := items[l.Item.Value]
		q, _ := it.ToStockUnit(l.Quantity.Value, l.Unit.Value)
		pc.Lines = append(pc.Lines, PackingConsumptionLine{
			ID: domain.NewID(), OrganizationID: pc.OrganizationID, PackingConsumptionID: pc.ID, CatalogItemID: it.ID,
			DataVersionID: versions[it.ID], CatalogRevision: it.Revision, Quantity: l.Quantity.Value, Unit: l.Unit.Value,
			StockQuantity: q, MassG: it.MassOf(q), Reusable: l.Reusable.Value,
		})
		changes[i] = stock.StockChange{Item: it, DataVersion: versions[it.ID], Kind: stock.MovementPackingConsumption,
			Physical: q.Neg(), Source: source, Field: l.field("quantity")}
	}
	if err := stock.ApplyStock(w, changes); err != nil {
		return nil, err
	}
	if err := w.Defer(pc); err != nil {
		return nil, err
	}
	for i := range pc.Lines {
		if err := w.Defer(&pc.Lines[i]); err != nil {
			return nil, err
		}
	}
	w.Touch("packing_consumption", pc.ID)
	return pc, domain.Emit(w, PackingConsumptionCreated{ID: pc.ID})
}

// packingItems reads the lines' items and records on in what is wrong
// with each line: an item that is not the organization's, archived or
// sent twice, or a unit it cannot convert.
func packingItems(w *work.Unit, in *PackingConsumptionCreate) (map[uuid.UUID]*catalog.CatalogItem, map[uuid.UUID]uuid.UUID, error) {
	var ids []uuid.UUID
	for _, l := range in.Lines {
		if l.Item.Set() {
			ids = append(ids, l.Item.Value)
		}
	}
	items, versions, err := currentItems(w, ids)
	if err != nil {
		return nil, nil, err
	}
	seen := map[uuid.UUID]bool{}
	for _, l := range in.Lines {
		if !l.Item.Set() {
			continue
		}
		it := items[l.Item.Value]
		switch {
		case it == nil:
			in.Fail(l.field("item"), "field.not_found")
		case seen[it.ID]:
			in.Fail(l.field("item"), "field.line_item_duplicate")
		case it.Status == catalog.ItemArchived:
			in.Fail(l.field("item"), "field.archived")
		default:
			catalog.UnitConverts(&in.Errors, l.field("unit"), it, l.Unit.Value)
		}
		if it != nil {
			seen[it.ID] = true
		}
	}
	return items, versions, nil
}
