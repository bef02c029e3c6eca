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
	signed := kit.Schema{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`, "examples": []string{"12.5"}}
	return kit.Area{
		Operations: []kit.Operation{
			kit.Get("getInventory", kit.Org+"/catalog-items/{catalogItemId}/inventory", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Query(h.getInventory), kit.OK(kit.Ref("Inventory"))),
		},
		Schemas: map[string]kit.Schema{
			"Inventory": withDescription(kit.Object(map[string]kit.Schema{
				"catalog_item": kit.UUID(), "stock_unit": kit.Enum(catalog.StockUnits...), "stock_tracked": kit.Bool(),
				"revision": kit.Int(), "data_version": kit.UUID(),
				// Untracked items record what they use without refusing a
				// shortage, so their quantities may fall below zero.
				"stock": kit.Object(map[string]kit.Schema{"physical": signed, "reserved": signed, "available": signed}),
				"units": kit.ArrayOf(kit.Object(map[string]kit.Schema{
					"unit": kit.Enum(catalog.StockUnits...), "stock_units_per_unit": kit.DecimalString(),
				})),
			}), "schema.inventory"),
		},
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

type stockJSON struct {
	Physical  decimal.Decimal `json:"physical"`
	Reserved  decimal.Decimal `json:"reserved"`
	Available decimal.Decimal `json:"available"`
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
	c.JSON(http.StatusOK, gin.H{
		"catalog_item": inv.Item, "stock_unit": inv.StockUnit, "stock_tracked": inv.StockTracked, "revision": inv.Revision,
		"data_version": inv.DataVersion, "stock": stockJSON{inv.Physical, inv.Reserved, inv.Available()}, "units": inv.Units,
	})
	return nil
}
