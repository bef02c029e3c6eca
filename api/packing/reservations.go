package packing

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/packing"
	"ppwr/domain/stock"
	a "ppwr/internal/access"
	"ppwr/internal/input"
)

func (h *handlers) reservations() kit.Area {
	reservation := kit.Org + "/packing-reservations/{recordId}"
	answer := kit.OK(kit.Ref("Reservation"))
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createReservation", kit.Org+"/packaging-systems/{recordId}/reservations", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(packing.ErrNotStockTracked, stock.ErrInsufficientStock, domain.ErrOrderReferenceUsed,
					packing.ErrConfigurationChanged, packing.ErrSystemArchived, packing.ErrConfigurationNotReady, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.createReservation), kit.CreatedResponse(kit.Ref("Reservation"), "getReservation")),
			kit.List("listReservations", kit.Org+"/packing-reservations", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Query(h.listReservations), kit.ListOK("Reservation")),
			kit.Get("getReservation", reservation, tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Do(h.getReservation), answer),
			kit.Post("consumeReservation", reservation+"/consume", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(packing.ErrReservationExpired, packing.ErrReservationNotHeld, stock.ErrInsufficientStock, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.consumeReservation), kit.OK(kit.Ref("PackagingSystemUsage"))),
			kit.Post("releaseReservation", reservation+"/release", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(stock.ErrInsufficientStock, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.releaseReservation), answer),
		},
		Models: []kit.Model{kit.ModelOf[reservationJSON]("Reservation")},
	}
}

type reservationJSON struct {
	packedJSON
	Status    string     `json:"status"`
	ExpiresAt time.Time  `json:"expires_at"`
	Revision  int        `json:"revision"`
	Usage     *uuid.UUID `json:"usage"`
	UpdatedAt time.Time  `json:"updated_at"`
	EndedAt   *time.Time `json:"ended_at"`
}

func (reservationJSON) Declare(s *kit.Shape) { s.Enum("status", packing.ReservationStatuses...) }

func reservationToJSON(r *packing.Reservation) reservationJSON {
	out := reservationJSON{packedJSON: packedToJSON(&r.PackedSets), Status: r.StatusAt(time.Now()), ExpiresAt: r.ExpiresAt.UTC(),
		Revision: r.Revision, Usage: r.UsageID, UpdatedAt: r.UpdatedAt.UTC()}
	if r.EndedAt != nil {
		ended := r.EndedAt.UTC()
		out.EndedAt = &ended
	}
	return out
}

// createReservation holds the sets; the command records, in the same
// unit of work, the start of the workflow that expires the hold.
func (h *handlers) createReservation(c *gin.Context, in *packing.ReservationCreate) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	r, err := packing.CreateReservation(kit.Work(c), id, in, h.Config.ReservationTimerCap)
	if err != nil {
		return err
	}
	return kit.Created(c, r.ID, reservationToJSON(r))
}

// reservationQuery narrows the list to the reservations reading as one
// status.
type reservationQuery struct {
	input.Errors
	Status input.Opt[string]
}

func (q *reservationQuery) Declare(f *input.Fields) {
	f.Enum("status", &q.Status, input.Enum{Values: packing.ReservationStatuses})
}

func (h *handlers) listReservations(c *gin.Context, q *reservationQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&packing.Reservation{})
	if q.Status.Set() {
		db = packing.ReservationsWithStatus(db, q.Status.Value)
	}
	return kit.Paginate(c, db, kit.NewestFirst, reservationToJSON)
}

func (h *handlers) getReservation(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", reservationToJSON)
}

func (h *handlers) consumeReservation(c *gin.Context, in *packing.ReservationConsume) error {
	return onRecord(c, "recordId", http.StatusOK, func(id uuid.UUID) (*packing.PackagingSystemUsage, error) {
		return packing.ConsumeReservation(kit.Work(c), id, in)
	}, usageToJSON)
}

func (h *handlers) releaseReservation(c *gin.Context, in *domain.RevisionRequired) error {
	return onRecord(c, "recordId", http.StatusOK, func(id uuid.UUID) (*packing.Reservation, error) {
		return packing.ReleaseReservation(kit.Work(c), id, in)
	}, reservationToJSON)
}
