package packing

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/packing"
	"ppwr/domain/stock"
	a "ppwr/internal/access"
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
				Answers(stock.ErrInsufficientStock, domain.ErrOrderReferenceUsed, packing.ErrConfigurationChanged,
					packing.ErrSystemArchived, packing.ErrConfigurationNotReady, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.consumePackagingSystem), created("PackagingSystemUsage")),
			kit.List("listPackagingSystemUsages", kit.Org+"/packaging-systems/{systemId}/usages", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Do(h.listPackagingSystemUsages), kit.ListOK("PackagingSystemUsage")),
			kit.Post("createPackingConsumption", kit.Org+"/packing-consumptions", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(stock.ErrInsufficientStock, domain.ErrOrderReferenceUsed, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.createPackingConsumption), created("PackingConsumption")),
		},
		Models: []kit.Model{kit.ModelOf[usageJSON]("PackagingSystemUsage"), kit.ModelOf[packingConsumptionJSON]("PackingConsumption")},
	}
}

// packedJSON are the fields a set usage and a reservation share.
type packedJSON struct {
	ID                uuid.UUID                 `json:"id"`
	PackagingSystem   uuid.UUID                 `json:"packaging_system"`
	SystemRevision    int                       `json:"system_revision"`
	ConfigurationHash string                    `json:"configuration_hash" schema:"sha256"`
	Composition       []packing.CompositionLine `json:"composition"`
	SetsCount         int                       `json:"sets_count"`
	OrderReference    string                    `json:"order_reference"`
	Country           string                    `json:"country"`
	CreatedAt         time.Time                 `json:"created_at"`
}

func packedToJSON(p *packing.PackedSets) packedJSON {
	return packedJSON{ID: p.ID, PackagingSystem: p.PackagingSystemID, SystemRevision: p.SystemRevision,
		ConfigurationHash: p.ConfigurationHash, Composition: p.Composition, SetsCount: p.SetsCount,
		OrderReference: p.OrderReference, Country: p.Country, CreatedAt: p.CreatedAt.UTC()}
}

type usageJSON struct {
	packedJSON
	EventOn     string     `json:"event_on" schema:"date"`
	Reservation *uuid.UUID `json:"reservation"`
}

func usageToJSON(u *packing.PackagingSystemUsage) usageJSON {
	return usageJSON{packedJSON: packedToJSON(&u.PackedSets), EventOn: u.EventOn.Format(time.DateOnly), Reservation: u.ReservationID}
}

// onRecord runs a command on the record named by the path parameter and
// answers what it returns with status.
func onRecord[T any, R any](c *gin.Context, param string, status int, command func(id uuid.UUID) (*T, error), render func(*T) R) error {
	id, err := kit.PathID(c, param)
	if err != nil {
		return err
	}
	row, err := command(id)
	if err != nil {
		return err
	}
	c.JSON(status, render(row))
	return nil
}

func (h *handlers) consumePackagingSystem(c *gin.Context, in *packing.SetConsumption) error {
	return onRecord(c, "recordId", http.StatusCreated, func(id uuid.UUID) (*packing.PackagingSystemUsage, error) {
		return packing.ConsumeSets(kit.Work(c), id, in)
	}, usageToJSON)
}

// listPackagingSystemUsages pages through a set's usages, newest first.
func (h *handlers) listPackagingSystemUsages(c *gin.Context) error {
	return listOfSystem(c, h, kit.NewestFirst, usageToJSON)
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
	EventOn        string            `json:"event_on" schema:"date"`
	Lines          []packingLineJSON `json:"lines"`
	CreatedAt      time.Time         `json:"created_at"`
}

func (h *handlers) createPackingConsumption(c *gin.Context, in *packing.PackingConsumptionCreate) error {
	pc, err := packing.CreatePackingConsumption(kit.Work(c), in)
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
