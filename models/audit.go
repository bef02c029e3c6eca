package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"
)

// AuditEntry is one write, appended in the transaction of the write itself.
type AuditEntry struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	OccurredAt     time.Time
	ActorUserID    *uuid.UUID `gorm:"type:uuid"`
	APIKeyID       *uuid.UUID `gorm:"type:uuid;column:api_key_id"`
	ActorKind      string
	Operation      string
	Method         string
	Path           string
	Status         *int
	RecordType     string
	RecordID       *uuid.UUID `gorm:"type:uuid"`
	RequestID      string
	Summary        datatypes.JSON `gorm:"type:jsonb"`
}

// TableName keeps the table name singular like the spec's resource name.
func (AuditEntry) TableName() string { return "audit_log" }

// Audit actor kinds.
const (
	ActorAPIKey   = "api_key"
	ActorOperator = "operator"
	ActorSystem   = "system"
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
