// Package audit is the spec's audit log: every write, newest first.
package audit

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

const tag = "audit"

type handlers struct{ kit.Deps }

// Area declares the audit log's operation and the model of its entries.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listAuditLog", kit.Org+"/audit-log", tag, a.AuditRead, a.AuditView).
				Handle(kit.Query(h.listAuditLog), kit.ListOK("AuditEntry")),
		},
		Models: []kit.Model{kit.ModelOf[entryJSON]("AuditEntry")},
	}
}

type actorJSON struct {
	Type     string     `json:"type"`
	UserID   *uuid.UUID `json:"user_id"`
	APIKeyID *uuid.UUID `json:"api_key_id"`
	Name     *string    `json:"name" schema:"desc=audit.actor_name"`
}

func (actorJSON) Declare(s *kit.Shape) { s.Enum("type", work.ActorKinds...) }

type entryJSON struct {
	ID         uuid.UUID       `json:"id"`
	OccurredAt time.Time       `json:"occurred_at"`
	Actor      actorJSON       `json:"actor"`
	Operation  string          `json:"operation"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Status     *int            `json:"status"`
	RecordType *string         `json:"record_type"`
	RecordID   *uuid.UUID      `json:"record_id"`
	RequestID  string          `json:"request_id"`
	Summary    json.RawMessage `json:"summary" schema:"object"`
}

func entryToJSON(e *domain.AuditEntry) entryJSON {
	return entryJSON{
		ID: e.ID, OccurredAt: e.OccurredAt.UTC(),
		Actor:     actorJSON{Type: e.ActorKind, UserID: e.ActorUserID, APIKeyID: e.APIKeyID, Name: nonEmpty(e.ActorName)},
		Operation: e.Operation, Method: e.Method, Path: e.Path, Status: e.Status,
		RecordType: nonEmpty(e.RecordType), RecordID: e.RecordID, RequestID: e.RequestID,
		Summary: json.RawMessage(e.Summary),
	}
}

// nonEmpty renders a column that holds "" for none as null.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// period is the audit log's filter: inclusive calendar days in UTC.
type period struct {
	input.Errors
	From input.Opt[time.Time]
	To   input.Opt[time.Time]
}

func (p *period) Declare(f *input.Fields) {
	f.Date("from", &p.From, input.Date{})
	f.Date("to", &p.To, input.Date{})
	if f.Binding() && p.From.Set() && p.To.Set() && p.To.Value.Before(p.From.Value) {
		f.Fail("to", "field.date_before", "from")
	}
}

// listAuditLog pages through the organization's audit log, newest first.
func (h *handlers) listAuditLog(c *gin.Context, p *period) error {
	q := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&domain.AuditEntry{})
	if p.From.Set() {
		q = q.Where("occurred_at >= ?", p.From.Value)
	}
	if p.To.Set() {
		q = q.Where("occurred_at < ?", p.To.Value.AddDate(0, 0, 1))
	}
	return kit.Paginate(c, q, kit.NewestFirst, entryToJSON)
}
