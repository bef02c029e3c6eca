package assessments

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain/documents"
	"ppwr/domain/movements"
	"ppwr/domain/registers"
	"ppwr/domain/suppliers"
)

// staleWhen are the changes after which an assessment (a, with its item
// i) no longer shows what it would read now: a record it read, or one it
// would read now, created, changed or decided after it was made (each
// input_*.go says what a chapter reads). Every read and list page
// computes them, so each is one lookup on an index by item, or by
// organization, and time; the first that holds answers. Records naming
// items by a jsonb list (deposit schemes, authority requests, re-use
// systems) are a handful per organization and are scanned by
// organization. The flows and supply events, by the thousand, are asked
// for the time of the newest matching one rather than whether one exists
// after the assessment: the newest is read backwards from the end of
// their (item or organization, ..., created_at) index, where an EXISTS
// may be planned as a scan that finds nothing after reading all of them.
var staleWhen = []string{
	// A newer revision of the item.
	`a.catalog_revision <> i.revision`,
	// A register entry of the item created, superseded or reviewed.
	`EXISTS (SELECT 1 FROM ppwr_register_entries e WHERE e.organization_id = a.organization_id AND e.catalog_item_id = a.catalog_item_id
		AND e.updated_at > a.created_at)`,
	// Evidence about the item decided.
	`EXISTS (SELECT 1 FROM evidence_proposals p WHERE p.catalog_item_id = a.catalog_item_id AND p.decided_at > a.created_at)`,
	// A deposit scheme naming the item accepted: only accepted ones are
	// read, and a scheme is decided once and never edited.
	`EXISTS (SELECT 1 FROM deposit_schemes s WHERE s.organization_id = a.organization_id AND s.review_status = @accepted
		AND s.reviewed_at > a.created_at AND s.items @> jsonb_build_array(a.catalog_item_id::text))`,
	// An authority request naming the item, received by the assessment's
	// date, recorded or marked answered. updated_at also moves once when
	// its bundle is built, moments after it is recorded.
	`EXISTS (SELECT 1 FROM authority_requests r WHERE r.organization_id = a.organization_id AND r.updated_at > a.created_at
		AND r.received_on <= a.assessed_on AND r.items @> jsonb_build_array(a.catalog_item_id::text))`,
	// A re-use system listing the item recorded.
	`EXISTS (SELECT 1 FROM reuse_systems s WHERE s.organization_id = a.organization_id AND s.updated_at > a.created_at
		AND s.items @> jsonb_build_array(a.catalog_item_id::text))`,
	// A supplier-request line about the item reviewed, answered since (a
	// line becomes answered with its first file), or whose answer its
	// request's cancellation leaves unreviewed for good.
	`EXISTS (SELECT 1 FROM supplier_request_lines l JOIN supplier_requests q ON q.id = l.request_id
		WHERE l.organization_id = a.organization_id AND l.catalog_item_id = a.catalog_item_id AND (l.reviewed_at > a.created_at
			OR (l.status = @answered AND q.cancelled_at > a.created_at)
			OR (l.status IN (@answered, @lineAccepted) AND NOT EXISTS (SELECT 1 FROM supplier_request_documents d
				WHERE d.request_id = l.request_id AND d.line_id = l.id AND d.created_at <= a.created_at))))`,
	// A version of a supplier's document about the item approved or
	// revoked.
	`EXISTS (SELECT 1 FROM documents d JOIN document_versions v ON v.document_id = d.id
		WHERE d.organization_id = a.organization_id AND d.catalog_item_id = a.catalog_item_id AND d.party_id IS NOT NULL
		AND v.review_status IN (@approved, @revoked) AND v.reviewed_at > a.created_at)`,
	// A supply record of the item the rules count on the assessment's
	// date (received, or placed on a market, by that date) recorded.
	`(SELECT max(e.created_at) FROM supply_events e WHERE e.catalog_item_id = a.catalog_item_id
		AND e.direction = @received AND e.event_on <= a.assessed_on) > a.created_at`,
	`(SELECT max(f.created_at) FROM flows f WHERE f.catalog_item_id = a.catalog_item_id
		AND f.kind = @placed AND f.event_on <= a.assessed_on) > a.created_at`,
	// The organization's compliance profile: an entry created, superseded
	// or reviewed.
	`EXISTS (SELECT 1 FROM compliance_profile_entries c WHERE c.organization_id = a.organization_id AND c.updated_at > a.created_at)`,
	// Organization-wide inputs count only by the changes that can alter
	// what the rules read from them on the assessment's date. Refill
	// stations: the number per country of the profile, so only a new
	// station there (a station is never edited or removed).
	`EXISTS (SELECT 1 FROM refill_stations s WHERE s.organization_id = a.organization_id AND s.created_at > a.created_at
		AND EXISTS (SELECT 1 FROM compliance_profile_entries c WHERE c.organization_id = s.organization_id AND c.country = s.country_code
			AND c.status = @active AND c.review_status = @accepted))`,
	// EPR reports: only the report of the last year due is read, the year
	// before the date's or the one before that (until 1 June): a report
	// of one of those years recorded, given a line or reviewed.
	`EXISTS (SELECT 1 FROM epr_reports r WHERE r.organization_id = a.organization_id AND r.updated_at > a.created_at
		AND r.year BETWEEN extract(year FROM a.assessed_on)::int - 2 AND extract(year FROM a.assessed_on)::int - 1)`,
	// Flows: the re-use statistics, a micro-enterprise's placed mass and
	// an EPR report's year mass are totals of closed years (the two
	// before the date's), so only a flow dated in one of those years
	// changes them; the running year's flows, the daily ones, do not.
	`GREATEST(
		(SELECT max(f.created_at) FROM flows f WHERE f.organization_id = a.organization_id
			AND extract(year FROM f.event_on)::int = extract(year FROM a.assessed_on)::int - 1),
		(SELECT max(f.created_at) FROM flows f WHERE f.organization_id = a.organization_id
			AND extract(year FROM f.event_on)::int = extract(year FROM a.assessed_on)::int - 2)) > a.created_at`,
}

// staleQuery answers false where no change is found: a max over no
// record is NULL.
var staleQuery = `SELECT a.id, coalesce(` + strings.Join(staleWhen, "\n\t\tOR ") + `, false) AS stale
	FROM assessments a JOIN catalog_items i ON i.id = a.catalog_item_id
	WHERE a.organization_id = @org AND a.id IN @ids`

// AssessmentStale tells, for each assessment, whether what it read has
// changed since (staleWhen).
func AssessmentStale(ctx context.Context, db *gorm.DB, org uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	var rows []struct {
		ID    uuid.UUID
		Stale bool
	}
	err := db.WithContext(ctx).Raw(staleQuery, map[string]any{"org": org, "ids": append(ids, uuid.Nil),
		"active": registers.EntryActive, "accepted": registers.EntryAccepted,
		"answered": suppliers.LineAnswered, "lineAccepted": suppliers.LineAccepted,
		"approved": documents.ReviewApproved, "revoked": documents.ReviewRevoked,
		"received": movements.DirectionReceived, "placed": movements.FlowPlaced}).Scan(&rows).Error
	out := map[uuid.UUID]bool{}
	for _, r := range rows {
		out[r.ID] = r.Stale
	}
	return out, err
}
