package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/internal/dictionaries"
	"ppwr/models"
)

// catalogItemJSON is the catalogue item resource (camelCase, as the spec's
// catalogue fields are).
type catalogItemJSON struct {
	ID                uuid.UUID       `json:"id"`
	InternalCode      string          `json:"internalCode"`
	Name              string          `json:"name"`
	SourcingType      string          `json:"sourcingType"`
	MassG             decimal.Decimal `json:"massG"`
	MainMaterialCode  string          `json:"mainMaterialCode"`
	StockUnit         string          `json:"stockUnit"`
	StockTracked      bool            `json:"stockTracked"`
	FoodContactStatus string          `json:"foodContactStatus"`
	ReuseType         string          `json:"reuseType"`
	Folder            *uuid.UUID      `json:"folder"`
	Family            *uuid.UUID      `json:"family"`
	Status            string          `json:"status"`
	Revision          int             `json:"revision"`
	AssessmentsStale  bool            `json:"assessmentsStale"`
	CreatedAt         time.Time       `json:"createdAt"`
	UpdatedAt         time.Time       `json:"updatedAt"`
	ArchivedAt        *time.Time      `json:"archivedAt"`
}

func catalogItemToJSON(i *models.CatalogItem) catalogItemJSON {
	return catalogItemJSON{
		ID: i.ID, InternalCode: i.InternalCode, Name: i.Name, SourcingType: i.SourcingType, MassG: i.MassG,
		MainMaterialCode: i.MainMaterialCode, StockUnit: i.StockUnit, StockTracked: i.StockTracked,
		FoodContactStatus: i.FoodContactStatus, ReuseType: i.ReuseType, Folder: i.FolderID, Family: i.FamilyID,
		Status: i.Status, Revision: i.Revision, AssessmentsStale: i.AssessmentsStaleSince != nil,
		CreatedAt: i.CreatedAt.UTC(), UpdatedAt: i.UpdatedAt.UTC(), ArchivedAt: i.ArchivedAt,
	}
}

// etag is the item's entity tag: its revision, quoted.
func etag(revision int) string { return `"` + strconv.Itoa(revision) + `"` }

// respondItem answers with the item and its ETag.
func respondItem(c *gin.Context, status int, item *models.CatalogItem) {
	c.Header("ETag", etag(item.Revision))
	c.JSON(status, catalogItemToJSON(item))
}

// pathID parses a path id; a malformed one is simply not found.
func pathID(c *gin.Context, name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil, NotFound()
	}
	return id, nil
}

// orgID is the organization of the request's key.
func orgID(c *gin.Context) uuid.UUID { return credentialOf(c).OrganizationID }

// itemFields reads the writable fields of an item; on create every field
// but folder and family is required, on PATCH only the sent ones are read.
// It returns the column updates.
func (s *Server) itemFields(c *gin.Context, in *input, create bool) (map[string]any, error) {
	dict := dictionaries.Default()
	set := map[string]any{}
	if v, ok := in.text("internalCode", create, 100); ok {
		set["internal_code"] = v
	}
	if v, ok := in.text("name", create, 300); ok {
		set["name"] = v
	}
	if v, ok := in.oneOf("sourcingType", create, models.SourcingTypes); ok {
		set["sourcing_type"] = v
	}
	if v, ok := in.positiveDecimal("massG", create); ok {
		set["mass_g"] = v
	}
	if v, ok := in.code("mainMaterialCode", create, dict.HasMaterial); ok {
		set["main_material_code"] = v
	}
	if raw, _ := in.text("stockUnit", false, 10); strings.EqualFold(raw, "pcs") {
		in.fail("stockUnit", "field.stock_unit_pcs")
	} else if v, ok := in.oneOf("stockUnit", create, models.StockUnits); ok {
		set["stock_unit"] = v
	}
	if v, ok := in.boolean("stockTracked", false); ok {
		set["stock_tracked"] = v
	}
	if v, ok := in.oneOf("foodContactStatus", create, models.FoodContactStatuses); ok {
		set["food_contact_status"] = v
	}
	if v, ok := in.oneOf("reuseType", create, models.ReuseTypes); ok {
		set["reuse_type"] = v
	}
	for _, ref := range itemReferences {
		id, ok := in.reference(ref.field)
		if !ok {
			continue
		}
		if id == uuid.Nil {
			set[ref.column] = nil
			continue
		}
		found, err := s.referenceable(c, ref.table, id)
		if err != nil {
			return nil, err
		}
		if !found {
			in.fail(ref.field, "field.not_found")
			continue
		}
		set[ref.column] = id
	}
	return set, nil
}

// itemReferences are the item's optional references to structure records.
var itemReferences = []struct{ field, column, table string }{
	{"folder", "folder_id", "folders"},
	{"family", "family_id", "families"},
}

// referenceable reports whether the organization has a row with id in
// table, and keeps that row from being deleted until the request's
// transaction ends (KEY SHARE), so the reference being written stays valid.
func (s *Server) referenceable(c *gin.Context, table string, id uuid.UUID) (bool, error) {
	var found struct{ ID uuid.UUID }
	err := s.tx(c).Table(table).Clauses(clause.Locking{Strength: "KEY SHARE"}).
		Scopes(models.InOrganization(orgID(c))).Where("id = ?", id).Select("id").Take(&found).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	return err == nil, err
}

// internalCodeTaken checks the per-organization uniqueness of internalCode.
func (s *Server) internalCodeTaken(c *gin.Context, in *input, code any, except uuid.UUID) {
	if code == nil {
		return
	}
	var n int64
	s.tx(c).Model(&models.CatalogItem{}).Scopes(models.InOrganization(orgID(c))).
		Where("internal_code = ? AND id <> ?", code, except).Count(&n)
	if n > 0 {
		in.fail("internalCode", "field.taken")
	}
}

func (s *Server) createCatalogItem(c *gin.Context) error {
	in, err := readInput(c)
	if err != nil {
		return err
	}
	set, err := s.itemFields(c, in, true)
	if err != nil {
		return err
	}
	if in.err() != nil {
		// Name every bad field at once; a create that is otherwise valid
		// learns of a taken code from the unique index instead.
		s.internalCodeTaken(c, in, set["internal_code"], uuid.Nil)
		return in.err()
	}
	item := &models.CatalogItem{
		ID: models.NewID(), OrganizationID: orgID(c), InternalCode: set["internal_code"].(string), Name: set["name"].(string),
		SourcingType: set["sourcing_type"].(string), MassG: set["mass_g"].(decimal.Decimal),
		MainMaterialCode: set["main_material_code"].(string), StockUnit: set["stock_unit"].(string),
		FoodContactStatus: set["food_contact_status"].(string), ReuseType: set["reuse_type"].(string),
		Status: models.ItemActive, Revision: 1,
	}
	item.StockTracked, _ = set["stock_tracked"].(bool)
	if v, ok := set["folder_id"].(uuid.UUID); ok {
		item.FolderID = &v
	}
	if v, ok := set["family_id"].(uuid.UUID); ok {
		item.FamilyID = &v
	}
	if err := s.deferInsert(c, item, refuseDuplicate("catalog_items_organization_id_internal_code_key", Field("internalCode", "field.taken"))); err != nil {
		return err
	}
	if err := s.itemChanged(c, item, "catalog_item.created"); err != nil {
		return err
	}
	c.Header("Location", s.Config.PublicBaseURL+c.Request.URL.Path+"/"+item.ID.String())
	respondItem(c, http.StatusCreated, item)
	return nil
}

// itemChanged records a new revision of item: its data version, the event
// and the audit record, all in the request's transaction.
func (s *Server) itemChanged(c *gin.Context, item *models.CatalogItem, event string) error {
	var (
		comps   []models.Component
		markets []models.MarketScenario
		err     error
	)
	// Components and markets each make a new revision, so the first
	// revision has neither and a create needs no reads (nor a transaction).
	if item.Revision > 1 {
		if comps, markets, err = models.ItemContents(c.Request.Context(), s.tx(c), item.ID); err != nil {
			return err
		}
	}
	version, err := models.NewDataVersion(item, comps, markets)
	if err != nil {
		return err
	}
	if err := s.deferInsert(c, version); err != nil {
		return err
	}
	return s.recorded(c, "catalog_item", item.ID, event, map[string]any{"catalog_item_id": item.ID, "revision": item.Revision})
}

func (s *Server) listCatalogItems(c *gin.Context) error {
	q := s.DB.WithContext(c.Request.Context()).Model(&models.CatalogItem{}).Scopes(models.InOrganization(orgID(c)))
	var fields []FieldError
	if raw, ok := c.GetQuery("archived"); ok {
		archived, err := strconv.ParseBool(raw)
		if err != nil {
			fields = append(fields, Field("archived", "field.boolean"))
		} else if archived {
			q = q.Where("status = ?", models.ItemArchived)
		} else {
			q = q.Where("status = ?", models.ItemActive)
		}
	}
	for _, ref := range itemReferences {
		if raw, ok := c.GetQuery(ref.field); ok {
			id, err := uuid.Parse(raw)
			if err != nil {
				fields = append(fields, Field(ref.field, "field.uuid"))
				continue
			}
			q = q.Where(ref.column+" = ?", id)
		}
	}
	if term := strings.TrimSpace(c.Query("q")); term != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(term) + "%"
		q = q.Where("(internal_code ILIKE ? OR name ILIKE ?)", like, like)
	}
	if fields != nil {
		return Invalid(fields...)
	}
	return paginate(c, s, q, false, func(i *models.CatalogItem) uuid.UUID { return i.ID }, catalogItemToJSON)
}

// loadItem reads the organization's item named by the catalogItemId path
// parameter; lock takes a row lock for a write.
func (s *Server) loadItem(c *gin.Context, lock bool) (*models.CatalogItem, error) {
	id, err := pathID(c, "catalogItemId")
	if err != nil {
		return nil, err
	}
	if lock {
		item, err := models.LockItem(c.Request.Context(), s.tx(c), orgID(c), id)
		return item, fromModel(err)
	}
	var item models.CatalogItem
	if err := s.DB.WithContext(c.Request.Context()).Scopes(models.InOrganization(orgID(c))).First(&item, "id = ?", id).Error; err != nil {
		return nil, fromModel(err)
	}
	return &item, nil
}

func (s *Server) getCatalogItem(c *gin.Context) error {
	item, err := s.loadItem(c, false)
	if err != nil {
		return err
	}
	respondItem(c, http.StatusOK, item)
	return nil
}

// activeItemForWrite locks the item for a change that new work makes and
// refuses archived items.
func (s *Server) activeItemForWrite(c *gin.Context) (*models.CatalogItem, error) {
	item, err := s.loadItem(c, true)
	if err != nil {
		return nil, err
	}
	if item.Status == models.ItemArchived {
		return nil, newProblem(http.StatusUnprocessableEntity, CodeItemArchived, "error.item_archived")
	}
	return item, nil
}

// bumpItem applies updates with the next revision and reloads the item.
func (s *Server) bumpItem(c *gin.Context, item *models.CatalogItem, updates map[string]any) error {
	if err := models.UpdateWithRevision(c.Request.Context(), s.tx(c), &models.CatalogItem{}, item.OrganizationID, item.ID, item.Revision, updates); err != nil {
		return fromModel(err)
	}
	// A fresh value: GORM leaves a pointer field untouched when it scans
	// NULL into a reused struct, so a cleared archivedAt would survive.
	fresh := models.CatalogItem{}
	if err := s.tx(c).First(&fresh, "id = ?", item.ID).Error; err != nil {
		return err
	}
	*item = fresh
	return nil
}

func (s *Server) updateCatalogItem(c *gin.Context) error {
	ifMatch := c.GetHeader("If-Match")
	if ifMatch == "" {
		return newProblem(http.StatusPreconditionRequired, CodePreconditionRequired, "error.precondition_required")
	}
	item, err := s.activeItemForWrite(c)
	if err != nil {
		return err
	}
	if ifMatch != etag(item.Revision) {
		return RevisionConflict()
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	set, err := s.itemFields(c, in, false)
	if err != nil {
		return err
	}
	s.internalCodeTaken(c, in, set["internal_code"], item.ID)
	if err := in.err(); err != nil {
		return err
	}
	if len(set) > 0 {
		if err := s.bumpItem(c, item, set); err != nil {
			return err
		}
		if err := s.itemChanged(c, item, "catalog_item.updated"); err != nil {
			return err
		}
	}
	respondItem(c, http.StatusOK, item)
	return nil
}

// setItemStatus archives or restores an item. Repeating the transition is
// answered with the item unchanged.
func (s *Server) setItemStatus(c *gin.Context, status string, requireRevision bool) error {
	item, err := s.loadItem(c, true)
	if err != nil {
		return err
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	revision, sent := in.integer("revision", requireRevision)
	if err := in.err(); err != nil {
		return err
	}
	if sent && revision != item.Revision {
		return RevisionConflict()
	}
	if item.Status == status {
		respondItem(c, http.StatusOK, item)
		return nil
	}
	updates := map[string]any{"status": status, "archived_at": nil}
	event := "catalog_item.restored"
	if status == models.ItemArchived {
		updates["archived_at"], event = time.Now().UTC(), "catalog_item.archived"
	}
	if err := s.bumpItem(c, item, updates); err != nil {
		return err
	}
	if err := s.itemChanged(c, item, event); err != nil {
		return err
	}
	respondItem(c, http.StatusOK, item)
	return nil
}

func (s *Server) archiveCatalogItem(c *gin.Context) error {
	return s.setItemStatus(c, models.ItemArchived, false)
}

func (s *Server) restoreCatalogItem(c *gin.Context) error {
	return s.setItemStatus(c, models.ItemActive, true)
}
