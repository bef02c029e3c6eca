package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

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
	if err := s.DB.WithContext(c).First(&org, "id = ?", credentialOf(c).OrganizationID).Error; err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{
		"data":      []organizationJSON{{ID: org.ID.String(), Name: org.Name, Slug: org.Slug, Status: org.Status}},
		"requestId": requestIDOf(c),
	})
	return nil
}

func (s *Server) getDictionaries(c *gin.Context) error {
	c.JSON(http.StatusOK, s.dicts.For(string(localeOf(c))))
	return nil
}
