// Package start is the spec's "Start and dictionaries" area: the key's
// organization and the code lists.
package start

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"ppwr/api/kit"
	"ppwr/domain/accounts"
	a "ppwr/internal/access"
	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
)

const tag = "start"

type handlers struct {
	kit.Deps
	dictionaries map[i18n.Locale][]byte // rendered once per locale
}

// Area declares the start operations and schemas.
func Area(d kit.Deps) kit.Area {
	h := &handlers{Deps: d, dictionaries: map[i18n.Locale][]byte{}}
	for _, l := range i18n.Locales {
		raw, err := json.Marshal(dictionariesJSON{dictionaries.Default().For(string(l))})
		if err != nil {
			panic(err) // embedded data that does not marshal is a build defect
		}
		h.dictionaries[l] = raw
	}
	return kit.Area{
		Operations: []kit.Operation{
			kit.Get("listOrganizations", "/organizations", tag, "", "").Handle(kit.Do(h.listOrganizations), kit.OK(kit.Ref("OrganizationList"))),
			kit.Get("getDictionaries", kit.Org+"/dictionaries", tag, a.CatalogRead, a.CatalogView).Handle(kit.Do(h.getDictionaries), kit.OK(kit.Ref("Dictionaries"))),
		},
		Models: []kit.Model{
			kit.ModelOf[organizationJSON]("Organization"),
			kit.ModelOf[organizationListJSON]("OrganizationList"),
			kit.ModelOf[dictionariesJSON]("Dictionaries"),
		},
	}
}

type organizationJSON struct {
	ID     string `json:"id" schema:"uuid"`
	Name   string `json:"name"`
	Slug   string `json:"slug"`
	Status string `json:"status"`
}

func (organizationJSON) Declare(s *kit.Shape) {
	s.Enum("status", accounts.OrganizationActive, accounts.OrganizationSuspended)
}

// organizationListJSON is the key's organization as a list, which has no
// further page.
type organizationListJSON struct {
	Data      []organizationJSON `json:"data"`
	RequestID string             `json:"requestId" schema:"uuid"`
}

// dictionariesJSON is the dictionaries of a locale, with the vocabulary
// of the materials' groups.
type dictionariesJSON struct{ dictionaries.Localized }

func (dictionariesJSON) Declare(s *kit.Shape) {
	s.Enum("materials.bdo_group", dictionaries.BDOGroups()...)
}

// listOrganizations answers the key's organization: a key belongs to
// exactly one, so the list has one element.
func (h *handlers) listOrganizations(c *gin.Context) error {
	var org accounts.Organization
	if err := h.DB.WithContext(c.Request.Context()).First(&org, "id = ?", kit.OrgID(c)).Error; err != nil {
		return err
	}
	c.JSON(http.StatusOK, organizationListJSON{
		Data:      []organizationJSON{{ID: org.ID.String(), Name: org.Name, Slug: org.Slug, Status: org.Status}},
		RequestID: kit.State(c).ID,
	})
	return nil
}

func (h *handlers) getDictionaries(c *gin.Context) error {
	c.Data(http.StatusOK, "application/json; charset=utf-8", h.dictionaries[kit.State(c).Locale])
	return nil
}
