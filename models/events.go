package models

import "github.com/google/uuid"

// The event catalogue: one type per outbound event. Each area emits its
// types once it is built; the README's catalogue and the OpenAPI
// "webhooks" section are generated from, or checked against, this list.
// Data fields are ids and scalars only.
var EventCatalogue = []Payload{
	CatalogItemCreated{}, CatalogItemUpdated{}, CatalogItemArchived{}, CatalogItemRestored{},
	ComponentCreated{}, MarketsChanged{},
	FamilyCreated{}, FamilyUpdated{}, FolderCreated{}, FolderUpdated{}, FolderDeleted{}, PartyCreated{},
	PackagingSystemCreated{}, PackagingSystemUpdated{}, PackagingSystemArchived{}, PackagingSystemRestored{},
	PackagingSystemConsumed{},
	ReservationCreated{}, ReservationConsumed{}, ReservationReleased{}, ReservationExpired{},
	PackingConsumptionCreated{}, SupplyEventCreated{}, FlowCreated{},
	DocumentVersionCreated{}, DocumentVersionProcessed{}, DocumentVersionQuarantined{}, DocumentVersionDecided{},
	EvidenceProposalCreated{}, EvidenceProposalDecided{}, TraceabilityLinkCreated{}, GeneratedDocumentCreated{},
	SupplierRequestCreated{}, SupplierRequestSent{}, SupplierRequestCancelled{}, SupplierRequestLineReviewed{}, SupplierRequestReplyReceived{}, ComplianceIssueOpened{}, ComplianceIssueResolved{},
	ImportReady{}, ImportCompleted{}, ImportFailed{},
	AssessmentCreated{}, AssessmentReviewed{}, AssessmentStaleEvent{}, RegisterEntryCreated{}, RegisterEntryReviewed{},
	BDOReportPrepared{}, CarbonCalculationCreated{}, CarbonFactorCreated{}, CarbonFactorArchived{},
	RefillStationCreated{}, DepositSchemeCreated{}, DepositSchemeReviewed{}, ReuseSystemCreated{},
	AuthorityRequestCreated{}, AuthorityRequestBundleReady{}, AuthorityRequestBundleFailed{}, AuthorityRequestAnswered{},
	EPRReportCreated{}, EPRReportLineAdded{}, EPRReportReviewed{},
	PassportCreated{}, PassportPublishedEvent{}, PassportShared{}, SharingGrantReceived{}, SharingGrantRevoked{},
}

// EventTypes are the names of the catalogue's types, in its order.
func EventTypes() []string {
	out := make([]string, len(EventCatalogue))
	for i, p := range EventCatalogue {
		out[i] = p.EventType()
	}
	return out
}

// ItemRevision is the data of the events that make a new revision of a
// catalogue item.
type ItemRevision struct {
	CatalogItemID uuid.UUID `json:"catalog_item_id"`
	Revision      int       `json:"revision"`
}

type CatalogItemCreated ItemRevision
type CatalogItemUpdated ItemRevision
type CatalogItemArchived ItemRevision
type CatalogItemRestored ItemRevision
type ComponentCreated ItemRevision
type MarketsChanged ItemRevision

func (CatalogItemCreated) EventType() string  { return "catalog_item.created" }
func (CatalogItemUpdated) EventType() string  { return "catalog_item.updated" }
func (CatalogItemArchived) EventType() string { return "catalog_item.archived" }
func (CatalogItemRestored) EventType() string { return "catalog_item.restored" }
func (ComponentCreated) EventType() string    { return "component.created" }
func (MarketsChanged) EventType() string      { return "markets.changed" }

// FamilyRevision is the data of the family events.
type FamilyRevision struct {
	FamilyID uuid.UUID `json:"family_id"`
	Revision int       `json:"revision"`
}

type FamilyCreated FamilyRevision
type FamilyUpdated FamilyRevision

func (FamilyCreated) EventType() string { return "family.created" }
func (FamilyUpdated) EventType() string { return "family.updated" }

// FolderPlacement is the data of folder.created and folder.updated.
type FolderPlacement struct {
	FolderID uuid.UUID  `json:"folder_id"`
	ParentID *uuid.UUID `json:"parent_id"`
	Revision int        `json:"revision"`
}

type FolderCreated FolderPlacement
type FolderUpdated FolderPlacement

func (FolderCreated) EventType() string { return "folder.created" }
func (FolderUpdated) EventType() string { return "folder.updated" }

// FolderDeleted announces a folder's deletion at its last revision.
type FolderDeleted struct {
	FolderID uuid.UUID `json:"folder_id"`
	Revision int       `json:"revision"`
}

func (FolderDeleted) EventType() string { return "folder.deleted" }

// PartyCreated announces a new business partner.
type PartyCreated struct {
	PartyID uuid.UUID `json:"party_id"`
}

func (PartyCreated) EventType() string { return "party.created" }

// The areas below are not built yet; their data is the changed record's id
// and revision or status, and may gain fields (never lose any) when built.

// PackagingSystemRevision is the data of the packaging-system events.
type PackagingSystemRevision struct {
	PackagingSystemID uuid.UUID `json:"packaging_system_id"`
	Revision          int       `json:"revision"`
}

type PackagingSystemCreated PackagingSystemRevision
type PackagingSystemUpdated PackagingSystemRevision
type PackagingSystemArchived PackagingSystemRevision
type PackagingSystemRestored PackagingSystemRevision
type PackagingSystemConsumed PackagingSystemRevision

func (PackagingSystemCreated) EventType() string  { return "packaging_system.created" }
func (PackagingSystemUpdated) EventType() string  { return "packaging_system.updated" }
func (PackagingSystemArchived) EventType() string { return "packaging_system.archived" }
func (PackagingSystemRestored) EventType() string { return "packaging_system.restored" }
func (PackagingSystemConsumed) EventType() string { return "packaging_system.consumed" }

// ReservationStatus is the data of the reservation events.
type ReservationStatus struct {
	ReservationID uuid.UUID `json:"reservation_id"`
	Status        string    `json:"status"`
}

type ReservationCreated ReservationStatus
type ReservationConsumed ReservationStatus
type ReservationReleased ReservationStatus
type ReservationExpired ReservationStatus

func (ReservationCreated) EventType() string  { return "reservation.created" }
func (ReservationConsumed) EventType() string { return "reservation.consumed" }
func (ReservationReleased) EventType() string { return "reservation.released" }
func (ReservationExpired) EventType() string  { return "reservation.expired" }

// RecordCreated is the data of events that announce a new record by id.
type RecordCreated struct {
	ID uuid.UUID `json:"id"`
}

type PackingConsumptionCreated RecordCreated
type SupplyEventCreated RecordCreated
type FlowCreated RecordCreated
type EvidenceProposalCreated RecordCreated
type TraceabilityLinkCreated RecordCreated
type GeneratedDocumentCreated RecordCreated
type SupplierRequestCreated RecordCreated
type AssessmentCreated RecordCreated
type CarbonCalculationCreated RecordCreated
type CarbonFactorCreated RecordCreated

func (PackingConsumptionCreated) EventType() string { return "packing_consumption.created" }
func (SupplyEventCreated) EventType() string        { return "supply_event.created" }
func (FlowCreated) EventType() string               { return "flow.created" }
func (EvidenceProposalCreated) EventType() string   { return "evidence_proposal.created" }
func (TraceabilityLinkCreated) EventType() string   { return "traceability_link.created" }
func (GeneratedDocumentCreated) EventType() string  { return "generated_document.created" }
func (SupplierRequestCreated) EventType() string    { return "supplier_request.created" }
func (AssessmentCreated) EventType() string         { return "assessment.created" }
func (CarbonCalculationCreated) EventType() string  { return "carbon_calculation.created" }
func (CarbonFactorCreated) EventType() string       { return "carbon_factor.created" }

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

// AssessmentStaleEvent announces that what an assessment read has changed
// since: run a new one.
type AssessmentStaleEvent RecordCreated

func (AssessmentStaleEvent) EventType() string { return "assessment.stale" }

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

// RecordStatus is the data of events that announce a record's new status.
type RecordStatus struct {
	ID     uuid.UUID `json:"id"`
	Status string    `json:"status"`
}

type DocumentVersionCreated RecordStatus
type DocumentVersionProcessed RecordStatus
type DocumentVersionQuarantined RecordStatus
type DocumentVersionDecided RecordStatus
type EvidenceProposalDecided RecordStatus
type SupplierRequestSent RecordStatus
type SupplierRequestCancelled RecordStatus
type SupplierRequestLineReviewed RecordStatus
type ImportReady RecordStatus
type ImportCompleted RecordStatus
type ImportFailed RecordStatus
type AssessmentReviewed RecordStatus
type BDOReportPrepared RecordStatus
type CarbonFactorArchived RecordStatus

func (DocumentVersionCreated) EventType() string      { return "document_version.created" }
func (DocumentVersionProcessed) EventType() string    { return "document_version.processed" }
func (DocumentVersionQuarantined) EventType() string  { return "document_version.quarantined" }
func (DocumentVersionDecided) EventType() string      { return "document_version.decided" }
func (EvidenceProposalDecided) EventType() string     { return "evidence_proposal.decided" }
func (SupplierRequestSent) EventType() string         { return "supplier_request.sent" }
func (SupplierRequestCancelled) EventType() string    { return "supplier_request.cancelled" }
func (SupplierRequestLineReviewed) EventType() string { return "supplier_request_line.reviewed" }
func (ImportReady) EventType() string                 { return "import.ready" }
func (ImportCompleted) EventType() string             { return "import.completed" }
func (ImportFailed) EventType() string                { return "import.failed" }
func (AssessmentReviewed) EventType() string          { return "assessment.reviewed" }
func (BDOReportPrepared) EventType() string           { return "bdo_report.prepared" }
func (CarbonFactorArchived) EventType() string        { return "carbon_factor.archived" }

// IssueChange is the data of the events of a compliance issue.
type IssueChange struct {
	ID   uuid.UUID `json:"id"`
	Kind string    `json:"kind"`
}

type ComplianceIssueOpened IssueChange
type ComplianceIssueResolved IssueChange

func (ComplianceIssueOpened) EventType() string   { return "compliance_issue.opened" }
func (ComplianceIssueResolved) EventType() string { return "compliance_issue.resolved" }
