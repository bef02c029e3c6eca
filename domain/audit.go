package domain

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/internal/work"
)

// AuditEntry is one write, appended in the transaction of the write itself.
type AuditEntry struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	OccurredAt     time.Time
	ActorUserID    *uuid.UUID `gorm:"type:uuid"`
	APIKeyID       *uuid.UUID `gorm:"type:uuid;column:api_key_id"`
	ActorKind      string
	// ActorName is the person an operator's entry acts for (WithOperator);
	// empty for API keys and the system.
	ActorName  string
	Operation  string
	Method     string
	Path       string
	Status     *int
	RecordType string
	RecordID   *uuid.UUID `gorm:"type:uuid"`
	RequestID  string
	Summary    datatypes.JSON `gorm:"type:jsonb"`
}

// TableName keeps the table name singular like the spec's resource name.
func (AuditEntry) TableName() string { return "audit_log" }

// Audit actor kinds.
const (
	ActorAPIKey   = work.ActorAPIKey
	ActorOperator = work.ActorOperator
	ActorSystem   = work.ActorSystem
)

// BeforeCreate fills what an entry's writer may leave out.
func (e *AuditEntry) BeforeCreate(*gorm.DB) error {
	if e.ID == uuid.Nil {
		e.ID = NewID()
	}
	if e.OccurredAt.IsZero() {
		e.OccurredAt = time.Now().UTC()
	}
	if len(e.Summary) == 0 {
		e.Summary = datatypes.JSON(`{}`)
	}
	return nil
}

// AppendAudit writes an entry; callers pass their transaction so the entry
// commits or rolls back with the change it describes.
func AppendAudit(ctx context.Context, tx *gorm.DB, e *AuditEntry) error {
	return tx.WithContext(ctx).Create(e).Error
}

// operatorKey is the context key of WithOperator.
type operatorKey struct{}

// WithOperator names the person an operator's commands run for on ctx:
// the support account signed in to the console, or the login that runs
// `ppwr admin`. Their audit entries (AuditOperator, and Commit of a unit
// whose actor is an operator) record it, so the commands need no
// parameter of their own for it.
func WithOperator(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, operatorKey{}, name)
}

// OperatorName is the name WithOperator put on ctx, or empty.
func OperatorName(ctx context.Context) string {
	name, _ := ctx.Value(operatorKey{}).(string)
	return name
}

// AuditOperator appends the entry of an operator's change to the
// organization's audit log, in tx, the transaction of the change.
func AuditOperator(ctx context.Context, tx *gorm.DB, orgID uuid.UUID, operation, recordType string, recordID uuid.UUID, summary map[string]any) error {
	raw, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	return AppendAudit(ctx, tx, &AuditEntry{
		OrganizationID: orgID, ActorKind: ActorOperator, ActorName: OperatorName(ctx), Operation: operation,
		RecordType: recordType, RecordID: &recordID, Summary: datatypes.JSON(raw),
	})
}

// Commit finishes w: its deferred rows, its audit entry and extra rows
// are written in one statement and the transaction commits. entry says
// what was done (operation, and for requests method, path and status); the
// unit supplies who did it and to which record.
func Commit(w *work.Unit, entry AuditEntry, extra ...any) error {
	actor := w.Actor()
	entry.OrganizationID, entry.ActorKind = actor.OrganizationID, actor.Kind
	entry.ActorUserID, entry.APIKeyID, entry.RequestID = actor.UserID, actor.APIKeyID, actor.Reference
	if actor.Kind == ActorOperator {
		entry.ActorName = OperatorName(w.Context())
	}
	if rec := w.Touched(); rec != nil {
		entry.RecordType, entry.RecordID = rec.Type, &rec.ID
	}
	return w.Commit(append([]any{&entry}, extra...)...)
}
