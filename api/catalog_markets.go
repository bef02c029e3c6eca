package api

import (
	"net/http"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/internal/dictionaries"
	"ppwr/models"
)

// marketJSON is a market scenario (snake_case, as the markets body is).
type marketJSON struct {
	ID             uuid.UUID  `json:"id"`
	CatalogItem    uuid.UUID  `json:"catalog_item"`
	Country        string     `json:"country"`
	OriginCountry  *string    `json:"origin_country"`
	EconomicRole   *string    `json:"economic_role"`
	AssessmentDate *string    `json:"assessment_date"`
	Active         bool       `json:"active"`
	CreatedAt      time.Time  `json:"created_at"`
	DeactivatedAt  *time.Time `json:"deactivated_at"`
}

func marketToJSON(m *models.MarketScenario) marketJSON {
	out := marketJSON{ID: m.ID, CatalogItem: m.CatalogItemID, Country: m.CountryCode, OriginCountry: m.OriginCountry,
		EconomicRole: m.EconomicRole, Active: m.Active, CreatedAt: m.CreatedAt.UTC(), DeactivatedAt: m.DeactivatedAt}
	if m.AssessmentDate != nil {
		d := m.AssessmentDate.Format(time.DateOnly)
		out.AssessmentDate = &d
	}
	return out
}

// listMarkets pages through the item's active scenarios.
func (s *Server) listMarkets(c *gin.Context) error {
	return listOfItem(c, s, "active", func(m *models.MarketScenario) uuid.UUID { return m.ID }, marketToJSON)
}

// getMarket reads one scenario, active or not: registers may cite a
// scenario that a later PUT replaced.
func (s *Server) getMarket(c *gin.Context) error { return getOfItem(c, s, marketToJSON) }

// marketDetail is one country's entry of market_details.
type marketDetail struct {
	OriginCountry  *string
	EconomicRole   *string
	AssessmentDate *time.Time
}

func (d marketDetail) equal(m *models.MarketScenario) bool {
	sameDate := (d.AssessmentDate == nil) == (m.AssessmentDate == nil) &&
		(d.AssessmentDate == nil || d.AssessmentDate.Equal(*m.AssessmentDate))
	return ptrEqual(d.OriginCountry, m.OriginCountry) && ptrEqual(d.EconomicRole, m.EconomicRole) && sameDate
}

func ptrEqual(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// readMarkets validates the PUT body: markets are country codes, each
// detail belongs to a listed country and names dictionary codes.
func readMarkets(in *input) ([]string, map[string]marketDetail) {
	dict := dictionaries.Default()
	var countries []string
	if in.value("markets", true, &countries, "field.country_list") {
		for _, code := range countries {
			if !dict.HasCountry(code) {
				in.fail("markets", "field.unknown_country", code)
			}
		}
	}
	details := map[string]marketDetail{}
	var raw map[string]struct {
		OriginCountry  *string `json:"origin_country"`
		EconomicRole   *string `json:"economic_role"`
		AssessmentDate *string `json:"assessment_date"`
	}
	if !in.value("market_details", false, &raw, "field.market_details") {
		return countries, details
	}
	for country, d := range raw {
		field := "market_details." + country
		if !slices.Contains(countries, country) {
			in.fail(field, "field.market_not_listed")
			continue
		}
		detail := marketDetail{OriginCountry: d.OriginCountry, EconomicRole: d.EconomicRole}
		if d.OriginCountry != nil && !dict.HasCountry(*d.OriginCountry) {
			in.fail(field+".origin_country", "field.unknown_code")
		}
		if d.EconomicRole != nil && !dict.HasEconomicRole(*d.EconomicRole) {
			in.fail(field+".economic_role", "field.unknown_code")
		}
		if d.AssessmentDate != nil {
			date, err := time.Parse(time.DateOnly, *d.AssessmentDate)
			if err != nil {
				in.fail(field+".assessment_date", "field.date_format")
			}
			detail.AssessmentDate = &date
		}
		details[country] = detail
	}
	return countries, details
}

// replaceMarkets makes the item's active scenarios exactly the listed
// countries with their details. Scenarios are immutable: an unchanged
// country keeps its scenario, a changed or removed one is deactivated, and
// a changed or new one gets a new scenario. Any change is a new revision.
func (s *Server) replaceMarkets(c *gin.Context) error {
	item, err := s.activeItemForWrite(c)
	if err != nil {
		return err
	}
	in, err := readInput(c)
	if err != nil {
		return err
	}
	revision, _ := in.integer("market_revision", true)
	countries, details := readMarkets(in)
	if err := in.err(); err != nil {
		return err
	}
	if revision != item.Revision {
		return RevisionConflict()
	}
	tx := s.tx(c)
	var active []models.MarketScenario
	if err := tx.Where("catalog_item_id = ? AND active", item.ID).Find(&active).Error; err != nil {
		return err
	}
	now := time.Now().UTC()
	changed := false
	kept := map[string]bool{}
	for i := range active {
		m := &active[i]
		if slices.Contains(countries, m.CountryCode) && details[m.CountryCode].equal(m) {
			kept[m.CountryCode] = true
			continue
		}
		if err := tx.Model(m).Updates(map[string]any{"active": false, "deactivated_at": now}).Error; err != nil {
			return err
		}
		changed = true
	}
	for _, country := range countries {
		if kept[country] {
			continue
		}
		kept[country] = true // a country listed twice gets one scenario
		d := details[country]
		m := &models.MarketScenario{ID: models.NewID(), OrganizationID: item.OrganizationID, CatalogItemID: item.ID,
			CountryCode: country, OriginCountry: d.OriginCountry, EconomicRole: d.EconomicRole, AssessmentDate: d.AssessmentDate, Active: true}
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		changed = true
	}
	if changed {
		if err := s.bumpItem(c, item, map[string]any{}); err != nil {
			return err
		}
		if err := s.itemChanged(c, item, "markets.changed"); err != nil {
			return err
		}
	}
	var current []models.MarketScenario
	if err := tx.Where("catalog_item_id = ? AND active", item.ID).Order("country_code").Find(&current).Error; err != nil {
		return err
	}
	out := make([]marketJSON, len(current))
	for i := range current {
		out[i] = marketToJSON(&current[i])
	}
	c.JSON(http.StatusOK, gin.H{"market_revision": item.Revision, "markets": out})
	return nil
}
