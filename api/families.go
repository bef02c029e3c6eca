package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/models"
)

type familyJSON struct {
	ID          uuid.UUID `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Revision    int       `json:"revision"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func familyToJSON(f *models.Family) familyJSON {
	return familyJSON{
		ID: f.ID, Name: f.Name, Description: emptyAsNull(f.Description), Revision: f.Revision,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC(),
	}
}

// emptyAsNull answers an optional text the way every resource does: null
// when it was never given.
func emptyAsNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// readOptionalText reads an optional text that may be null or blank to clear
// it; both are stored as the empty string.
func readOptionalText(in *input, name string, maxLen int) (string, bool) {
	if !in.present(name) {
		return "", false
	}
	if in.isNull(name) {
		return "", true
	}
	return in.text(name, false, maxLen)
}

func (s *Server) listFamilies(c *gin.Context) error {
	q := models.Families(c.Request.Context(), s.DB, credentialOf(c).OrganizationID)
	return paginate(c, s, q, false, func(f *models.Family) uuid.UUID { return f.ID }, familyToJSON)
}

func (s *Server) getFamily(c *gin.Context) error {
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	f, err := models.FindFamily(c.Request.Context(), s.DB, credentialOf(c).OrganizationID, id)
	if err != nil {
		return fromModel(err)
	}
	c.JSON(http.StatusOK, familyToJSON(f))
	return nil
}

func (s *Server) createFamily(c *gin.Context) error {
	in, err := readInput(c)
	if err != nil {
		return err
	}
	name, _ := in.text("name", true, structureNameMax)
	description, _ := readOptionalText(in, "description", descriptionMax)
	if err := in.err(); err != nil {
		return err
	}
	orgID := credentialOf(c).OrganizationID
	tx := s.tx(c)
	f := &models.Family{OrganizationID: orgID, Name: name, Description: description}
	if err := models.CreateFamily(c.Request.Context(), tx, f); err != nil {
		return err
	}
	if err := s.recorded(c, "family", f.ID, "family.created", map[string]any{"family_id": f.ID, "revision": f.Revision}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, familyToJSON(f))
	return nil
}

// updateFamily changes the fields sent; omitted fields are kept, and a
// null or empty description clears it.
func (s *Server) updateFamily(c *gin.Context) error {
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	revision, _ := in.integer("revision", true)
	updates := map[string]any{}
	if in.present("name") {
		if name, ok := in.text("name", true, structureNameMax); ok {
			updates["name"] = name
		}
	}
	if description, ok := readOptionalText(in, "description", descriptionMax); ok {
		updates["description"] = description
	}
	if !in.present("name") && !in.present("description") {
		in.fail("name", "field.one_required", "name, description")
		in.fail("description", "field.one_required", "name, description")
	}
	if err := in.err(); err != nil {
		return err
	}
	orgID := credentialOf(c).OrganizationID
	tx := s.tx(c)
	if err := models.UpdateWithRevision(c.Request.Context(), tx, &models.Family{}, orgID, id, revision, updates); err != nil {
		return fromModel(err)
	}
	f, err := models.FindFamily(c.Request.Context(), tx, orgID, id)
	if err != nil {
		return err
	}
	if err := s.recorded(c, "family", f.ID, "family.updated", map[string]any{"family_id": f.ID, "revision": f.Revision}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, familyToJSON(f))
	return nil
}
