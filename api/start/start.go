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
		raw, err := json.Marshal(dictionaries.Default().For(string(l)))
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
		Schemas: map[string]kit.Schema{
			"Organization": kit.Object(map[string]kit.Schema{
				"id": kit.UUID(), "name": kit.Str(), "slug": kit.Str(), "status": kit.Enum(accounts.OrganizationActive, accounts.OrganizationSuspended),
			}),
			"OrganizationList": kit.Object(map[string]kit.Schema{"data": kit.ArrayOf(kit.Ref("Organization")), "requestId": kit.UUID()}),
			"Dictionaries":     dictionariesSchema(),
		},
	}
}

type organizationJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Slug   string `json:"slug"`
	Status string `json:"status"`
}

// listOrganizations answers the key's organization: a key belongs to
// exactly one, so the list has one element.
func (h *handlers) listOrganizations(c *gin.Context) error {
	var org accounts.Organization
	if err := h.DB.WithContext(c.Request.Context()).First(&org, "id = ?", kit.OrgID(c)).Error; err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{
		"data":      []organizationJSON{{ID: org.ID.String(), Name: org.Name, Slug: org.Slug, Status: org.Status}},
		"requestId": kit.State(c).ID,
	})
	return nil
}

func (h *handlers) getDictionaries(c *gin.Context) error {
	c.Data(http.StatusOK, "application/json; charset=utf-8", h.dictionaries[kit.State(c).Locale])
	return nil
}

func coded(extra map[string]kit.Schema) kit.Schema {
	props := map[string]kit.Schema{"code": kit.Str(), "name": kit.Str()}
	for k, v := range extra {
		props[k] = v
	}
	return kit.ArrayOf(kit.Object(props))
}

func dictionariesSchema() kit.Schema {
	return kit.Object(map[string]kit.Schema{
		"version":   kit.Str(),
		"countries": coded(map[string]kit.Schema{"eu_member": kit.Bool()}),
		"materials": coded(map[string]kit.Schema{
			"parent":              kit.Nullable(kit.Str()),
			"bdo_group":           kit.Enum("plastics", "paper", "glass", "steel", "aluminium", "wood", "multimaterial", "other"),
			"identification_code": kit.Nullable(kit.Str()),
			"abbreviation":        kit.Nullable(kit.Str()),
		}),
		"packaging_categories": coded(map[string]kit.Schema{"description": kit.Str()}),
		"packaging_formats":    coded(nil),
		"economic_roles":       coded(map[string]kit.Schema{"description": kit.Str(), "article": kit.Str()}),
		"document_types":       coded(nil),
		"rule_sets": kit.ArrayOf(kit.Schema{
			"type":     "object",
			"required": []string{"code", "name", "regulation", "article", "version", "effective_from", "effective_to"},
			"properties": map[string]any{
				"code": kit.Str(), "name": kit.Str(), "regulation": kit.Str(), "article": kit.Str(), "version": kit.Str(),
				"effective_from": kit.Date(), "effective_to": kit.Nullable(kit.Date()),
				"grades": kit.ArrayOf(kit.Str()),
			},
		}),
	})
}
