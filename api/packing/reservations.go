package packing

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/models"
	"ppwr/workflows"
)

func (h *handlers) reservations() kit.Area {
	reservation := kit.Org + "/packing-reservations/{recordId}"
	answer := kit.OK(kit.Ref("Reservation"))
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createReservation", kit.Org+"/packaging-systems/{recordId}/reservations", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(models.ErrNotStockTracked, models.ErrInsufficientStock, models.ErrOrderReferenceUsed,
					models.ErrConfigurationChanged, models.ErrSystemArchived, models.ErrConfigurationNotReady, models.ErrRevisionConflict).
				Handle(kit.JSON(h.createReservation), kit.CreatedResponse(kit.Ref("Reservation"), "getReservation")),
			kit.List("listReservations", kit.Org+"/packing-reservations", tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Query(h.listReservations), kit.ListOK("Reservation")),
			kit.Get("getReservation", reservation, tag, a.FlowsRead, a.CatalogView).
				Handle(kit.Do(h.getReservation), answer),
			kit.Post("consumeReservation", reservation+"/consume", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(models.ErrReservationExpired, models.ErrReservationNotHeld, models.ErrInsufficientStock, models.ErrRevisionConflict).
				Handle(kit.JSON(h.consumeReservation), kit.OK(kit.Ref("PackagingSystemUsage"))),
			kit.Post("releaseReservation", reservation+"/release", tag, a.FlowsWrite, a.CatalogUpdate).
				Answers(models.ErrInsufficientStock, models.ErrRevisionConflict).
				Handle(kit.JSON(h.releaseReservation), answer),
		},
		Schemas: map[string]kit.Schema{
			"Reservation": packedSchema(map[string]kit.Schema{
				"status": kit.Enum(models.ReservationStatuses...), "expires_at": kit.DateTime(), "revision": kit.Int(),
				"usage": kit.Nullable(kit.UUID()), "updated_at": kit.DateTime(), "ended_at": kit.Nullable(kit.DateTime()),
			}),
		},
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

func reservationToJSON(r *models.Reservation) reservationJSON {
	out := reservationJSON{packedJSON: packedToJSON(&r.PackedSets), Status: r.StatusAt(time.Now()), ExpiresAt: r.ExpiresAt.UTC(),
		Revision: r.Revision, Usage: r.UsageID, UpdatedAt: r.UpdatedAt.UTC()}
	if r.EndedAt != nil {
		ended := r.EndedAt.UTC()
		out.EndedAt = &ended
	}
	return out
}

// createReservation holds the sets and records, in the same unit of
// work, the start of the workflow that expires the hold.
func (h *handlers) createReservation(c *gin.Context, in *models.ReservationCreate) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	r, err := models.CreateReservation(w, id, in)
	if err != nil {
		return err
	}
	fire := r.ExpiresAt
	if limit := h.Config.ReservationTimerCap; limit > 0 && time.Now().Add(limit).Before(fire) {
		fire = time.Now().Add(limit)
	}
	if err := models.StartWorkflow(w, workflows.ReservationWorkflowID(r.ID), workflows.ReservationExpiryType, r.ID,
		workflows.ReservationInput{ReservationID: r.ID, FireAt: fire}); err != nil {
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
	f.Enum("status", &q.Status, input.Enum{Values: models.ReservationStatuses})
}

func (h *handlers) listReservations(c *gin.Context, q *reservationQuery) error {
	db := models.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&models.Reservation{})
	if q.Status.Set() {
		db = models.ReservationsWithStatus(db, q.Status.Value)
	}
	return kit.Paginate(c, db, kit.NewestFirst, reservationToJSON)
}

func (h *handlers) getReservation(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", reservationToJSON)
}

func (h *handlers) consumeReservation(c *gin.Context, in *models.ReservationConsume) error {
	return onRecord(c, "recordId", http.StatusOK, func(id uuid.UUID) (*models.PackagingSystemUsage, error) {
		return models.ConsumeReservation(kit.Work(c), id, in)
	}, usageToJSON)
}

func (h *handlers) releaseReservation(c *gin.Context, in *models.RevisionRequired) error {
	return onRecord(c, "recordId", http.StatusOK, func(id uuid.UUID) (*models.Reservation, error) {
		return models.ReleaseReservation(kit.Work(c), id, in)
	}, reservationToJSON)
}
