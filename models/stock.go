package models

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/shopspring/decimal"

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

// ApplyStock applies changes in w: it locks the balances of their items,
// refuses the lot if a tracked item would be short, and appends the
// movements. Several changes may concern one item; they are judged by
// their sum.
func ApplyStock(w *work.Unit, changes []StockChange) error {
	if len(changes) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(changes))
	for _, c := range changes {
		if !slices.Contains(ids, c.Item.ID) {
			ids = append(ids, c.Item.ID)
		}
	}
	balances, err := LockBalances(w, ids)
	if err != nil {
		return err
	}
	before := map[uuid.UUID]decimal.Decimal{}
	for _, b := range balances {
		before[b.CatalogItemID] = b.Available()
	}
	var short *RuleError
	stamp := now()
	for _, c := range changes {
		b := balances[c.Item.ID]
		b.Physical = b.Physical.Add(c.Physical)
		b.Reserved = b.Reserved.Add(c.Reserved)
		if b.Reserved.IsNegative() {
			return errors.New("stock: a release exceeds what is reserved")
		}
		after := b.Available()
		if c.Item.StockTracked && after.IsNegative() && after.LessThan(before[c.Item.ID]) {
			if short == nil {
				short = ErrInsufficientStock
			}
			short = short.On(c.Field, "field.insufficient_stock", before[c.Item.ID].String(), c.Item.StockUnit)
		}
		if err := w.Defer(&StockMovement{
			ID: NewID(), OrganizationID: w.Organization(), CatalogItemID: c.Item.ID, DataVersionID: c.DataVersion,
			Kind: c.Kind, PhysicalDelta: c.Physical, ReservedDelta: c.Reserved,
			SourceType: c.Source.Type, SourceID: c.Source.ID, CreatedAt: stamp,
		}); err != nil {
			return err
		}
	}
	if short != nil {
		return short
	}
	return saveBalances(w, balances)
}

// LockBalances locks the organization's balances of items, creating the
// missing ones, in item order so that no two requests deadlock.
func LockBalances(w *work.Unit, items []uuid.UUID) (map[uuid.UUID]*StockBalance, error) {
	keys := make(pq.StringArray, len(items))
	for i, id := range items {
		keys[i] = id.String()
	}
	slices.Sort(keys)
	lock := func() ([]StockBalance, error) {
		var rows []StockBalance
		err := w.Tx().Raw(`SELECT * FROM stock_balances WHERE catalog_item_id = ANY (?::uuid[]) AND organization_id = ?
			ORDER BY catalog_item_id FOR UPDATE`, keys, w.Organization()).Scan(&rows).Error
		return rows, err
	}
	rows, err := lock()
	if err != nil {
		return nil, err
	}
	if len(rows) < len(keys) {
		// A first movement: the balance rows appear in item order too;
		// a concurrent first movement of the same item waits here.
		if err := w.Tx().Exec(`INSERT INTO stock_balances (catalog_item_id, organization_id)
			SELECT k, ? FROM unnest(?::uuid[]) AS k ORDER BY k ON CONFLICT DO NOTHING`, w.Organization(), keys).Error; err != nil {
			return nil, err
		}
		if rows, err = lock(); err != nil {
			return nil, err
		}
	}
	out := make(map[uuid.UUID]*StockBalance, len(rows))
	for i := range rows {
		out[rows[i].CatalogItemID] = &rows[i]
	}
	return out, nil
}

// saveBalances writes the balances back in one statement.
func saveBalances(w *work.Unit, balances map[uuid.UUID]*StockBalance) error {
	var ids, physical, reserved pq.StringArray
	for _, b := range balances {
		ids = append(ids, b.CatalogItemID.String())
		physical = append(physical, b.Physical.String())
		reserved = append(reserved, b.Reserved.String())
	}
	return w.Tx().Exec(`UPDATE stock_balances AS b SET physical = v.physical, reserved = v.reserved, updated_at = now()
		FROM unnest(?::uuid[], ?::numeric[], ?::numeric[]) AS v (id, physical, reserved) WHERE b.catalog_item_id = v.id`,
		ids, physical, reserved).Error
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
