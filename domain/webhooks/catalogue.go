package webhooks

import (
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/bdo"
	"ppwr/domain/carbon"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/imports"
	"ppwr/domain/movements"
	"ppwr/domain/packing"
	"ppwr/domain/passports"
	"ppwr/domain/profiles"
	"ppwr/domain/records"
	"ppwr/domain/registers"
	"ppwr/domain/suppliers"
)

// The event catalogue: one type per outbound event. Each area emits its
// types once it is built; the README's catalogue and the OpenAPI
// "webhooks" section are generated from, or checked against, this list.
// Data fields are ids and scalars only.
var EventCatalogue = []domain.Payload{
	catalog.CatalogItemCreated{}, catalog.CatalogItemUpdated{}, catalog.CatalogItemArchived{}, catalog.CatalogItemRestored{},
	catalog.ComponentCreated{}, catalog.MarketsChanged{},
	catalog.FamilyCreated{}, catalog.FamilyUpdated{}, catalog.FolderCreated{}, catalog.FolderUpdated{}, catalog.FolderDeleted{}, catalog.PartyCreated{},
	packing.PackagingSystemCreated{}, packing.PackagingSystemUpdated{}, packing.PackagingSystemArchived{}, packing.PackagingSystemRestored{},
	packing.PackagingSystemConsumed{},
	packing.ReservationCreated{}, packing.ReservationConsumed{}, packing.ReservationReleased{}, packing.ReservationExpired{},
	packing.PackingConsumptionCreated{}, movements.SupplyEventCreated{}, movements.FlowCreated{},
	documents.DocumentVersionCreated{}, documents.DocumentVersionProcessed{}, documents.DocumentVersionQuarantined{}, documents.DocumentVersionDecided{},
	documents.AnalysisCompletedEvent{}, documents.EvidenceProposalCreated{}, documents.EvidenceProposalDecided{}, documents.TraceabilityLinkCreated{}, documents.GeneratedDocumentCreated{},
	suppliers.SupplierRequestCreated{}, suppliers.SupplierRequestSent{}, suppliers.SupplierRequestCancelled{}, suppliers.SupplierRequestLineReviewed{}, suppliers.SupplierRequestReplyReceived{}, domain.ComplianceIssueOpened{}, domain.ComplianceIssueResolved{},
	imports.ImportReady{}, imports.ImportCompleted{}, imports.ImportFailed{},
	assessments.AssessmentCreated{}, assessments.AssessmentReviewed{}, assessments.AssessmentStaleEvent{}, registers.RegisterEntryCreated{}, registers.RegisterEntryReviewed{},
	bdo.BDOReportPrepared{}, carbon.CarbonCalculationCreated{}, carbon.CarbonFactorCreated{}, carbon.CarbonFactorArchived{},
	records.RefillStationCreated{}, records.DepositSchemeCreated{}, records.DepositSchemeReviewed{}, records.ReuseSystemCreated{},
	records.AuthorityRequestCreated{}, records.AuthorityRequestBundleReady{}, records.AuthorityRequestBundleFailed{}, records.AuthorityRequestAnswered{},
	records.EPRReportCreated{}, records.EPRReportLineAdded{}, records.EPRReportReviewed{},
	profiles.ProfileEntryCreated{}, profiles.ProfileEntryReviewed{},
	passports.PassportCreated{}, passports.PassportPublishedEvent{}, passports.PassportShared{}, passports.SharingGrantReceived{}, passports.SharingGrantRevoked{},
}

// EventTypes are the names of the catalogue's types, in its order.
func EventTypes() []string {
	out := make([]string, len(EventCatalogue))
	for i, p := range EventCatalogue {
		out[i] = p.EventType()
	}
	return out
}
