package attention

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Page sizes of List.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// Item is one piece of work that needs a person.
type Item struct {
	Kind Kind
	// ID is the record's: an import's, a delivery's, a recorded start's.
	ID uuid.UUID
	// OrganizationID and OrganizationName are the record's organization;
	// uuid.Nil and "" for a workflow start of none (housekeeping).
	OrganizationID   uuid.UUID
	OrganizationName string
	Status           string
	Reason           Reason
	// At is when the record came to need a person, as near as it records
	// it: when it failed, or last moved.
	At time.Time
	// WorkflowID names the record's workflow in Temporal ("" for a
	// webhook endpoint, which has none).
	WorkflowID string
}

// Cursor is where a page of List ends: its last item's time and id.
type Cursor struct {
	At time.Time
	ID uuid.UUID
}

// Cursor is the cursor of the page that ends with it.
func (it *Item) Cursor() Cursor { return Cursor{At: it.At, ID: it.ID} }

// String is the cursor as a query parameter carries it.
func (c Cursor) String() string { return c.At.UTC().Format(time.RFC3339Nano) + "_" + c.ID.String() }

// ParseCursor reads a cursor String wrote.
func ParseCursor(s string) (Cursor, error) {
	at, id, ok := strings.Cut(s, "_")
	if ok {
		t, err := time.Parse(time.RFC3339Nano, at)
		u, uerr := uuid.Parse(id)
		if err == nil && uerr == nil {
			return Cursor{At: t, ID: u}, nil
		}
	}
	return Cursor{}, fmt.Errorf("attention: malformed cursor %q", s)
}

// Filter chooses what List answers.
type Filter struct {
	// Organization, unless uuid.Nil, keeps its items only.
	Organization uuid.UUID
	// Kinds, unless empty, keeps items of these kinds only.
	Kinds []Kind
	// Limit is the page's size: DefaultLimit when 0, at most MaxLimit.
	Limit int
	// After, unless nil, starts the page after the item it names.
	After *Cursor
}

// Page is a page of items, newest first.
type Page struct {
	Items []Item
	// Next is the cursor of the next page; nil on the last.
	Next *Cursor
}

// List is the work that needs a person, across organizations, newest
// first, as f chooses it, a page at a time.
func List(ctx context.Context, db *gorm.DB, f Filter) (*Page, error) {
	limit := f.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return nil, fmt.Errorf("attention: a page holds 1 to %d items, not %d", MaxLimit, f.Limit)
	}
	srcs := sources
	if len(f.Kinds) > 0 {
		srcs = nil
		for _, k := range f.Kinds {
			s, ok := sourceOf(k)
			if !ok {
				return nil, fmt.Errorf("attention: unknown kind %q", k)
			}
			srcs = append(srcs, *s)
		}
	}
	items, err := query(ctx, db, srcs, f.Organization, f.After, uuid.Nil, limit+1)
	if err != nil {
		return nil, err
	}
	page := &Page{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		next := page.Items[limit-1].Cursor()
		page.Next = &next
	}
	return page, nil
}

// query runs the sources' queries as one, each branch taking its newest
// limit items after the cursor, if any, of the organization, if any, or
// only the record id, if any, and answers the newest limit of them all.
func query(ctx context.Context, db *gorm.DB, srcs []source, org uuid.UUID, after *Cursor, record uuid.UUID, limit int) ([]Item, error) {
	args := queryArgs(time.Now())
	args["limit"] = limit
	var conds []string
	if org != uuid.Nil {
		conds, args["org"] = append(conds, "x.organization_id = @org"), org
	}
	if after != nil {
		conds, args["after_at"], args["after_id"] = append(conds, "(x.at, x.id) < (@after_at, @after_id)"), after.At, after.ID
	}
	if record != uuid.Nil {
		conds, args["record"] = append(conds, "x.id = @record"), record
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	branches := make([]string, len(srcs))
	for i, s := range srcs {
		branches[i] = "(SELECT '" + string(s.kind) + "' AS kind, x.* FROM (" + s.query +
			") x (id, organization_id, status, detail_key, detail_args, detail, n, at, ref)" + where +
			" ORDER BY x.at DESC, x.id DESC LIMIT @limit)"
	}
	var rows []row
	err := db.WithContext(ctx).Raw(`SELECT b.*, o.name AS organization_name FROM (`+strings.Join(branches, " UNION ALL ")+`) b
		LEFT JOIN organizations o ON o.id = b.organization_id ORDER BY b.at DESC, b.id DESC LIMIT @limit`, args).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	items := make([]Item, len(rows))
	for i := range rows {
		if items[i], err = rows[i].item(); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// item is the row as its kind says it.
func (r *row) item() (Item, error) {
	s, ok := sourceOf(r.Kind)
	if !ok {
		return Item{}, fmt.Errorf("attention: a row of unknown kind %q", r.Kind)
	}
	it := Item{Kind: r.Kind, ID: r.ID, Status: r.Status, At: r.At}
	if r.OrganizationID != nil {
		it.OrganizationID = *r.OrganizationID
	}
	if r.OrganizationName != nil {
		it.OrganizationName = *r.OrganizationName
	}
	var err error
	if it.Reason, err = s.reason(r); err != nil {
		return Item{}, err
	}
	if it.WorkflowID, err = s.workflow(r); err != nil {
		return Item{}, err
	}
	return it, nil
}
