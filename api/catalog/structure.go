package catalog

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
)

type folderJSON struct {
	ID        uuid.UUID  `json:"id"`
	Name      string     `json:"name"`
	Parent    *uuid.UUID `json:"parent"`
	Revision  int        `json:"revision"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

func folderToJSON(f *catalog.Folder) folderJSON {
	return folderJSON{ID: f.ID, Name: f.Name, Parent: f.ParentID, Revision: f.Revision,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

// folderQuery narrows the folder list to the subfolders of a parent.
type folderQuery struct {
	input.Errors
	Parent input.Opt[uuid.UUID]
}

func (q *folderQuery) Declare(f *input.Fields) { f.Ref("parent", &q.Parent, input.Ref{}) }

// listFolders pages through the organization's folders in creation order,
// optionally only the direct subfolders of ?parent.
func (h *handlers) listFolders(c *gin.Context, q *folderQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&catalog.Folder{})
	if q.Parent.Set() {
		db = db.Where("parent_id = ?", q.Parent.Value)
	}
	return kit.Paginate(c, db, kit.OldestFirst, folderToJSON)
}

func (h *handlers) getFolder(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", folderToJSON)
}

func (h *handlers) createFolder(c *gin.Context, in *catalog.FolderCreate) error {
	f, err := catalog.CreateFolder(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, f.ID, folderToJSON(f))
}

// deleteFolder removes an empty folder at its current revision.
func (h *handlers) deleteFolder(c *gin.Context, in *domain.RevisionRequired) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	if err := catalog.DeleteFolder(kit.Work(c), id, in); err != nil {
		return err
	}
	c.JSON(http.StatusOK, folderDeletedJSON{ID: id, Deleted: true})
	return nil
}

// folderDeletedJSON acknowledges a deletion; Deleted is always true.
type folderDeletedJSON struct {
	Deleted bool      `json:"deleted" schema:"const=true"`
	ID      uuid.UUID `json:"id"`
}

type familyJSON struct {
	ID          uuid.UUID `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Revision    int       `json:"revision"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func familyToJSON(f *catalog.Family) familyJSON {
	return familyJSON{ID: f.ID, Name: f.Name, Description: emptyAsNull(f.Description), Revision: f.Revision,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

// emptyAsNull answers an optional text the way every resource does: null
// when it was never given.
func emptyAsNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (h *handlers) listFamilies(c *gin.Context) error {
	return kit.Paginate(c, domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&catalog.Family{}), kit.OldestFirst, familyToJSON)
}

func (h *handlers) getFamily(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", familyToJSON)
}

func (h *handlers) createFamily(c *gin.Context, in *catalog.FamilyCreate) error {
	f, err := catalog.CreateFamily(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, f.ID, familyToJSON(f))
}

type partyJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Roles     []string  `json:"roles"`
	Country   string    `json:"country"`
	TaxID     *string   `json:"tax_id"`
	Email     *string   `json:"email"`
	Address   *string   `json:"address"`
	CreatedAt time.Time `json:"created_at"`
}

func (partyJSON) Declare(s *kit.Shape) { s.Enum("roles", catalog.PartyRoles...) }

func partyToJSON(p *catalog.Party) partyJSON {
	roles := []string(p.Roles)
	if roles == nil {
		roles = []string{}
	}
	return partyJSON{ID: p.ID, Name: p.Name, Roles: roles, Country: p.CountryCode,
		TaxID: emptyAsNull(p.TaxID), Email: emptyAsNull(p.Email), Address: emptyAsNull(p.Address), CreatedAt: p.CreatedAt.UTC()}
}

func (h *handlers) listParties(c *gin.Context) error {
	return kit.Paginate(c, domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&catalog.Party{}), kit.OldestFirst, partyToJSON)
}

func (h *handlers) getParty(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", partyToJSON)
}

func (h *handlers) createParty(c *gin.Context, in *catalog.PartyCreate) error {
	p, err := catalog.CreateParty(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, p.ID, partyToJSON(p))
}
