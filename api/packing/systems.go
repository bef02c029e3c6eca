package packing

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/packing"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

func (h *handlers) systems() kit.Area {
	system := kit.Org + "/packaging-systems/{recordId}"
	answer := kit.OK(kit.Ref("PackagingSystem"))
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listPackagingSystems", kit.Org+"/packaging-systems", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Query(h.listSystems), kit.ListOK("PackagingSystem")),
			kit.Post("createPackagingSystem", kit.Org+"/packaging-systems", tag, a.CatalogWrite, a.CatalogCreate).
				Handle(kit.JSON(h.createSystem), kit.CreatedResponse(kit.Ref("PackagingSystem"), "getPackagingSystem")),
			kit.Get("getPackagingSystem", system, tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getSystem), answer),
			kit.Write(http.MethodPut, "updatePackagingSystem", system, tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(packing.ErrSystemArchived, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.updateSystem), answer),
			kit.Post("archivePackagingSystem", system+"/archive", tag, a.CatalogWrite, a.CatalogArchive).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(h.archiveSystem), answer),
			kit.Post("restorePackagingSystem", system+"/restore", tag, a.CatalogWrite, a.CatalogArchive).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(h.restoreSystem), answer),
			kit.Get("getPackagingSystemConfiguration", system+"/configuration", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getConfiguration), kit.OK(kit.Ref("PackagingSystemConfiguration"))),
			kit.Post("upsertPackagingSystemLine", system+"/items", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(packing.ErrSystemArchived, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.upsertLine), kit.CreatedResponse(kit.Ref("PackagingSystemLineChange"), "getPackagingSystemLine").Or(http.StatusOK)),
			kit.Write(http.MethodDelete, "deletePackagingSystemLine", system+"/items/{lineId}", tag, a.CatalogWrite, a.CatalogUpdate).
				Answers(packing.ErrSystemArchived, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.deleteLine), kit.OK(kit.Ref("PackagingSystemLineDeleted"))),
			kit.List("listPackagingSystemLines", kit.Org+"/packaging-systems/{systemId}/items", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.listLines), kit.ListOK("PackagingSystemLine")),
			kit.Get("getPackagingSystemLine", system+"/items/{lineId}", tag, a.CatalogRead, a.CatalogView).
				Handle(kit.Do(h.getLine), kit.OK(kit.Ref("PackagingSystemLine"))),
		},
		Models: []kit.Model{
			kit.ModelOf[systemJSON]("PackagingSystem"),
			kit.ModelOf[lineJSON]("PackagingSystemLine"),
			kit.ModelOf[lineChangeJSON]("PackagingSystemLineChange"),
			kit.ModelOf[lineDeletedJSON]("PackagingSystemLineDeleted"),
			kit.ModelOf[compositionLineJSON]("CompositionLine"),
			kit.ModelOf[configurationJSON]("PackagingSystemConfiguration").Described("schema.packaging_system_configuration"),
		},
	}
}

type systemJSON struct {
	ID          uuid.UUID  `json:"id"`
	Name        string     `json:"name"`
	Code        *string    `json:"code"`
	Description *string    `json:"description"`
	Status      string     `json:"status"`
	Revision    int        `json:"revision"`
	LinesCount  int        `json:"lines_count"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	ArchivedAt  *time.Time `json:"archived_at"`
}

func (systemJSON) Declare(s *kit.Shape) {
	s.Enum("status", packing.SystemActive, packing.SystemArchived)
}

func systemToJSON(s *packing.PackagingSystemView) systemJSON {
	out := systemJSON{ID: s.ID, Name: s.Name, Code: s.Code, Status: s.Status, Revision: s.Revision, LinesCount: s.LinesCount,
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(), ArchivedAt: s.ArchivedAt}
	if s.Description != "" {
		out.Description = &s.Description
	}
	if out.ArchivedAt != nil {
		at := out.ArchivedAt.UTC()
		out.ArchivedAt = &at
	}
	return out
}

// systemQuery filters the set list.
type systemQuery struct {
	input.Errors
	Archived input.Opt[bool]
}

func (q *systemQuery) Declare(f *input.Fields) { f.Bool("archived", &q.Archived, input.Bool{}) }

func (h *handlers) listSystems(c *gin.Context, q *systemQuery) error {
	db := packing.PackagingSystems(c.Request.Context(), h.DB, kit.OrgID(c))
	if q.Archived.Set() {
		status := packing.SystemActive
		if q.Archived.Value {
			status = packing.SystemArchived
		}
		db = db.Where("status = ?", status)
	}
	return kit.Paginate(c, db, kit.OldestFirst, systemToJSON)
}

func (h *handlers) getSystem(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	s, err := packing.FindPackagingSystem(c.Request.Context(), h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, systemToJSON(s))
	return nil
}

func (h *handlers) createSystem(c *gin.Context, in *packing.PackagingSystemCreate) error {
	s, err := packing.CreatePackagingSystem(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, s.ID, systemToJSON(s))
}

// changeSystem runs a command on the path's set and answers the set.
func changeSystem(c *gin.Context, command func(*work.Unit, uuid.UUID) (*packing.PackagingSystemView, error)) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	s, err := command(kit.Work(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, systemToJSON(s))
	return nil
}

func (h *handlers) updateSystem(c *gin.Context, in *packing.PackagingSystemUpdate) error {
	return changeSystem(c, func(w *work.Unit, id uuid.UUID) (*packing.PackagingSystemView, error) {
		return packing.UpdatePackagingSystem(w, id, in)
	})
}

func (h *handlers) archiveSystem(c *gin.Context, in *domain.RevisionOptional) error {
	return changeSystem(c, func(w *work.Unit, id uuid.UUID) (*packing.PackagingSystemView, error) {
		return packing.ArchivePackagingSystem(w, id, in)
	})
}

func (h *handlers) restoreSystem(c *gin.Context, in *domain.RevisionRequired) error {
	return changeSystem(c, func(w *work.Unit, id uuid.UUID) (*packing.PackagingSystemView, error) {
		return packing.RestorePackagingSystem(w, id, in)
	})
}

type lineJSON struct {
	Line            uuid.UUID       `json:"line"`
	PackagingSystem uuid.UUID       `json:"packaging_system"`
	Item            uuid.UUID       `json:"item"`
	Quantity        decimal.Decimal `json:"quantity"`
	Unit            string          `json:"unit"`
	Role            string          `json:"role"`
	OuterPackaging  bool            `json:"outer_packaging"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
}

func (lineJSON) Declare(s *kit.Shape) {
	s.Enum("unit", catalog.StockUnits...)
	s.Enum("role", packing.LineRoles...)
}

// lineChangeJSON is a changed line with its set's new revision.
type lineChangeJSON struct {
	lineJSON
	Revision int `json:"revision"`
}

type lineDeletedJSON struct {
	PackagingSystem uuid.UUID `json:"packaging_system"`
	Revision        int       `json:"revision"`
}

// compositionLineJSON is a line of a configuration's composition, with
// the vocabularies of its fields.
type compositionLineJSON struct{ packing.CompositionLine }

func (compositionLineJSON) Declare(s *kit.Shape) {
	s.Enum("unit", catalog.StockUnits...)
	s.Enum("stock_unit", catalog.StockUnits...)
	s.Enum("role", packing.LineRoles...)
}

// configurationJSON's fields are in the order of their names, the order
// the answer has always had.
type configurationJSON struct {
	AllStockTracked   bool                  `json:"all_stock_tracked"`
	AvailableSets     *int64                `json:"available_sets" schema:"min=0"`
	Composition       []compositionLineJSON `json:"composition"`
	ConfigurationHash string                `json:"configuration_hash" schema:"sha256"`
	Incomplete        []string              `json:"incomplete"`
	PackagingSystem   uuid.UUID             `json:"packaging_system"`
	Ready             bool                  `json:"ready"`
	Revision          int                   `json:"revision"`
}

func (configurationJSON) Declare(s *kit.Shape) {
	s.Enum("incomplete", packing.IncompleteNoLines, packing.IncompleteItemArchived, packing.IncompleteNoOuter)
}

func lineToJSON(l *packing.PackagingSystemLine) lineJSON {
	return lineJSON{Line: l.ID, PackagingSystem: l.PackagingSystemID, Item: l.CatalogItemID, Quantity: l.Quantity, Unit: l.Unit,
		Role: l.Role, OuterPackaging: l.OuterPackaging, CreatedAt: l.CreatedAt.UTC(), UpdatedAt: l.UpdatedAt.UTC()}
}

// listLines pages through the recipe lines of the path's set in the order
// they were added.
func (h *handlers) listLines(c *gin.Context) error {
	return listOfSystem(c, h, kit.OldestFirst, lineToJSON)
}

// getLine answers one recipe line of the path's set: the Location of a
// line the set's upsert added.
func (h *handlers) getLine(c *gin.Context) error {
	return kit.ShowOf(c, h.DB, "recordId", "lineId", packing.FindSystemLine, lineToJSON)
}

// upsertLine adds a line (201) or changes the one the body names (200),
// answering it with the set's new revision.
func (h *handlers) upsertLine(c *gin.Context, in *packing.PackagingSystemLineInput) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	line, sys, added, err := packing.UpsertPackagingSystemLine(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	body := lineChangeJSON{lineToJSON(line), sys.Revision}
	if added {
		return kit.Created(c, line.ID, body)
	}
	c.JSON(http.StatusOK, body)
	return nil
}

func (h *handlers) deleteLine(c *gin.Context, in *domain.RevisionRequired) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	lineID, err := kit.PathID(c, "lineId")
	if err != nil {
		return err
	}
	sys, err := packing.DeletePackagingSystemLine(kit.Work(c), id, lineID, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, lineDeletedJSON{PackagingSystem: sys.ID, Revision: sys.Revision})
	return nil
}

func (h *handlers) getConfiguration(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	cfg, err := packing.LoadConfiguration(readUnit(c, h.DB), id)
	if err != nil {
		return err
	}
	incomplete := cfg.Incomplete
	if incomplete == nil {
		incomplete = []string{}
	}
	composition := make([]compositionLineJSON, len(cfg.Composition))
	for i, l := range cfg.Composition {
		composition[i] = compositionLineJSON{l}
	}
	c.JSON(http.StatusOK, configurationJSON{
		PackagingSystem: cfg.System.ID, Revision: cfg.System.Revision, Composition: composition,
		ConfigurationHash: cfg.Hash, Ready: cfg.Ready, Incomplete: incomplete,
		AllStockTracked: cfg.AllStockTracked, AvailableSets: cfg.AvailableSets,
	})
	return nil
}
