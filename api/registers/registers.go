// Package registers is the spec's PPWR technical registers under
// /catalog-items/{catalogItemId}/ppwr/<register>: thirteen registers with
// list, show, create and review, and reuse-units with list, create and
// show. Every register's operations, bodies and schemas come from its
// declaration in internal/register; this package holds no register of its
// own.
package registers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/registers"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/register"
)

const tag = "ppwr-registers"

type handlers struct{ kit.Deps }

// Area declares every register's operations and schemas.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	area := kit.Area{Models: []kit.Model{kit.ModelOf[evidenceJSON]("RegisterEvidence"), kit.ModelOf[ruleSetJSON]("RuleSetReference")}}
	for _, reg := range register.All {
		area.Operations = append(area.Operations, h.operations(reg)...)
		area.Models = append(area.Models, entryModel(reg))
	}
	return area
}

// operations are one register's rows; reuse-units has no review.
func (h *handlers) operations(reg *register.Register) []kit.Operation {
	base, name := kit.Org+"/catalog-items/{catalogItemId}/ppwr/"+reg.Slug, stem(reg)
	entry := kit.Ref(name)
	list, create, get := "list"+strings.TrimSuffix(name, "Entry")+"Entries", "create"+name, "get"+name
	if reg.Slug == "reuse-units" {
		list, create, get = "listReuseUnits", "createReuseUnit", "getReuseUnit"
	}
	ops := []kit.Operation{
		kit.List(list, base, tag, a.PPWRRead, a.CatalogView).
			Handle(kit.Query(func(c *gin.Context, q *entryQuery) error { return h.list(c, reg, q) }), kit.ListOK(name)),
		kit.Get(get, base+"/{recordId}", tag, a.PPWRRead, a.CatalogView).
			Handle(kit.Do(func(c *gin.Context) error { return h.get(c, reg) }), kit.OK(entry)),
		kit.Post(create, base, tag, a.PPWRWrite, a.CatalogUpdate).
			Answers(registers.ErrEntryCorrected, domain.ErrRevisionConflict).
			Handle(kit.JSONBody(name+"Create", func() *registers.RegisterEntryCreate { return registers.NewRegisterEntryCreate(reg) },
				func(c *gin.Context, in *registers.RegisterEntryCreate) error { return h.create(c, in) }), kit.CreatedResponse(entry, get)),
	}
	if reg.Reviewable {
		ops = append(ops, kit.Post("review"+name, base+"/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm).
			Answers(registers.ErrSelfReview, registers.ErrEntryDecided, registers.ErrEntrySuperseded, domain.ErrRevisionConflict).
			Handle(kit.JSONBody("RegisterReview", registers.NewRegisterReview,
				func(c *gin.Context, in *registers.ReviewBody) error { return h.review(c, reg, in) }), kit.OK(entry)))
	}
	return ops
}

// stem turns "chemical-safety" into "ChemicalSafetyEntry", the name of its
// schemas and the stem of operation ids such as getChemicalSafetyEntry.
func stem(reg *register.Register) string {
	var out strings.Builder
	for _, part := range strings.Split(reg.Slug, "-") {
		out.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return out.String() + "Entry"
}

// entryModel is the answer of one register's entries: one Go type for
// all registers, each with its own slug, review statuses and values.
func entryModel(reg *register.Register) kit.Model {
	reviewStatuses := []string{registers.EntryUnreviewed, registers.EntryAccepted, registers.EntryRejected, registers.EntryNeedsChanges}
	if !reg.Reviewable {
		reviewStatuses = []string{registers.EntryNotReviewable}
	}
	return kit.ModelOf[entryJSON](stem(reg)).With(func(s *kit.Shape) {
		s.Enum("register", reg.Slug)
		s.Enum("review_status", reviewStatuses...)
		s.DescribeField("review_status", "register.review_status")
		s.Derived("values", reg.Schema())
	})
}

func (entryJSON) Declare(s *kit.Shape) {
	s.Enum("method", registers.EntryMethods...)
	s.Enum("status", registers.EntryStatuses...)
}

func (evidenceJSON) Declare(s *kit.Shape) { s.Enum("kind", registers.EvidenceKinds...) }

type entryJSON struct {
	ID                     uuid.UUID       `json:"id"`
	Register               string          `json:"register"`
	Item                   uuid.UUID       `json:"item"`
	CatalogRevision        int             `json:"catalog_revision"`
	DataVersion            uuid.UUID       `json:"data_version"`
	BasedOnCurrentRevision bool            `json:"based_on_current_revision" schema:"desc=register.based_on_current_revision"`
	Components             []uuid.UUID     `json:"components"`
	MarketScenarios        []uuid.UUID     `json:"market_scenarios"`
	RuleSet                *ruleSetJSON    `json:"rule_set"`
	Values                 json.RawMessage `json:"values"`
	Method                 string          `json:"method"`
	MethodReference        *string         `json:"method_reference"`
	Evidence               []evidenceJSON  `json:"evidence"`
	ValidFrom              string          `json:"valid_from" schema:"date"`
	ValidUntil             *string         `json:"valid_until" schema:"date"`
	Status                 string          `json:"status"`
	Supersedes             *uuid.UUID      `json:"supersedes"`
	SupersededBy           *uuid.UUID      `json:"superseded_by"`
	CreatedAt              time.Time       `json:"created_at"`
	kit.ReviewJSON
}

type ruleSetJSON struct {
	Code    string `json:"code"`
	Version string `json:"version"`
}

type evidenceJSON struct {
	Kind         string    `json:"kind"`
	ID           uuid.UUID `json:"id"`
	Field        *string   `json:"field"`
	Document     uuid.UUID `json:"document"`
	Title        string    `json:"title"`
	Version      int       `json:"version"`
	FileName     string    `json:"file_name"`
	ReviewStatus string    `json:"review_status"`
	PageCount    *int      `json:"page_count"`
	Page         *int      `json:"page"`
	Quotation    *string   `json:"quotation"`
	Code         *string   `json:"code"`
}

// render answers an entry with its evidence resolved; itemRevision tells
// whether the item moved on since the entry was made.
func render(ctx context.Context, db *gorm.DB, e *registers.RegisterEntry, itemRevision int) (entryJSON, error) {
	out, err := renderPage(ctx, db, []registers.RegisterEntry{*e}, itemRevision)
	if err != nil {
		return entryJSON{}, err
	}
	return out[0], nil
}

// renderPage answers entries of one item with their evidence resolved in
// one query for all of them.
func renderPage(ctx context.Context, db *gorm.DB, page []registers.RegisterEntry, itemRevision int) ([]entryJSON, error) {
	var refs []registers.EvidenceRef
	for _, e := range page {
		refs = append(refs, e.Evidence...)
	}
	if len(page) == 0 {
		return []entryJSON{}, nil
	}
	resolved, err := registers.ResolveEvidence(ctx, db, page[0].OrganizationID, refs)
	if err != nil {
		return nil, err
	}
	out := make([]entryJSON, len(page))
	for i := range page {
		out[i] = entryToJSON(&page[i], itemRevision, resolved[:len(page[i].Evidence)])
		resolved = resolved[len(page[i].Evidence):]
	}
	return out, nil
}

func entryToJSON(e *registers.RegisterEntry, itemRevision int, resolved []registers.ResolvedEvidence) entryJSON {
	out := entryJSON{ID: e.ID, Register: e.Register, Item: e.CatalogItemID, CatalogRevision: e.CatalogRevision,
		DataVersion: e.DataVersionID, BasedOnCurrentRevision: e.CatalogRevision == itemRevision,
		Components: e.Components, MarketScenarios: e.MarketScenarios, Values: json.RawMessage(e.Values), Method: e.Method,
		MethodReference: e.MethodReference, Evidence: make([]evidenceJSON, len(resolved)), ValidFrom: *kit.Day(&e.ValidFrom),
		ValidUntil: kit.Day(e.ValidUntil), Status: e.Status, Supersedes: e.Supersedes, SupersededBy: e.SupersededBy,
		CreatedAt: e.CreatedAt.UTC(), ReviewJSON: kit.Review(&e.ReviewState)}
	if e.RuleSet != nil {
		out.RuleSet = &ruleSetJSON{Code: *e.RuleSet, Version: *e.RuleSetVersion}
	}
	for i, r := range resolved {
		out.Evidence[i] = evidenceJSON{Kind: r.Kind, ID: r.ID, Field: r.Field, Document: r.DocumentID, Title: r.Title,
			Version: r.Version, FileName: r.FileName, ReviewStatus: r.ReviewStatus, PageCount: r.PageCount, Page: r.Page,
			Quotation: r.Quotation, Code: r.Code}
	}
	return out
}

// entryQuery filters a register's entries.
type entryQuery struct {
	input.Errors
	Status       input.Opt[string]
	ReviewStatus input.Opt[string]
	Current      input.Opt[bool]
}

func (q *entryQuery) Declare(f *input.Fields) {
	f.Enum("status", &q.Status, input.Enum{Values: registers.EntryStatuses})
	f.Enum("review_status", &q.ReviewStatus, input.Enum{Values: registers.EntryReviewStatuses})
	f.Bool("current", &q.Current, input.Bool{})
}

// item reads the path's item, so another organization's item is 404.
func (h *handlers) item(c *gin.Context) (*catalog.CatalogItem, error) {
	id, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return nil, err
	}
	return domain.Find[catalog.CatalogItem](c.Request.Context(), h.DB, kit.OrgID(c), id)
}

func (h *handlers) list(c *gin.Context, reg *register.Register, q *entryQuery) error {
	item, err := h.item(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	db := domain.Tenant(ctx, h.DB, kit.OrgID(c)).Model(&registers.RegisterEntry{}).
		Where("catalog_item_id = ? AND register = ?", item.ID, reg.Slug)
	db = kit.Filter(kit.Filter(db, "status", q.Status), "review_status", q.ReviewStatus)
	if q.Current.Set() && q.Current.Value {
		db = db.Where("status = ?", registers.EntryActive)
	} else if q.Current.Set() {
		db = db.Where("status = ?", registers.EntrySuperseded)
	}
	return kit.PaginatePage(c, db, kit.NewestFirst, func(page []registers.RegisterEntry) ([]entryJSON, error) {
		return renderPage(ctx, h.DB, page, item.Revision)
	})
}

func (h *handlers) get(c *gin.Context, reg *register.Register) error {
	item, err := h.item(c)
	if err != nil {
		return err
	}
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	e, err := registers.FindRegisterEntry(ctx, h.DB, kit.OrgID(c), item.ID, reg.Slug, id)
	if err != nil {
		return err
	}
	out, err := render(ctx, h.DB, e, item.Revision)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

func (h *handlers) create(c *gin.Context, in *registers.RegisterEntryCreate) error {
	itemID, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	e, err := registers.CreateRegisterEntry(w, itemID, in)
	if err != nil {
		return err
	}
	out, err := render(c.Request.Context(), w.Tx(), e, e.CatalogRevision)
	if err != nil {
		return err
	}
	return kit.Created(c, e.ID, out)
}

func (h *handlers) review(c *gin.Context, reg *register.Register, in *registers.ReviewBody) error {
	itemID, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	e, err := registers.ReviewRegisterEntry(w, itemID, reg.Slug, id, in)
	if err != nil {
		return err
	}
	item, err := domain.Find[catalog.CatalogItem](c.Request.Context(), w.Tx(), kit.OrgID(c), itemID)
	if err != nil {
		return err
	}
	out, err := render(c.Request.Context(), w.Tx(), e, item.Revision)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}
