// Package ppwr is the spec's other PPWR documentary operations: reuse systems
// and statistics, deposit schemes, authority requests, EPR reports and
// refill stations. Only the refill-station list is built; the other
// operations answer 501 after authentication.
//
// The spec names these operations only in workflow lists, without their
// abilities and permissions; they follow the nearest documented area (see
// the README, "Choices where the spec is silent").
package ppwr

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	a "ppwr/internal/access"
	"ppwr/models"
)

const tag = "ppwr"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listRefillStations", kit.Org+"/ppwr/refill-stations", tag, a.PPWRRead, a.ReportsView).
				Handle(kit.Do(h.listRefillStations), kit.OK(kit.ListOf("RefillStation"))),
			kit.Post("createReuseSystem", kit.Org+"/ppwr/reuse-systems", tag, a.PPWRWrite, a.CatalogUpdate),
			kit.Get("getReuseStatistics", kit.Org+"/ppwr/reuse-statistics", tag, a.PPWRRead, a.ReportsView),
			kit.Post("createDepositScheme", kit.Org+"/ppwr/deposit-schemes", tag, a.PPWRWrite, a.CatalogUpdate),
			kit.Get("getDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}", tag, a.PPWRRead, a.CatalogView),
			kit.Post("reviewDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
			kit.Post("createAuthorityRequest", kit.Org+"/ppwr/authority-requests", tag, a.PPWRWrite, a.CatalogUpdate),
			kit.Get("getAuthorityRequest", kit.Org+"/ppwr/authority-requests/{recordId}", tag, a.PPWRRead, a.CatalogView),
			kit.Post("createEPRReport", kit.Org+"/ppwr/epr-reports", tag, a.ReportsRun, a.ReportsExport),
			kit.Post("createEPRReportLine", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRun, a.ReportsExport),
			kit.List("listEPRReportLines", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRead, a.ReportsView),
			kit.Post("reviewEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
			kit.Get("exportEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/export", tag, a.ReportsRead, a.ReportsExport),
			kit.Post("createRefillStation", kit.Org+"/ppwr/refill-stations", tag, a.PPWRWrite, a.CatalogUpdate),
		},
		Schemas: map[string]kit.Schema{
			"RefillStation": kit.Object(map[string]kit.Schema{
				"id": kit.UUID(), "name": kit.Str(), "location": kit.Str(), "country": kit.Str(),
				"products": kit.ArrayOf(kit.UUID()), "refill_rules": kit.Str(), "hygiene_evidence": kit.ArrayOf(kit.UUID()),
				"revision": kit.Int(), "created_at": kit.DateTime(), "updated_at": kit.DateTime(),
			}),
		},
	}
}

type refillStationJSON struct {
	ID              uuid.UUID   `json:"id"`
	Name            string      `json:"name"`
	Location        string      `json:"location"`
	Country         string      `json:"country"`
	Products        []uuid.UUID `json:"products"`
	RefillRules     string      `json:"refill_rules"`
	HygieneEvidence []uuid.UUID `json:"hygiene_evidence"`
	Revision        int         `json:"revision"`
	CreatedAt       time.Time   `json:"created_at"`
	UpdatedAt       time.Time   `json:"updated_at"`
}

// listRefillStations pages through the organization's refill stations,
// newest first.
func (h *handlers) listRefillStations(c *gin.Context) error {
	db := models.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&models.RefillStation{})
	return kit.Paginate(c, db, kit.NewestFirst, func(s *models.RefillStation) refillStationJSON {
		return refillStationJSON{ID: s.ID, Name: s.Name, Location: s.Location, Country: s.CountryCode, Products: s.Products,
			RefillRules: s.RefillRules, HygieneEvidence: s.HygieneEvidence, Revision: s.Revision,
			CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
	})
}
