package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/dictionaries"
	"ppwr/models"
)

type componentJSON struct {
	ID           uuid.UUID       `json:"id"`
	CatalogItem  uuid.UUID       `json:"catalogItem"`
	Name         string          `json:"name"`
	Role         string          `json:"role"`
	MaterialCode string          `json:"materialCode"`
	MassG        decimal.Decimal `json:"massG"`
	CreatedAt    time.Time       `json:"createdAt"`
}

func componentToJSON(m *models.Component) componentJSON {
	return componentJSON{ID: m.ID, CatalogItem: m.CatalogItemID, Name: m.Name, Role: m.Role,
		MaterialCode: m.MaterialCode, MassG: m.MassG, CreatedAt: m.CreatedAt.UTC()}
}

// listOfItem pages through the rows of T that belong to the path's item
// (and match where, when given).
func listOfItem[T any, R any](c *gin.Context, s *Server, where string, idOf func(*T) uuid.UUID, toJSON func(*T) R) error {
	item, err := s.loadItem(c, false)
	if err != nil {
		return err
	}
	q := s.DB.WithContext(c.Request.Context()).Model(new(T)).Where("catalog_item_id = ?", item.ID)
	if where != "" {
		q = q.Where(where)
	}
	return paginate(c, s, q, false, idOf, toJSON)
}

// getOfItem answers the row of T named by recordId, if it belongs to the
// path's item.
func getOfItem[T any, R any](c *gin.Context, s *Server, toJSON func(*T) R) error {
	item, err := s.loadItem(c, false)
	if err != nil {
		return err
	}
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	var row T
	if err := s.DB.WithContext(c.Request.Context()).Where("catalog_item_id = ? AND id = ?", item.ID, id).First(&row).Error; err != nil {
		return fromModel(err)
	}
	c.JSON(http.StatusOK, toJSON(&row))
	return nil
}

func (s *Server) listComponents(c *gin.Context) error {
	return listOfItem(c, s, "", func(m *models.Component) uuid.UUID { return m.ID }, componentToJSON)
}

func (s *Server) getComponent(c *gin.Context) error { return getOfItem(c, s, componentToJSON) }

// createComponent adds a component: the item gets a new revision (and data
// version) and its assessments become stale. An optional "revision" guards
// against adding to an item that changed since it was read.
func (s *Server) createComponent(c *gin.Context) error {
	item, err := s.activeItemForWrite(c)
	if err != nil {
		return err
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	name, _ := in.text("name", true, 200)
	role, _ := in.oneOf("role", true, models.ComponentRoles)
	material, _ := in.code("materialCode", true, dictionaries.Default().HasMaterial)
	mass, _ := in.positiveDecimal("massG", true)
	revision, sent := in.integer("revision", false)
	if err := in.err(); err != nil {
		return err
	}
	if sent && revision != item.Revision {
		return RevisionConflict()
	}
	comp := &models.Component{ID: models.NewID(), OrganizationID: item.OrganizationID, CatalogItemID: item.ID,
		Name: name, Role: role, MaterialCode: material, MassG: mass}
	if err := s.tx(c).Create(comp).Error; err != nil {
		return err
	}
	if err := s.bumpItem(c, item, map[string]any{"assessments_stale_since": time.Now().UTC()}); err != nil {
		return err
	}
	if err := s.itemChanged(c, item, "component.created"); err != nil {
		return err
	}
	setAuditRecord(c, "component", comp.ID)
	c.Header("Location", s.Config.PublicBaseURL+c.Request.URL.Path+"/"+comp.ID.String())
	c.JSON(http.StatusCreated, componentToJSON(comp))
	return nil
}

type dataVersionJSON struct {
	ID             uuid.UUID       `json:"id"`
	CatalogItem    uuid.UUID       `json:"catalogItem"`
	Revision       int             `json:"revision"`
	Specifications json.RawMessage `json:"specifications"`
	Components     json.RawMessage `json:"components"`
	Markets        json.RawMessage `json:"markets"`
	Hash           string          `json:"hash"`
	CreatedAt      time.Time       `json:"createdAt"`
}

func dataVersionToJSON(v *models.DataVersion) dataVersionJSON {
	return dataVersionJSON{ID: v.ID, CatalogItem: v.CatalogItemID, Revision: v.Revision,
		Specifications: json.RawMessage(v.Specifications), Components: json.RawMessage(v.Components),
		Markets: json.RawMessage(v.Markets), Hash: v.SHA256, CreatedAt: v.CreatedAt.UTC()}
}

func (s *Server) listDataVersions(c *gin.Context) error {
	return listOfItem(c, s, "", func(v *models.DataVersion) uuid.UUID { return v.ID }, dataVersionToJSON)
}

func (s *Server) getDataVersion(c *gin.Context) error { return getOfItem(c, s, dataVersionToJSON) }
