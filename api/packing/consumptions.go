package packing

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	a "ppwr/internal/access"
	"ppwr/models"
)

func (h *handlers) consumptions() kit.Area {
	created := func(schema string) kit.Response {
		// No Location: usages and packing consumptions are read through
		// their lists, not one by one.
		return kit.Response{Status: http.StatusCreated, Schema: kit.Ref(schema)}
	}
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("consumePackagingSystem", kit.Org+"/packaging-systems/{recordId}/consumptions", tag, a.FlowsWrite, a.CatalogUpdate).
				Handle(kit.JSON(h.consumePackagingSystem), created("PackagingSystemUsage")),
			kit.List("listPackagingSystemUsages", kit.Org+"/packaging-systems/{systemId}/usages", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Do(h.listPackagingSystemUsages), kit.OK(kit.Ref("PackagingSystemUsageList"))),
			kit.Post("createPackingConsumption", kit.Org+"/packing-consumptions", tag, a.FlowsWrite, a.CatalogUpdate).
				Handle(kit.JSON(h.createPackingConsumption), created("PackingConsumption")),
		},
		Schemas: map[string]kit.Schema{
			"PackagingSystemUsage": kit.Object(map[string]kit.Schema{
				"id": kit.UUID(), "packaging_system": kit.UUID(), "system_revision": kit.Int(),
				"configuration_hash": hashSchema(), "composition": compositionSchema(), "sets_count": kit.Int(),
				"order_reference": kit.Str(), "country": kit.Str(), "event_on": kit.Date(),
				"reservation": kit.Nullable(kit.UUID()), "created_at": kit.DateTime(),
			}),
			"PackagingSystemUsageList": kit.ListOf("PackagingSystemUsage"),
			"PackingConsumption": kit.Object(map[string]kit.Schema{
				"id": kit.UUID(), "order_reference": kit.Str(), "country": kit.Str(), "event_on": kit.Date(), "created_at": kit.DateTime(),
				"lines": kit.ArrayOf(kit.Object(map[string]kit.Schema{
					"item": kit.UUID(), "revision": kit.Int(), "data_version": kit.UUID(), "quantity": kit.DecimalString(),
					"unit": kit.Str(), "stock_quantity": kit.DecimalString(), "mass_g": kit.DecimalString(), "reusable": kit.Bool(),
				})),
			}),
		},
		Codes: []kit.Code{
			{Code: models.ErrInsufficientStock.Code, Status: http.StatusUnprocessableEntity},
			{Code: models.ErrOrderReferenceUsed.Code, Status: http.StatusConflict},
			{Code: models.ErrConfigurationChanged.Code, Status: http.StatusConflict},
			{Code: models.ErrSystemArchived.Code, Status: http.StatusUnprocessableEntity},
			{Code: models.ErrConfigurationNotReady.Code, Status: http.StatusUnprocessableEntity},
		},
	}
}

func hashSchema() kit.Schema { return kit.Schema{"type": "string", "pattern": "^[0-9a-f]{64}$"} }

// compositionSchema is a recipe as it was packed by (models.CompositionLine).
func compositionSchema() kit.Schema {
	return kit.ArrayOf(kit.Object(map[string]kit.Schema{
		"line": kit.UUID(), "item": kit.UUID(), "item_revision": kit.Int(), "data_version": kit.UUID(),
		"quantity": kit.DecimalString(), "unit": kit.Str(), "stock_quantity": kit.DecimalString(), "stock_unit": kit.Str(),
		"mass_g": kit.DecimalString(), "role": kit.Str(), "outer_packaging": kit.Bool(), "stock_tracked": kit.Bool(),
	}))
}

type usageJSON struct {
	ID                uuid.UUID                `json:"id"`
	PackagingSystem   uuid.UUID                `json:"packaging_system"`
	SystemRevision    int                      `json:"system_revision"`
	ConfigurationHash string                   `json:"configuration_hash"`
	Composition       []models.CompositionLine `json:"composition"`
	SetsCount         int                      `json:"sets_count"`
	OrderReference    string                   `json:"order_reference"`
	Country           string                   `json:"country"`
	EventOn           string                   `json:"event_on"`
	Reservation       *uuid.UUID               `json:"reservation"`
	CreatedAt         time.Time                `json:"created_at"`
}

func usageToJSON(u *models.PackagingSystemUsage) usageJSON {
	return usageJSON{ID: u.ID, PackagingSystem: u.PackagingSystemID, SystemRevision: u.SystemRevision,
		ConfigurationHash: u.ConfigurationHash, Composition: u.Composition, SetsCount: u.SetsCount,
		OrderReference: u.OrderReference, Country: u.Country, EventOn: u.EventOn.Format(time.DateOnly),
		Reservation: u.ReservationID, CreatedAt: u.CreatedAt.UTC()}
}

func (h *handlers) consumePackagingSystem(c *gin.Context, in *models.SetConsumption) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	u, err := models.ConsumeSets(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, usageToJSON(u))
	return nil
}

// listPackagingSystemUsages pages through a set's usages, newest first.
func (h *handlers) listPackagingSystemUsages(c *gin.Context) error {
	id, err := kit.PathID(c, "systemId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	if _, err := models.Find[models.PackagingSystem](ctx, h.DB, org, id); err != nil {
		return err
	}
	q := models.Tenant(ctx, h.DB, org).Model(&models.PackagingSystemUsage{}).Where("packaging_system_id = ?", id)
	return kit.Paginate(c, q, kit.NewestFirst, usageToJSON)
}

type packingLineJSON struct {
	Item          uuid.UUID       `json:"item"`
	Revision      int             `json:"revision"`
	DataVersion   uuid.UUID       `json:"data_version"`
	Quantity      decimal.Decimal `json:"quantity"`
	Unit          string          `json:"unit"`
	StockQuantity decimal.Decimal `json:"stock_quantity"`
	MassG         decimal.Decimal `json:"mass_g"`
	Reusable      bool            `json:"reusable"`
}

type packingConsumptionJSON struct {
	ID             uuid.UUID         `json:"id"`
	OrderReference string            `json:"order_reference"`
	Country        string            `json:"country"`
	EventOn        string            `json:"event_on"`
	Lines          []packingLineJSON `json:"lines"`
	CreatedAt      time.Time         `json:"created_at"`
}

func (h *handlers) createPackingConsumption(c *gin.Context, in *models.PackingConsumptionCreate) error {
	pc, err := models.CreatePackingConsumption(kit.Work(c), in)
	if err != nil {
		return err
	}
	out := packingConsumptionJSON{ID: pc.ID, OrderReference: pc.OrderReference, Country: pc.Country,
		EventOn: pc.EventOn.Format(time.DateOnly), CreatedAt: pc.CreatedAt.UTC(), Lines: make([]packingLineJSON, len(pc.Lines))}
	for i, l := range pc.Lines {
		out.Lines[i] = packingLineJSON{Item: l.CatalogItemID, Revision: l.CatalogRevision, DataVersion: l.DataVersionID,
			Quantity: l.Quantity, Unit: l.Unit, StockQuantity: l.StockQuantity, MassG: l.MassG, Reusable: l.Reusable}
	}
	c.JSON(http.StatusCreated, out)
	return nil
}
