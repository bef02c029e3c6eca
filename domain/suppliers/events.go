package suppliers

import (
	"github.com/google/uuid"

	"ppwr/domain"
)

type SupplierRequestCreated domain.RecordCreated

func (SupplierRequestCreated) EventType() string { return "supplier_request.created" }

// SupplierRequestReplyReceived announces a reply filed under a request:
// how many document versions its attachments made (the request's detail
// lists them) and, when set, why they wait for triage instead of
// answering a line.
type SupplierRequestReplyReceived struct {
	ID        uuid.UUID `json:"id"`
	Request   uuid.UUID `json:"supplier_request"`
	Documents int       `json:"document_count"`
	Flag      *string   `json:"flag"`
}

func (SupplierRequestReplyReceived) EventType() string { return "supplier_request.reply_received" }

type SupplierRequestSent domain.RecordStatus

type SupplierRequestCancelled domain.RecordStatus

type SupplierRequestLineReviewed domain.RecordStatus

func (SupplierRequestSent) EventType() string { return "supplier_request.sent" }

func (SupplierRequestCancelled) EventType() string { return "supplier_request.cancelled" }

func (SupplierRequestLineReviewed) EventType() string { return "supplier_request_line.reviewed" }
