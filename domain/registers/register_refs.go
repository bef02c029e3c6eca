package registers

import (
	"context"
	"strconv"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/input"
	"ppwr/internal/register"
)

// refCheck gathers what a new record refers to (items, components,
// scenarios, document versions, evidence proposals), each under the field
// that names it, and checks them with one query per kind of record.
type refCheck struct {
	errs  *input.Errors
	item  uuid.UUID
	found map[string][]namedRef
}

type namedRef struct {
	field string
	id    uuid.UUID
}

// What each kind of reference must be, as a query of the records of one
// kind: the ones that qualify answer "ok", the others their status.
type refKind struct {
	table, status, ofItem string
	unknown, refused      string
}

var refKinds = map[string]refKind{
	"item": {table: "catalog_items", status: "CASE WHEN archived_at IS NULL THEN 'ok' ELSE 'archived' END",
		unknown: "field.not_found", refused: "field.archived"},
	"component": {table: "catalog_item_components", status: "'ok'", ofItem: "catalog_item_id = ?",
		unknown: "field.not_component_of_item"},
	"scenario": {table: "market_scenarios", status: "CASE WHEN active THEN 'ok' ELSE 'inactive' END", ofItem: "catalog_item_id = ?",
		unknown: "field.not_scenario_of_item", refused: "field.scenario_inactive"},
	"document": {table: "document_versions", status: "CASE WHEN review_status = 'approved' THEN 'ok' ELSE review_status END",
		unknown: "field.unknown_document_version", refused: "field.document_not_approved"},
	"proposal": {table: "evidence_proposals", status: "CASE WHEN status IN ('accepted', 'acceptedModified') THEN 'ok' ELSE status END",
		unknown: "field.unknown_proposal", refused: "field.proposal_not_accepted"},
}

// NewRefCheck checks references into errs; item, when not nil, is the
// item that components and scenarios must belong to.
func NewRefCheck(errs *input.Errors, item uuid.UUID) *refCheck {
	return &refCheck{errs: errs, item: item, found: map[string][]namedRef{}}
}

func (c *refCheck) add(field string, kind register.Kind, id uuid.UUID) {
	c.Ref(field, map[register.Kind]string{register.Component: "component", register.Scenario: "scenario", register.Document: "document"}[kind], id)
}

// Ref adds a reference to a record of one of refKinds.
func (c *refCheck) Ref(field, kind string, id uuid.UUID) {
	c.found[kind] = append(c.found[kind], namedRef{field, id})
}

// Refs adds a list of references named by their index under field.
func (c *refCheck) Refs(field, kind string, ids []uuid.UUID) {
	for i, id := range ids {
		c.Ref(field+"."+strconv.Itoa(i), kind, id)
	}
}

// evidence adds a piece of the envelope's evidence.
func (c *refCheck) evidence(field string, e EvidenceRef) {
	if e.Kind == EvidenceDocumentVersion {
		c.add(field, register.Document, e.ID)
		return
	}
	c.Ref(field, "proposal", e.ID)
}

// Check fails every field whose record is not the organization's, not
// the item's where it must be, or not in a state that evidences.
func (c *refCheck) Check(ctx context.Context, db *gorm.DB, org uuid.UUID) error {
	for name, refs := range c.found {
		kind := refKinds[name]
		ids := make([]uuid.UUID, len(refs))
		for i, r := range refs {
			ids[i] = r.id
		}
		q := domain.Tenant(ctx, db, org).Table(kind.table).Select("id, "+kind.status+" AS state").Where("id IN ?", ids)
		if kind.ofItem != "" {
			q = q.Where(kind.ofItem, c.item)
		}
		var rows []struct {
			ID    uuid.UUID
			State string
		}
		if err := q.Scan(&rows).Error; err != nil {
			return err
		}
		state := map[uuid.UUID]string{}
		for _, r := range rows {
			state[r.ID] = r.State
		}
		for _, r := range refs {
			switch s, ok := state[r.id]; {
			case !ok:
				c.errs.Fail(r.field, kind.unknown)
			case s != "ok":
				c.errs.Fail(r.field, kind.refused, s)
			}
		}
	}
	return nil
}
