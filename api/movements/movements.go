// Package movements is the spec's "Movements and flows" area: supply
// events that move an item's stock, the item's supply summary, and the
// reporting flows registers and reports count.
package movements

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/movements"
	"ppwr/domain/stock"
	a "ppwr/internal/access"
	"ppwr/internal/work"
)

const tag = "movements"

type handlers struct{ kit.Deps }

// Area declares the area's operations, schemas and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	events := kit.Org + "/catalog-items/{catalogItemId}/supply-events"
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listSupplyEvents", events, tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Query(h.listSupplyEvents), kit.ListOK("SupplyEvent")),
			kit.Get("getSupplyEvent", events+"/{recordId}", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Do(h.getSupplyEvent), kit.OK(kit.Ref("SupplyEvent"))),
			kit.Post("createSupplyEvent", events, tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(domain.ErrItemArchived, stock.ErrInsufficientStock, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.createSupplyEvent), kit.CreatedResponse(kit.Ref("SupplyEvent"), "getSupplyEvent")),
			kit.Get("getSupplySummary", kit.Org+"/catalog-items/{catalogItemId}/supply-summary", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Query(h.getSupplySummary), kit.OK(kit.Ref("SupplySummary"))),
			kit.List("listFlows", kit.Org+"/flows", tag, a.FlowsRead, a.ReportsView).
				Handle(kit.Query(h.listFlows), kit.ListOK("Flow")),
			kit.Get("getFlow", kit.Org+"/flows/{recordId}", tag, a.FlowsRead, a.ReportsView).
				Handle(kit.Do(h.getFlow), kit.OK(kit.Ref("Flow"))),
			kit.Post("createFlow", kit.Org+"/flows", tag, a.FlowsWrite, a.ReportsExport).
				Handle(kit.JSON(h.createFlow), kit.CreatedResponse(kit.Ref("Flow"), "getFlow")),
		},
		Models: []kit.Model{kit.ModelOf[supplyEventJSON]("SupplyEvent"), kit.ModelOf[summaryJSON]("SupplySummary"), kit.ModelOf[flowJSON]("Flow")},
	}
}

type supplyEventJSON struct {
	ID                   uuid.UUID           `json:"id"`
	CatalogItem          uuid.UUID           `json:"catalog_item"`
	DataVersion          uuid.UUID           `json:"data_version"`
	CatalogRevision      int                 `json:"catalog_revision"`
	Direction            string              `json:"direction"`
	Quantity             decimal.NullDecimal `json:"quantity"`
	Unit                 *string             `json:"unit"`
	QuantityUnits        decimal.NullDecimal `json:"quantity_units"`
	StockQuantity        decimal.Decimal     `json:"stock_quantity" schema:"signed"`
	StockUnit            string              `json:"stock_unit"`
	MassG                decimal.Decimal     `json:"mass_g"`
	CounterpartyName     *string             `json:"counterparty_name"`
	CounterpartyCountry  *string             `json:"counterparty_country"`
	CounterpartyAddress  *string             `json:"counterparty_address"`
	UsageChannel         *string             `json:"usage_channel"`
	TransactionReference *string             `json:"transaction_reference"`
	Note                 *string             `json:"note"`
	EventOn              string              `json:"event_on" schema:"date"`
	ReusableAtEvent      string              `json:"reusable_at_event"`
	Country              *string             `json:"country"`
	Flow                 *uuid.UUID          `json:"flow"`
	CreatedAt            time.Time           `json:"created_at"`
}

func (supplyEventJSON) Declare(s *kit.Shape) {
	s.Enum("direction", movements.SupplyDirections...)
	s.Enum("unit", catalog.StockUnits...)
	s.Enum("stock_unit", catalog.StockUnits...)
	s.Enum("usage_channel", movements.UsageChannels...)
	s.Enum("reusable_at_event", movements.ReuseStates...)
}

func supplyEventToJSON(e *movements.SupplyEvent) supplyEventJSON {
	return supplyEventJSON{
		ID: e.ID, CatalogItem: e.CatalogItemID, DataVersion: e.DataVersionID, CatalogRevision: e.CatalogRevision,
		Direction: e.Direction, Quantity: e.Quantity, Unit: e.Unit, QuantityUnits: e.QuantityUnits,
		StockQuantity: e.StockQuantity, StockUnit: e.StockUnit, MassG: e.MassG,
		CounterpartyName: e.CounterpartyName, CounterpartyCountry: e.CounterpartyCountry, CounterpartyAddress: e.CounterpartyAddress,
		UsageChannel: e.UsageChannel, TransactionReference: e.TransactionReference, Note: e.Note,
		EventOn: e.EventOn.Format(time.DateOnly), ReusableAtEvent: e.ReusableAtEvent, Country: e.Country,
		Flow: e.FlowID, CreatedAt: e.CreatedAt.UTC(),
	}
}

// item reads the path's catalogue item of the organization (404
// otherwise).
func (h *handlers) item(c *gin.Context) (*catalog.CatalogItem, error) {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return nil, err
	}
	return domain.Find[catalog.CatalogItem](c.Request.Context(), h.DB, kit.OrgID(c), id)
}

func (h *handlers) listSupplyEvents(c *gin.Context, q *movements.SupplyEventFilter) error {
	item, err := h.item(c)
	if err != nil {
		return err
	}
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&movements.SupplyEvent{}).Where("catalog_item_id = ?", item.ID)
	return kit.Paginate(c, q.Apply(db), kit.OldestFirst, supplyEventToJSON)
}

func (h *handlers) getSupplyEvent(c *gin.Context) error {
	return kit.ShowOf(c, h.DB, "catalogItemId", "recordId", domain.FindOfItem[movements.SupplyEvent], supplyEventToJSON)
}

func (h *handlers) createSupplyEvent(c *gin.Context, in *movements.SupplyEventCreate) error {
	itemID, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	e, _, err := movements.CreateSupplyEvent(kit.Work(c), itemID, in)
	if err != nil {
		return err
	}
	return kit.Created(c, e.ID, supplyEventToJSON(e))
}

// balanceJSON is an item's stock: an item that is not stock-tracked may
// use more than it has.
type balanceJSON struct {
	Physical  decimal.Decimal `json:"physical" schema:"signed"`
	Reserved  decimal.Decimal `json:"reserved"`
	Available decimal.Decimal `json:"available" schema:"signed"`
}

type summaryJSON struct {
	CatalogItem      uuid.UUID                  `json:"catalog_item"`
	StockUnit        string                     `json:"stock_unit"`
	StockTracked     bool                       `json:"stock_tracked"`
	From             *string                    `json:"from" schema:"date"`
	To               *string                    `json:"to" schema:"date"`
	Directions       []movements.DirectionTotal `json:"directions"`
	NetStockQuantity decimal.Decimal            `json:"net_stock_quantity" schema:"signed"`
	Balance          balanceJSON                `json:"balance"`
}

func (summaryJSON) Declare(s *kit.Shape) {
	s.Enum("stock_unit", catalog.StockUnits...)
	s.Enum("directions.direction", movements.SupplyDirections...)
}

// getSupplySummary sums the item's supply events of the period per
// direction, beside its current balance (which the period does not
// narrow: it also counts packing and reservations).
func (h *handlers) getSupplySummary(c *gin.Context, q *movements.SupplySummaryQuery) error {
	item, err := h.item(c)
	if err != nil {
		return err
	}
	// A read: the unit never begins a transaction.
	w := work.New(c.Request.Context(), h.DB, work.Actor{Kind: work.ActorAPIKey, OrganizationID: kit.OrgID(c)})
	totals, err := movements.SupplyTotals(w, item.ID, &q.Period)
	if err != nil {
		return err
	}
	b, err := stock.Balance(w, item.ID)
	if err != nil {
		return err
	}
	net := decimal.Zero
	for _, t := range totals {
		net = net.Add(t.StockQuantity)
	}
	c.JSON(http.StatusOK, summaryJSON{
		CatalogItem: item.ID, StockUnit: item.StockUnit, StockTracked: item.StockTracked,
		From: dateOrNull(q.From.Set(), q.From.Value), To: dateOrNull(q.To.Set(), q.To.Value),
		Directions: totals, NetStockQuantity: net,
		Balance: balanceJSON{Physical: b.Physical, Reserved: b.Reserved, Available: b.Available()},
	})
	return nil
}

func dateOrNull(set bool, d time.Time) *string {
	if !set {
		return nil
	}
	s := d.Format(time.DateOnly)
	return &s
}

type flowJSON struct {
	ID          uuid.UUID       `json:"id"`
	Item        uuid.UUID       `json:"item"`
	DataVersion uuid.UUID       `json:"data_version"`
	Kind        string          `json:"kind"`
	Quantity    decimal.Decimal `json:"quantity"`
	Unit        string          `json:"unit"`
	MassG       decimal.Decimal `json:"mass_g"`
	Country     string          `json:"country"`
	EventOn     string          `json:"event_on" schema:"date"`
	Reusable    bool            `json:"reusable"`
	SupplyEvent *uuid.UUID      `json:"supply_event"`
	Note        *string         `json:"note"`
	// The counterparty the packaging was supplied to (PPWR Art. 22).
	CounterpartyName    *string   `json:"counterparty_name"`
	CounterpartyCountry *string   `json:"counterparty_country"`
	CounterpartyAddress *string   `json:"counterparty_address"`
	CreatedAt           time.Time `json:"created_at"`
}

func (flowJSON) Declare(s *kit.Shape) {
	s.Enum("kind", movements.FlowKinds...)
	s.Enum("unit", catalog.StockUnits...)
}

func flowToJSON(f *movements.Flow) flowJSON {
	return flowJSON{
		ID: f.ID, Item: f.CatalogItemID, DataVersion: f.DataVersionID, Kind: f.Kind, Quantity: f.Quantity, Unit: f.Unit,
		MassG: f.MassG, Country: f.Country, EventOn: f.EventOn.Format(time.DateOnly), Reusable: f.Reusable,
		SupplyEvent: f.SupplyEventID, Note: f.Note, CounterpartyName: f.CounterpartyName, CounterpartyCountry: f.CounterpartyCountry,
		CounterpartyAddress: f.CounterpartyAddress, CreatedAt: f.CreatedAt.UTC(),
	}
}

func (h *handlers) listFlows(c *gin.Context, q *movements.FlowFilter) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&movements.Flow{})
	return kit.Paginate(c, q.Apply(db), kit.OldestFirst, flowToJSON)
}

func (h *handlers) getFlow(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", flowToJSON)
}

func (h *handlers) createFlow(c *gin.Context, in *movements.FlowCreate) error {
	f, err := movements.CreateFlow(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, f.ID, flowToJSON(f))
}
