package ppwr

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/records"
	a "ppwr/internal/access"
)

func (h *handlers) refillStations() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listRefillStations", kit.Org+"/ppwr/refill-stations", tag, a.PPWRRead, a.ReportsView).
				Handle(kit.Do(h.listRefillStations), kit.ListOK("RefillStation")),
			kit.Post("createRefillStation", kit.Org+"/ppwr/refill-stations", tag, a.PPWRWrite, a.CatalogUpdate).
				Handle(kit.JSON(h.createRefillStation), kit.CreatedResponse(kit.Ref("RefillStation"), "getRefillStation")),
			kit.Get("getRefillStation", kit.Org+"/ppwr/refill-stations/{recordId}", tag, a.PPWRRead, a.ReportsView).
				Handle(kit.Do(h.getRefillStation), kit.OK(kit.Ref("RefillStation"))),
		},
		Models: []kit.Model{kit.ModelOf[refillStationJSON]("RefillStation")},
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

func refillStationToJSON(s *records.RefillStation) refillStationJSON {
	return refillStationJSON{ID: s.ID, Name: s.Name, Location: s.Location, Country: s.CountryCode, Products: s.Products,
		RefillRules: s.RefillRules, HygieneEvidence: s.HygieneEvidence, Revision: s.Revision,
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
}

// listRefillStations pages through the organization's refill stations,
// newest first.
func (h *handlers) listRefillStations(c *gin.Context) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&records.RefillStation{})
	return kit.Paginate(c, db, kit.NewestFirst, refillStationToJSON)
}

func (h *handlers) getRefillStation(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", refillStationToJSON)
}

func (h *handlers) createRefillStation(c *gin.Context, in *records.RefillStationCreate) error {
	s, err := records.CreateRefillStation(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, s.ID, refillStationToJSON(s))
}
