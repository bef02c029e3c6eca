package packing

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/api/kit"
	"ppwr/domain/catalog"
	"ppwr/domain/stock"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

func (h *handlers) inventory() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.Get("getInventory", kit.Org+"/catalog-items/{catalogItemId}/inventory", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Query(h.getInventory), kit.OK(kit.Ref("Inventory"))),
		},
		Models: []kit.Model{kit.ModelOf[inventoryJSON]("Inventory").Described("schema.inventory")},
	}
}

// readUnit is a unit of work for a read whose domain code takes one: it
// never begins a transaction nor commits.
func readUnit(c *gin.Context, db *gorm.DB) *work.Unit {
	cred := kit.Credential(c)
	return work.New(c.Request.Context(), db, work.Actor{
		Kind: work.ActorAPIKey, OrganizationID: cred.OrganizationID, UserID: &cred.UserID, APIKeyID: &cred.KeyID, Reference: kit.State(c).ID,
	})
}

// inventoryQuery selects a historical data version.
type inventoryQuery struct {
	input.Errors
	DataVersion input.Opt[uuid.UUID]
}

func (q *inventoryQuery) Declare(f *input.Fields) { f.Ref("data_version", &q.DataVersion, input.Ref{}) }

// stockJSON is an item's stock. Untracked items record what they use
// without refusing a shortage, so their quantities may fall below zero.
type stockJSON struct {
	Physical  decimal.Decimal `json:"physical" schema:"signed"`
	Reserved  decimal.Decimal `json:"reserved" schema:"signed"`
	Available decimal.Decimal `json:"available" schema:"signed"`
}

// inventoryJSON's fields are in the order of their names, the order the
// answer has always had.
type inventoryJSON struct {
	CatalogItem  uuid.UUID                `json:"catalog_item"`
	DataVersion  uuid.UUID                `json:"data_version"`
	Revision     int                      `json:"revision"`
	Stock        stockJSON                `json:"stock"`
	StockTracked bool                     `json:"stock_tracked"`
	StockUnit    string                   `json:"stock_unit"`
	Units        []catalog.UnitConversion `json:"units"`
}

func (inventoryJSON) Declare(s *kit.Shape) {
	s.Enum("stock_unit", catalog.StockUnits...)
	s.Enum("units.unit", catalog.StockUnits...)
}

func (h *handlers) getInventory(c *gin.Context, q *inventoryQuery) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	inv, err := stock.ReadInventory(readUnit(c, h.DB), id, q.DataVersion, "data_version")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, inventoryJSON{
		CatalogItem: inv.Item, StockUnit: inv.StockUnit, StockTracked: inv.StockTracked, Revision: inv.Revision,
		DataVersion: inv.DataVersion, Stock: stockJSON{inv.Physical, inv.Reserved, inv.Available()}, Units: inv.Units,
	})
	return nil
}
