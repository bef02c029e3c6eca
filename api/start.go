package api

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
	"ppwr/models"
)

type organizationJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Slug   string `json:"slug"`
	Status string `json:"status"`
}

// listOrganizations answers the key's organization: a key belongs to
// exactly one, so the list has one element.
func (s *Server) listOrganizations(c *gin.Context) error {
	var org models.Organization
	if err := s.DB.WithContext(c.Request.Context()).First(&org, "id = ?", credentialOf(c).OrganizationID).Error; err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{
		"data":      []organizationJSON{{ID: org.ID.String(), Name: org.Name, Slug: org.Slug, Status: org.Status}},
		"requestId": requestIDOf(c),
	})
	return nil
}

// renderDictionaries serialises the code lists once per locale: they are
// embedded data, identical for every request.
func (s *Server) renderDictionaries(set *dictionaries.Set) error {
	s.dictJSON = map[string][]byte{}
	for _, l := range i18n.Locales {
		raw, err := json.Marshal(set.For(string(l)))
		if err != nil {
			return err
		}
		s.dictJSON[string(l)] = raw
	}
	return nil
}

func (s *Server) getDictionaries(c *gin.Context) error {
	c.Data(http.StatusOK, "application/json; charset=utf-8", s.dictJSON[string(localeOf(c))])
	return nil
}
