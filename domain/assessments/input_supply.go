package assessments

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/movements"
	"ppwr/domain/suppliers"
	"ppwr/internal/rules"
)

// supplyInput loads what the supply-chain rules (R38-R40, R59, R61) read
// beyond the item's registers, with a few indexed queries: the authority
// requests naming the item, its suppliers' answers and documents when it
// is bought, its supply records per day, and, when the item names the
// organization an EPR producer somewhere, the organization's EPR reports.
// Authority requests and EPR reports belong to a higher tier of the
// domain (records), so they are read by their tables.
func supplyInput(ctx context.Context, db *gorm.DB, org uuid.UUID, item *catalog.CatalogItem, in *rules.Input) error {
	db = db.WithContext(ctx)
	in.Sourcing, in.ReuseType = item.SourcingType, item.ReuseType
	named, err := json.Marshal([]uuid.UUID{item.ID})
	if err != nil {
		return err
	}
	if err := db.Raw(`SELECT authority_reference AS reference, received_on, due_on, answered_on FROM authority_requests
		WHERE organization_id = ? AND items @> ?::jsonb ORDER BY due_on, id`, org, string(named)).Scan(&in.AuthorityRequests).Error; err != nil {
		return err
	}
	if rules.BoughtFromSupplier(item.SourcingType) {
		if err := supplierInput(db, org, item.ID, in); err != nil {
			return err
		}
	}
	if err := db.Raw(`SELECT event_on AS "on", count(*) AS records, count(*) FILTER (WHERE counterparty_name IS NULL) AS without_counterparty
		FROM (SELECT event_on, counterparty_name FROM supply_events WHERE organization_id = ? AND catalog_item_id = ? AND direction = ?
			UNION ALL
			SELECT event_on, counterparty_name FROM flows WHERE organization_id = ? AND catalog_item_id = ? AND kind = ?) s
		GROUP BY event_on ORDER BY event_on`, org, item.ID, movements.DirectionReceived, org, item.ID, movements.FlowPlaced).
		Scan(&in.SupplyDays).Error; err != nil {
		return err
	}
	if !eprProducerSomewhere(in) {
		return nil
	}
	// Only an approved simplified report needs the year's mass, and a
	// simplified one covers a small mass: the sum stays cheap.
	return db.Raw(`SELECT country, year, period_from, period_to, form, review_status,
			CASE WHEN review_status = ? AND form = ? THEN (SELECT coalesce(sum(f.mass_g), 0) FROM flows f
				WHERE f.organization_id = r.organization_id AND f.country = r.country
				AND f.event_on BETWEEN make_date(r.year, 1, 1) AND make_date(r.year, 12, 31)) END AS year_mass_g
		FROM epr_reports r WHERE organization_id = ? ORDER BY created_at DESC, id DESC`, rules.EPRApproved, rules.EPRSimplified, org).
		Scan(&in.EPRReports).Error
}

// supplierInput loads the answered lines of supplier requests about the
// item and the supplier documents about it with an approved version.
func supplierInput(db *gorm.DB, org, itemID uuid.UUID, in *rules.Input) error {
	var lines []struct {
		ComponentID   *uuid.UUID
		LineStatus    string
		RequestStatus string
	}
	if err := db.Raw(`SELECT l.component_id, l.status AS line_status, r.status AS request_status
		FROM supplier_request_lines l JOIN supplier_requests r ON r.id = l.request_id
		WHERE l.organization_id = ? AND l.catalog_item_id = ? AND l.status IN ?`,
		org, itemID, []string{suppliers.LineAnswered, suppliers.LineAccepted}).Scan(&lines).Error; err != nil {
		return err
	}
	for _, l := range lines {
		in.SupplierAnswers = append(in.SupplierAnswers, rules.SupplierAnswer{Component: l.ComponentID,
			Accepted: l.LineStatus == suppliers.LineAccepted, Cancelled: l.RequestStatus == suppliers.RequestCancelled})
	}
	return db.Raw(`SELECT valid_from, valid_until FROM documents d
		WHERE organization_id = ? AND catalog_item_id = ? AND party_id IS NOT NULL
		AND EXISTS (SELECT 1 FROM document_versions v WHERE v.document_id = d.id AND v.review_status = ?)`,
		org, itemID, documents.ReviewApproved).Scan(&in.SupplierDocuments).Error
}

// eprProducerSomewhere reports whether an entry of the item names the
// organization the EPR producer in a market: only then do its EPR
// reports matter.
func eprProducerSomewhere(in *rules.Input) bool {
	for _, e := range in.Entries {
		if e.Register == "role-duties" && e.Values.Bool("epr_producer") {
			return true
		}
	}
	return false
}
