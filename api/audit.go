package api

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/models"
)

type auditActorJSON struct {
	Type     string     `json:"type"`
	UserID   *uuid.UUID `json:"user_id"`
	APIKeyID *uuid.UUID `json:"api_key_id"`
}

type auditEntryJSON struct {
	ID         uuid.UUID       `json:"id"`
	OccurredAt time.Time       `json:"occurred_at"`
	Actor      auditActorJSON  `json:"actor"`
	Operation  string          `json:"operation"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Status     *int            `json:"status"`
	RecordType *string         `json:"record_type"`
	RecordID   *uuid.UUID      `json:"record_id"`
	RequestID  string          `json:"request_id"`
	Summary    json.RawMessage `json:"summary"`
}

func auditEntryToJSON(e *models.AuditEntry) auditEntryJSON {
	var recordType *string
	if e.RecordType != "" {
		recordType = &e.RecordType
	}
	return auditEntryJSON{
		ID: e.ID, OccurredAt: e.OccurredAt.UTC(),
		Actor:     auditActorJSON{Type: e.ActorKind, UserID: e.ActorUserID, APIKeyID: e.APIKeyID},
		Operation: e.Operation, Method: e.Method, Path: e.Path, Status: e.Status,
		RecordType: recordType, RecordID: e.RecordID, RequestID: e.RequestID,
		Summary: json.RawMessage(e.Summary),
	}
}

// listAuditLog pages through the organization's audit log, newest first.
// from and to are inclusive calendar dates in UTC.
func (s *Server) listAuditLog(c *gin.Context) error {
	q := s.DB.WithContext(c.Request.Context()).Model(&models.AuditEntry{}).Scopes(models.InOrganization(credentialOf(c).OrganizationID))
	var fields []FieldError
	from, okFrom := parseDateParam(c, "from", &fields)
	to, okTo := parseDateParam(c, "to", &fields)
	if okFrom && okTo && to.Before(from) {
		fields = append(fields, Field("to", "field.date_before", "from"))
	}
	if len(fields) > 0 {
		return Invalid(fields...)
	}
	if okFrom {
		q = q.Where("occurred_at >= ?", from)
	}
	if okTo {
		q = q.Where("occurred_at < ?", to.AddDate(0, 0, 1))
	}
	return paginate(c, s, q, true, func(e *models.AuditEntry) uuid.UUID { return e.ID }, auditEntryToJSON)
}

// parseDateParam reads an optional YYYY-MM-DD query parameter.
func parseDateParam(c *gin.Context, name string, fields *[]FieldError) (time.Time, bool) {
	raw, ok := c.GetQuery(name)
	if !ok {
		return time.Time{}, false
	}
	d, err := time.Parse(time.DateOnly, raw)
	if err != nil {
		*fields = append(*fields, Field(name, "field.date_format"))
		return time.Time{}, false
	}
	return d, true
}
