package models

import (
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/internal/input"
	"ppwr/internal/work"
)

// The stock ledger. Every stock change appends a movement citing the
// item's data version, and changes the item's balance row under a row
// lock taken in item order, so concurrent requests take the same stock one
// after another and never deadlock. A balance always equals the sums of
// its movements; an item's available stock is physical minus reserved.
// Only stock-tracked items refuse a change that leaves too little
// available: the others record movements for reporting without a balance
// anyone relies on.

// Kinds of stock movement.
const (
	MovementSupply             = "supply_event"
	MovementSetConsumption     = "set_consumption"
	MovementPackingConsumption = "packing_consumption"
	MovementReservationHold    = "reservation_hold"
	MovementReservationRelease = "reservation_release"
	MovementReservationConsume = "reservation_consume"
)

// StockBalance is an item's stock in its stock unit.
type StockBalance struct {
	CatalogItemID  uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Physical       decimal.Decimal
	Reserved       decimal.Decimal
	UpdatedAt      time.Time
}

// Available is the stock neither used nor held by a reservation.
func (b *StockBalance) Available() decimal.Decimal { return b.Physical.Sub(b.Reserved) }

// StockMovement is one appended change of an item's stock.
type StockMovement struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	DataVersionID  uuid.UUID `gorm:"type:uuid"`
	Kind           string
	PhysicalDelta  decimal.Decimal
	ReservedDelta  decimal.Decimal
	SourceType     string
	SourceID       uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
}

// StockChange is a change of one item's stock that a command asks for.
// Field is the request field a shortage is reported on.
type StockChange struct {
	Item        *CatalogItem
	DataVersion uuid.UUID
	Kind        string
	Physical    decimal.Decimal
	Reserved    decimal.Decimal
	Source      work.Record
	Field       string
}

// ErrInsufficientStock refuses a change that would leave a stock-tracked
// item with less than nothing available.
var ErrInsufficientStock = &RuleError{Code: "insufficient_stock", Key: "error.insufficient_stock"}

// ApplyStock applies changes in w: it appends their movements, and moves
// the balances of their items as w's last step before it commits, refusing
// the lot if a tracked item would be short. Several changes may concern
// one item; they are judged by their sum. Many requests wait for the same
// balance rows (every parcel packed from one set), so the rows are locked
// for that one statement and the commit, not while the rest of the
// request's work is done and written.
func ApplyStock(w *work.Unit, changes []StockChange) error {
	if len(changes) == 0 {
		return nil
	}
	stamp, org := now(), w.Organization()
	net := map[uuid.UUID]*stockDelta{}
	var items []uuid.UUID
	for _, c := range changes {
		if err := w.Defer(&StockMovement{
			ID: NewID(), OrganizationID: org, CatalogItemID: c.Item.ID, DataVersionID: c.DataVersion,
			Kind: c.Kind, PhysicalDelta: c.Physical, ReservedDelta: c.Reserved,
			SourceType: c.Source.Type, SourceID: c.Source.ID, CreatedAt: stamp,
		}); err != nil {
			return err
		}
		d, ok := net[c.Item.ID]
		if !ok {
			d = &stockDelta{}
			net[c.Item.ID] = d
			items = append(items, c.Item.ID)
		}
		d.physical, d.reserved = d.physical.Add(c.Physical), d.reserved.Add(c.Reserved)
	}
	ids, physical, reserved := make(pq.StringArray, len(items)), make(pq.StringArray, len(items)), make(pq.StringArray, len(items))
	for i, id := range items {
		ids[i], physical[i], reserved[i] = id.String(), net[id].physical.String(), net[id].reserved.String()
	}
	// An item's first movement creates its balance, with the movements:
	// taking no lock on a balance that exists, this waits for nobody.
	w.DeferExec(`INSERT INTO stock_balances (catalog_item_id, organization_id) SELECT k, $1 FROM unnest($2::uuid[]) AS k
		ORDER BY k ON CONFLICT DO NOTHING`, org, ids)
	w.Last(func(tx *gorm.DB) error {
		balances, err := moveBalances(tx, org, ids, physical, reserved)
		if err != nil {
			return err
		}
		return refuseShortage(changes, balances, net)
	})
	return nil
}

// stockDelta is the sum of a unit's changes of one item's stock.
type stockDelta struct{ physical, reserved decimal.Decimal }

// moveBalances adds the changes physical and reserved to the
// organization's balances of the items ids in one statement, which first
// locks the rows in item order so that no two units deadlock, and answers
// the balances after.
func moveBalances(tx *gorm.DB, org uuid.UUID, ids, physical, reserved pq.StringArray) ([]StockBalance, error) {
	var balances []StockBalance
	err := tx.Raw(`WITH locked AS MATERIALIZED (SELECT catalog_item_id FROM stock_balances
			WHERE organization_id = ? AND catalog_item_id = ANY (?::uuid[]) ORDER BY catalog_item_id FOR UPDATE)
		UPDATE stock_balances AS b SET physical = b.physical + v.physical, reserved = b.reserved + v.reserved, updated_at = now()
		FROM locked JOIN unnest(?::uuid[], ?::numeric[], ?::numeric[]) AS v (id, physical, reserved) ON v.id = locked.catalog_item_id
		WHERE b.catalog_item_id = locked.catalog_item_id
		RETURNING b.*`, org, ids, ids, physical, reserved).Scan(&balances).Error
	if err == nil && len(balances) != len(ids) {
		err = errors.New("stock: an item's balance belongs to another organization")
	}
	return balances, err
}

// refuseShortage refuses the changes if they left a tracked item short of
// stock by lowering its available stock, naming each such change's field.
func refuseShortage(changes []StockChange, balances []StockBalance, net map[uuid.UUID]*stockDelta) error {
	after := make(map[uuid.UUID]decimal.Decimal, len(balances))
	for _, b := range balances {
		after[b.CatalogItemID] = b.Available()
	}
	var short *RuleError
	for _, c := range changes {
		d, left := net[c.Item.ID], after[c.Item.ID]
		before := left.Sub(d.physical).Add(d.reserved)
		if c.Item.StockTracked && left.IsNegative() && left.LessThan(before) {
			if short == nil {
				short = ErrInsufficientStock
			}
			short = short.On(c.Field, "field.insufficient_stock", before.String(), c.Item.StockUnit)
		}
	}
	if short != nil {
		return short
	}
	return nil
}

// Balance reads an item's balance without a lock; an item that never moved
// has an empty one.
func Balance(w *work.Unit, itemID uuid.UUID) (*StockBalance, error) {
	b, err := take[StockBalance](Tenant(w.Context(), w.Read(), w.Organization()).Where("catalog_item_id = ?", itemID))
	if errors.Is(err, ErrNotFound) {
		return &StockBalance{CatalogItemID: itemID, OrganizationID: w.Organization()}, nil
	}
	return b, err
}

// Unit conversion. Quantities are kept in the item's stock unit; a request
// may also state a quantity in kilograms, which the item's mass per stock
// unit converts. Nothing else converts: a metre of tape is not a piece.

// UnitKG is the unit every item converts to through its mass.
const UnitKG = "kg"

// conversionScale is the number of decimal places a converted quantity
// keeps: the decimals a request may send.
const conversionScale = input.DecimalFractionDigits

// UnitConversion says how many of the item's stock units one Unit is.
type UnitConversion struct {
	Unit          string          `json:"unit"`
	StockUnitsPer decimal.Decimal `json:"stock_units_per_unit"`
}

// Conversions are the units an item's quantities may be stated in.
func (i *CatalogItem) Conversions() []UnitConversion {
	out := []UnitConversion{{Unit: i.StockUnit, StockUnitsPer: decimal.NewFromInt(1)}}
	if i.StockUnit != UnitKG {
		out = append(out, UnitConversion{Unit: UnitKG, StockUnitsPer: decimal.NewFromInt(1000).DivRound(i.MassG, conversionScale)})
	}
	return out
}

// ToStockUnit converts quantity in unit to the item's stock unit; false
// when the item cannot convert from unit.
func (i *CatalogItem) ToStockUnit(quantity decimal.Decimal, unit string) (decimal.Decimal, bool) {
	switch unit {
	case i.StockUnit:
		return quantity, true
	case UnitKG:
		return quantity.Mul(decimal.NewFromInt(1000)).DivRound(i.MassG, conversionScale), true
	}
	return decimal.Decimal{}, false
}

// unitConverts fails field, which holds unit, when the item cannot
// convert unit to its stock unit, naming the units it can; "" is no unit
// to check.
func unitConverts(errs *input.Errors, field string, item *CatalogItem, unit string) {
	if unit == "" || errs.Has(field) {
		return
	}
	if _, ok := item.ToStockUnit(decimal.Zero, unit); !ok {
		units := make([]string, 0, 2)
		for _, c := range item.Conversions() {
			units = append(units, c.Unit)
		}
		errs.Fail(field, "field.unit_not_convertible", strings.Join(units, ", "))
	}
}

// MassOf is the mass in grams of quantity stock units of the item.
func (i *CatalogItem) MassOf(quantity decimal.Decimal) decimal.Decimal { return quantity.Mul(i.MassG) }

// CurrentDataVersion is the id of the data version of the item's current
// revision: what a stock movement or a flow recorded now cites.
func CurrentDataVersion(w *work.Unit, item *CatalogItem) (uuid.UUID, error) {
	var v DataVersion
	err := Tenant(w.Context(), w.Read(), w.Organization()).Select("id").
		Where("catalog_item_id = ? AND revision = ?", item.ID, item.Revision).Take(&v).Error
	return v.ID, err
}
