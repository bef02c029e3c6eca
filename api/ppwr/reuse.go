package ppwr

import (
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/movements"
	"ppwr/domain/records"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/register"
	"ppwr/internal/rules"
)

// reuse is re-use systems and their statistics (PPWR Art. 26-31,
// Annex VI).
func (h *handlers) reuse() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createReuseSystem", kit.Org+"/ppwr/reuse-systems", tag, a.PPWRWrite, a.CatalogUpdate).
				Handle(kit.JSON(h.createReuseSystem), kit.CreatedResponse(kit.Ref("ReuseSystem"), "getReuseSystem")),
			// The spec names no read of a system; its Location needs one.
			kit.Get("getReuseSystem", kit.Org+"/ppwr/reuse-systems/{recordId}", tag, a.PPWRRead, a.ReportsView).
				Handle(kit.Do(h.getReuseSystem), kit.OK(kit.Ref("ReuseSystem"))),
			kit.Get("getReuseStatistics", kit.Org+"/ppwr/reuse-statistics", tag, a.PPWRRead, a.ReportsView).
				Handle(kit.Query(h.reuseStatistics), kit.OK(kit.Ref("ReuseStatistics"))),
		},
		Models: []kit.Model{
			kit.ModelOf[reuseSystemJSON]("ReuseSystem"),
			kit.ModelOf[reuseStatisticsJSON]("ReuseStatistics").Described("schema.reuse_statistics"),
		},
	}
}

type reuseSystemJSON struct {
	ID                  uuid.UUID                  `json:"id"`
	Code                string                     `json:"code"`
	Name                string                     `json:"name"`
	Operator            string                     `json:"operator"`
	Loop                string                     `json:"loop"`
	ReturnIncentive     string                     `json:"return_incentive"`
	Participants        []records.ReuseParticipant `json:"participants"`
	ReconditioningSteps []string                   `json:"reconditioning_steps"`
	Items               []uuid.UUID                `json:"items"`
	Markets             []string                   `json:"markets"`
	CreatedBy           *uuid.UUID                 `json:"created_by"`
	Revision            int                        `json:"revision"`
	CreatedAt           time.Time                  `json:"created_at"`
	UpdatedAt           time.Time                  `json:"updated_at"`
}

func (reuseSystemJSON) Declare(s *kit.Shape) {
	s.Enum("loop", records.ReuseLoops...)
	s.Enum("participants.role", records.ReuseParticipantRoles...)
	s.Enum("reconditioning_steps", register.ReconditioningSteps...)
}

func reuseSystemToJSON(s *records.ReuseSystem) reuseSystemJSON {
	return reuseSystemJSON{ID: s.ID, Code: s.Code, Name: s.Name, Operator: s.Operator, Loop: s.Loop,
		ReturnIncentive: s.ReturnIncentive, Participants: s.Participants, ReconditioningSteps: s.ReconditioningSteps,
		Items: s.Items, Markets: s.Markets, CreatedBy: s.CreatedBy, Revision: s.Revision,
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
}

func (h *handlers) getReuseSystem(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", reuseSystemToJSON)
}

func (h *handlers) createReuseSystem(c *gin.Context, in *records.ReuseSystemCreate) error {
	s, err := records.CreateReuseSystem(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, s.ID, reuseSystemToJSON(s))
}

// reuseStatisticsJSON is the statistics as the domain computes them, with
// the vocabularies their fields take values from.
type reuseStatisticsJSON struct{ records.ReuseStatistics }

func (reuseStatisticsJSON) Declare(s *kit.Shape) {
	s.Enum("formats.format", register.Article29Formats...)
	s.Enum("formats.flow_kind", movements.FlowKinds...)
	s.Enum("formats.targets.kind", rules.TargetBinding, rules.TargetEndeavour)
	s.Enum("formats.targets.status", rules.TargetStatuses...)
}

// statisticsQuery is the year of the statistics, and optionally one
// system.
type statisticsQuery struct {
	input.Errors
	Year   input.Opt[int]
	System input.Opt[uuid.UUID]
}

func (q *statisticsQuery) Declare(f *input.Fields) {
	f.Int("year", &q.Year, input.Int{Required: true, Min: 2024, Max: 2100})
	f.Ref("system", &q.System, input.Ref{})
}

func (h *handlers) reuseStatistics(c *gin.Context, q *statisticsQuery) error {
	ctx, org := c.Request.Context(), kit.OrgID(c)
	var system *uuid.UUID
	if q.System.Set() {
		if _, err := domain.Find[records.ReuseSystem](ctx, h.DB, org, q.System.Value); err != nil {
			if errors.Is(err, domain.ErrNotFound) {
				q.Fail("system", "field.not_found")
				return q.Err()
			}
			return err
		}
		system = &q.System.Value
	}
	stats, err := records.ComputeReuseStatistics(ctx, h.DB, org, q.Year.Value, system, rules.KnownActs())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, reuseStatisticsJSON{*stats})
	return nil
}
