package registers

import (
	"github.com/google/uuid"
)

// RegisterEntryCreated announces a new entry of a PPWR register about an
// item.
type RegisterEntryCreated struct {
	ID       uuid.UUID `json:"id"`
	Register string    `json:"register"`
	Item     uuid.UUID `json:"item"`
}

func (RegisterEntryCreated) EventType() string { return "ppwr_register_entry.created" }

// RegisterEntryReviewed announces an entry's internal review decision.
type RegisterEntryReviewed struct {
	ID       uuid.UUID `json:"id"`
	Register string    `json:"register"`
	Decision string    `json:"decision"`
}

func (RegisterEntryReviewed) EventType() string { return "ppwr_register_entry.reviewed" }
