package profiles

import "github.com/google/uuid"

// ProfileEntryCreated announces a new entry of the organization's
// compliance profile for a Member State.
type ProfileEntryCreated struct {
	ID      uuid.UUID `json:"id"`
	Country string    `json:"country"`
}

func (ProfileEntryCreated) EventType() string { return "compliance_profile_entry.created" }

// ProfileEntryReviewed announces its internal review decision.
type ProfileEntryReviewed struct {
	ID       uuid.UUID `json:"id"`
	Country  string    `json:"country"`
	Decision string    `json:"decision"`
}

func (ProfileEntryReviewed) EventType() string { return "compliance_profile_entry.reviewed" }
