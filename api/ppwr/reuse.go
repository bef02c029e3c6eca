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
		Schemas: reuseSchemas(),
	}
}

func reuseSchemas() map[string]kit.Schema {
	count, pct := kit.Int(), kit.Nullable(kit.DecimalString())
	return map[string]kit.Schema{
		"ReuseSystem": kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "code": kit.Str(), "name": kit.Str(), "operator": kit.Str(), "loop": kit.Enum(records.ReuseLoops...),
			"return_incentive": kit.Str(),
			"participants": kit.ArrayOf(kit.Object(map[string]kit.Schema{
				"name": kit.Str(), "role": kit.Enum(records.ReuseParticipantRoles...), "confirmation": kit.Nullable(kit.UUID()),
			})),
			"reconditioning_steps": kit.ArrayOf(kit.Enum(register.ReconditioningSteps...)), "items": kit.ArrayOf(kit.UUID()),
			"markets": kit.ArrayOf(kit.Str()), "created_by": kit.Nullable(kit.UUID()), "revision": kit.Int(),
			"created_at": kit.DateTime(), "updated_at": kit.DateTime(),
		}),
		"ReuseStatistics": kit.Described(kit.Object(map[string]kit.Schema{
			"year": kit.Int(), "flows_without_format": count, "method": kit.Str(),
			"systems": kit.ArrayOf(kit.Object(map[string]kit.Schema{
				"system": kit.UUID(), "code": kit.Str(), "name": kit.Str(), "unit_entries": count, "units_in_circulation": count,
				"trips": count, "rotations": count, "rejects": count, "return_events": count, "estimated_entries": count,
				"return_rate_pct": pct,
			})),
			"formats": kit.ArrayOf(kit.Object(map[string]kit.Schema{
				"format": kit.Enum(register.Article29Formats...), "flow_kind": kit.Enum(movements.FlowKinds...),
				"reusable_units": kit.DecimalString(), "single_use_units": kit.DecimalString(), "exempt_units": kit.DecimalString(),
				"flows_not_in_pieces": count, "reusable_share_pct": pct,
				"targets": kit.ArrayOf(kit.Object(map[string]kit.Schema{
					"article": kit.Str(), "share_pct": kit.DecimalString(), "kind": kit.Enum(records.TargetBinding, records.TargetEndeavour),
					"applies_from": kit.Date(), "provisional": kit.Bool(),
					"status": kit.Enum("met", "not_met", "not_applicable", "no_data"),
				})),
			})),
		}), "schema.reuse_statistics"),
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
	c.JSON(http.StatusOK, stats)
	return nil
}
