package catalog

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// catalogItemJSON is the catalogue item resource (camelCase, as the spec's
// catalogue fields are).
type catalogItemJSON struct {
	ID uuid.UUID `json:"id"`
	catalog.ItemSpecifications
	Folder           *uuid.UUID `json:"folder"`
	Family           *uuid.UUID `json:"family"`
	Revision         int        `json:"revision"`
	AssessmentsStale bool       `json:"assessmentsStale"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
	ArchivedAt       *time.Time `json:"archivedAt"`
}

func (catalogItemJSON) Declare(s *kit.Shape) {
	s.Enum("sourcingType", catalog.SourcingTypes...)
	s.Enum("stockUnit", catalog.StockUnits...)
	s.Enum("foodContactStatus", catalog.FoodContactStatuses...)
	s.Enum("reuseType", catalog.ReuseTypes...)
	s.Enum("status", catalog.ItemActive, catalog.ItemArchived)
}

func catalogItemToJSON(i *catalog.CatalogItem) catalogItemJSON {
	return catalogItemJSON{
		ID: i.ID, ItemSpecifications: i.Specifications(), Folder: i.FolderID, Family: i.FamilyID,
		Revision: i.Revision, AssessmentsStale: i.AssessmentsStaleSince != nil,
		CreatedAt: i.CreatedAt.UTC(), UpdatedAt: i.UpdatedAt.UTC(), ArchivedAt: i.ArchivedAt,
	}
}

// item answers an item with its ETag, or the error of the command that
// made it.
func item(c *gin.Context, status int, it *catalog.CatalogItem, err error) error {
	if err != nil {
		return err
	}
	c.Header("ETag", kit.ETag(it.Revision))
	if status == http.StatusCreated {
		return kit.Created(c, it.ID, catalogItemToJSON(it))
	}
	c.JSON(status, catalogItemToJSON(it))
	return nil
}

// itemQuery filters the catalogue list.
type itemQuery struct {
	input.Errors
	Archived input.Opt[bool]
	Folder   input.Opt[uuid.UUID]
	Family   input.Opt[uuid.UUID]
	Q        input.Opt[string]
}

// searchMax bounds the search term.
const searchMax = 200

func (q *itemQuery) Declare(f *input.Fields) {
	f.Bool("archived", &q.Archived, input.Bool{})
	f.Ref("folder", &q.Folder, input.Ref{})
	f.Ref("family", &q.Family, input.Ref{})
	f.Text("q", &q.Q, input.Text{Max: searchMax})
}

func (h *handlers) listCatalogItems(c *gin.Context, q *itemQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&catalog.CatalogItem{})
	if q.Archived.Set() {
		status := catalog.ItemActive
		if q.Archived.Value {
			status = catalog.ItemArchived
		}
		db = db.Where("status = ?", status)
	}
	if q.Folder.Set() {
		db = db.Where("folder_id = ?", q.Folder.Value)
	}
	if q.Family.Set() {
		db = db.Where("family_id = ?", q.Family.Value)
	}
	if q.Q.Value != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q.Q.Value) + "%"
		db = db.Where("(internal_code ILIKE ? OR name ILIKE ?)", like, like)
	}
	return kit.Paginate(c, db, kit.OldestFirst, catalogItemToJSON)
}

func (h *handlers) createCatalogItem(c *gin.Context, in *catalog.CatalogItemCreate) error {
	it, err := catalog.CreateCatalogItem(kit.Work(c), in)
	return item(c, http.StatusCreated, it, err)
}

func (h *handlers) getCatalogItem(c *gin.Context) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	it, err := domain.Find[catalog.CatalogItem](c.Request.Context(), h.DB, kit.OrgID(c), id)
	return item(c, http.StatusOK, it, err)
}

func (h *handlers) updateCatalogItem(c *gin.Context, in *catalog.CatalogItemPatch) error {
	expected, err := kit.IfMatch(c)
	if err != nil {
		return err
	}
	return changeItem(c, func(w *work.Unit, id uuid.UUID) (*catalog.CatalogItem, error) {
		return catalog.UpdateCatalogItem(w, id, expected, in)
	})
}

func (h *handlers) archiveCatalogItem(c *gin.Context, in *domain.RevisionOptional) error {
	return changeItem(c, func(w *work.Unit, id uuid.UUID) (*catalog.CatalogItem, error) {
		return catalog.ArchiveCatalogItem(w, id, in)
	})
}

func (h *handlers) restoreCatalogItem(c *gin.Context, in *domain.RevisionRequired) error {
	return changeItem(c, func(w *work.Unit, id uuid.UUID) (*catalog.CatalogItem, error) {
		return catalog.RestoreCatalogItem(w, id, in)
	})
}

// changeItem runs a command on the path's item and answers the item.
func changeItem(c *gin.Context, command func(*work.Unit, uuid.UUID) (*catalog.CatalogItem, error)) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	it, err := command(kit.Work(c), id)
	return item(c, http.StatusOK, it, err)
}

type componentJSON struct {
	ID           uuid.UUID       `json:"id"`
	CatalogItem  uuid.UUID       `json:"catalogItem"`
	Name         string          `json:"name"`
	Role         string          `json:"role"`
	MaterialCode string          `json:"materialCode"`
	MassG        decimal.Decimal `json:"massG"`
	CreatedAt    time.Time       `json:"createdAt"`
}

func (componentJSON) Declare(s *kit.Shape) { s.Enum("role", catalog.ComponentRoles...) }

func componentToJSON(m *catalog.Component) componentJSON {
	return componentJSON{ID: m.ID, CatalogItem: m.CatalogItemID, Name: m.Name, Role: m.Role,
		MaterialCode: m.MaterialCode, MassG: m.MassG, CreatedAt: m.CreatedAt.UTC()}
}

// listOfItem pages through the rows of T that belong to the path's item
// (and match where, when given).
func listOfItem[T any, R any](c *gin.Context, h *handlers, where string, render func(*T) R) error {
	itemID, err := h.pathItem(c)
	if err != nil {
		return err
	}
	q := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(new(T)).Where("catalog_item_id = ?", itemID)
	if where != "" {
		q = q.Where(where)
	}
	return kit.Paginate(c, q, kit.OldestFirst, render)
}

// getOfItem answers the row of T named by recordId, if it belongs to the
// path's item.
func getOfItem[T any, R any](c *gin.Context, h *handlers, render func(*T) R) error {
	itemID, err := h.pathItem(c)
	if err != nil {
		return err
	}
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	row, err := domain.FindOfItem[T](c.Request.Context(), h.DB, kit.OrgID(c), itemID, id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, render(row))
	return nil
}

// pathItem is the organization's item named by the path.
func (h *handlers) pathItem(c *gin.Context) (uuid.UUID, error) {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return uuid.Nil, err
	}
	_, err = domain.Find[catalog.CatalogItem](c.Request.Context(), h.DB, kit.OrgID(c), id)
	return id, err
}

func (h *handlers) listComponents(c *gin.Context) error {
	return listOfItem(c, h, "", componentToJSON)
}

func (h *handlers) getComponent(c *gin.Context) error { return getOfItem(c, h, componentToJSON) }

func (h *handlers) createComponent(c *gin.Context, in *catalog.ComponentCreate) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	comp, err := catalog.CreateComponent(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	return kit.Created(c, comp.ID, componentToJSON(comp))
}

// dataVersionJSON is a data version as it was frozen: its parts are
// answered as stored.
type dataVersionJSON struct {
	ID             uuid.UUID       `json:"id"`
	CatalogItem    uuid.UUID       `json:"catalogItem"`
	Revision       int             `json:"revision"`
	Specifications json.RawMessage `json:"specifications" schema:"object"`
	Components     json.RawMessage `json:"components" schema:"objects"`
	Markets        json.RawMessage `json:"markets" schema:"objects"`
	Hash           string          `json:"hash" schema:"sha256"`
	CreatedAt      time.Time       `json:"createdAt"`
}

func dataVersionToJSON(v *catalog.DataVersion) dataVersionJSON {
	return dataVersionJSON{ID: v.ID, CatalogItem: v.CatalogItemID, Revision: v.Revision,
		Specifications: json.RawMessage(v.Specifications), Components: json.RawMessage(v.Components),
		Markets: json.RawMessage(v.Markets), Hash: v.SHA256, CreatedAt: v.CreatedAt.UTC()}
}

func (h *handlers) listDataVersions(c *gin.Context) error {
	return listOfItem(c, h, "", dataVersionToJSON)
}

func (h *handlers) getDataVersion(c *gin.Context) error { return getOfItem(c, h, dataVersionToJSON) }

// marketJSON is a market scenario (snake_case, as the markets body is).
type marketJSON struct {
	ID             uuid.UUID  `json:"id"`
	CatalogItem    uuid.UUID  `json:"catalog_item"`
	Country        string     `json:"country"`
	OriginCountry  *string    `json:"origin_country"`
	EconomicRole   *string    `json:"economic_role"`
	AssessmentDate *string    `json:"assessment_date" schema:"date"`
	Active         bool       `json:"active"`
	CreatedAt      time.Time  `json:"created_at"`
	DeactivatedAt  *time.Time `json:"deactivated_at"`
}

func marketToJSON(m *catalog.MarketScenario) marketJSON {
	out := marketJSON{ID: m.ID, CatalogItem: m.CatalogItemID, Country: m.CountryCode, OriginCountry: m.OriginCountry,
		EconomicRole: m.EconomicRole, Active: m.Active, CreatedAt: m.CreatedAt.UTC(), DeactivatedAt: m.DeactivatedAt}
	if m.AssessmentDate != nil {
		d := m.AssessmentDate.Format(time.DateOnly)
		out.AssessmentDate = &d
	}
	return out
}

// listMarkets pages through the item's active scenarios.
func (h *handlers) listMarkets(c *gin.Context) error {
	return listOfItem(c, h, "active", marketToJSON)
}

// getMarket reads one scenario, active or not: registers may cite a
// scenario that a later PUT replaced.
func (h *handlers) getMarket(c *gin.Context) error { return getOfItem(c, h, marketToJSON) }

func (h *handlers) replaceMarkets(c *gin.Context, in *catalog.MarketsReplace) error {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	revision, scenarios, err := catalog.ReplaceMarkets(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	out := make([]marketJSON, len(scenarios))
	for i := range scenarios {
		out[i] = marketToJSON(&scenarios[i])
	}
	c.JSON(http.StatusOK, marketsResultJSON{MarketRevision: revision, Markets: out})
	return nil
}

// marketsResultJSON is the item's scenarios after a replacement, with the
// revision the replacement made.
type marketsResultJSON struct {
	MarketRevision int          `json:"market_revision"`
	Markets        []marketJSON `json:"markets"`
}
