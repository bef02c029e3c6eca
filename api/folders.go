package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"ppwr/models"
)

type folderJSON struct {
	ID        uuid.UUID  `json:"id"`
	Name      string     `json:"name"`
	Parent    *uuid.UUID `json:"parent"`
	Revision  int        `json:"revision"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

func folderToJSON(f *models.Folder) folderJSON {
	return folderJSON{
		ID: f.ID, Name: f.Name, Parent: f.ParentID, Revision: f.Revision,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC(),
	}
}

// listFolders pages through the organization's folders in creation order,
// optionally only the direct subfolders of ?parent.
func (s *Server) listFolders(c *gin.Context) error {
	orgID := credentialOf(c).OrganizationID
	q := models.Folders(c.Request.Context(), s.DB, orgID)
	var fields []FieldError
	if raw, ok := c.GetQuery("parent"); ok {
		parent, err := uuid.Parse(raw)
		if err != nil {
			fields = append(fields, Field("parent", "field.uuid"))
		}
		q = q.Where("parent_id = ?", parent)
	}
	if _, err := parsePage(c); err != nil {
		var p *Problem
		if errors.As(err, &p) {
			fields = append(fields, p.Fields...)
		}
	}
	if len(fields) > 0 {
		return Invalid(fields...)
	}
	return paginate(c, s, q, false, func(f *models.Folder) uuid.UUID { return f.ID }, folderToJSON)
}

func (s *Server) getFolder(c *gin.Context) error {
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	f, err := models.FindFolder(c.Request.Context(), s.DB, credentialOf(c).OrganizationID, id)
	if err != nil {
		return fromModel(err)
	}
	c.JSON(http.StatusOK, folderToJSON(f))
	return nil
}

// checkFolderParent validates a parent reference: it must be a folder of
// the organization and, for an existing folder (id not Nil), must not be
// the folder itself or one of its descendants.
func (s *Server) checkFolderParent(c *gin.Context, in *input, orgID, id, parent uuid.UUID) error {
	tx := s.tx(c)
	exists, err := models.FolderReferenceExists(c.Request.Context(), tx, orgID, parent)
	if err != nil {
		return err
	}
	if !exists {
		in.fail("parent", "field.not_found")
		return nil
	}
	if id == uuid.Nil {
		return nil
	}
	if err := models.LockFolderTree(c.Request.Context(), tx, orgID); err != nil {
		return err
	}
	cycle, err := models.FolderWouldCycle(c.Request.Context(), tx, orgID, id, parent)
	if err != nil {
		return err
	}
	if cycle {
		in.fail("parent", "field.folder_cycle")
	}
	return nil
}

func (s *Server) createFolder(c *gin.Context) error {
	in, err := readInput(c)
	if err != nil {
		return err
	}
	orgID := credentialOf(c).OrganizationID
	name, _ := in.text("name", true, structureNameMax)
	parent, parentSent := in.reference("parent")
	if parentSent && parent != uuid.Nil {
		if err := s.checkFolderParent(c, in, orgID, uuid.Nil, parent); err != nil {
			return err
		}
	}
	if err := in.err(); err != nil {
		return err
	}
	f := &models.Folder{OrganizationID: orgID, Name: name}
	if parent != uuid.Nil {
		f.ParentID = &parent
	}
	tx := s.tx(c)
	if err := models.CreateFolder(c.Request.Context(), tx, f); err != nil {
		return err
	}
	if err := s.recorded(c, "folder", f.ID, "folder.created", folderEventData(f)); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, folderToJSON(f))
	return nil
}

// updateFolder renames and/or moves a folder; omitted fields are kept and
// "parent": null moves it to the top level.
func (s *Server) updateFolder(c *gin.Context) error {
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	orgID := credentialOf(c).OrganizationID
	revision, _ := in.integer("revision", true)
	updates := map[string]any{}
	if in.present("name") {
		if name, ok := in.text("name", true, structureNameMax); ok {
			updates["name"] = name
		}
	}
	parent, parentSent := in.reference("parent")
	if parentSent {
		updates["parent_id"] = eventOptionalID(&parent)
		if parent != uuid.Nil {
			if err := s.checkFolderParent(c, in, orgID, id, parent); err != nil {
				return err
			}
		}
	}
	if !in.present("name") && !in.present("parent") {
		in.fail("name", "field.one_required", "name, parent")
		in.fail("parent", "field.one_required", "name, parent")
	}
	if err := in.err(); err != nil {
		return err
	}
	tx := s.tx(c)
	if err := models.UpdateWithRevision(c.Request.Context(), tx, &models.Folder{}, orgID, id, revision, updates); err != nil {
		return fromModel(err)
	}
	f, err := models.FindFolder(c.Request.Context(), tx, orgID, id)
	if err != nil {
		return err
	}
	if err := s.recorded(c, "folder", f.ID, "folder.updated", folderEventData(f)); err != nil {
		return err
	}
	c.JSON(http.StatusOK, folderToJSON(f))
	return nil
}

type folderDeletedJSON struct {
	ID      uuid.UUID `json:"id"`
	Deleted bool      `json:"deleted"`
}

// deleteFolder removes an empty folder at its current revision.
func (s *Server) deleteFolder(c *gin.Context) error {
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	revision, _ := in.integer("revision", true)
	if err := in.err(); err != nil {
		return err
	}
	orgID := credentialOf(c).OrganizationID
	tx := s.tx(c)
	// The row lock keeps new subfolders and items out until the delete
	// commits: they lock their folder reference first.
	f, err := models.LockFolder(c.Request.Context(), tx, orgID, id)
	if err != nil {
		return fromModel(err)
	}
	if f.Revision != revision {
		return RevisionConflict()
	}
	empty, err := models.FolderIsEmpty(c.Request.Context(), tx, orgID, id)
	if err != nil {
		return err
	}
	if !empty {
		return folderNotEmpty()
	}
	if err := models.DeleteWithRevision(c.Request.Context(), tx, &models.Folder{}, orgID, id, revision); err != nil {
		// An item that referenced the folder without locking it.
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23503" {
			return folderNotEmpty()
		}
		return fromModel(err)
	}
	if err := s.recorded(c, "folder", id, "folder.deleted", map[string]any{
		"folder_id": id, "revision": revision,
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, folderDeletedJSON{ID: id, Deleted: true})
	return nil
}

func folderNotEmpty() *Problem {
	return newProblem(http.StatusUnprocessableEntity, CodeFolderNotEmpty, "error.folder_not_empty")
}

// eventOptionalID is an event's value of an optional reference: the id or nil.
func eventOptionalID(id *uuid.UUID) any {
	if id == nil || *id == uuid.Nil {
		return nil
	}
	return *id
}

// folderEventData is the data of folder.created and folder.updated.
func folderEventData(f *models.Folder) map[string]any {
	return map[string]any{"folder_id": f.ID, "parent_id": eventOptionalID(f.ParentID), "revision": f.Revision}
}
