package models

import (
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
)

// RefillStation is a place where end users refill their own containers
// (PPWR Art. 28, Annex VI Part C).
type RefillStation struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	Name            string
	Location        string
	CountryCode     string
	Products        datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	RefillRules     string
	HygieneEvidence datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	Revision        int
	CreatedAt       time.Time
	UpdatedAt       time.Time
}
