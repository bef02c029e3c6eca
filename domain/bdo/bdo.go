package bdo

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/internal/database"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// The Polish annual packaging report (BDO). Its sources are the flows and
// supply events of a year that count for it: flows (packaging placed on a
// market or used; in Poland they are packaged products placed on the
// market, elsewhere exports), production (packaging manufactured) and
// receipts from abroad (imports and intra-EU acquisitions). A person
// classifies each source; the service tabulates and never computes a fee
// or files anything (ppwr-facts §4.6).

// BDO report sections. The form's Dział and table numbers are not
// verified (ppwr-facts §4.2), so the sections are named by what they hold.
const (
	BDOManufactured   = "manufactured"
	BDOImported       = "imported"
	BDOExported       = "exported"
	BDOPlacedOnMarket = "placed_on_market"
)

// Vocabularies of the report.
var (
	BDOSections = []string{BDOManufactured, BDOImported, BDOExported, BDOPlacedOnMarket}
	BDOYears    = input.Int{Required: true, Min: 2024, Max: 2026}
	// BDOStates are a source's classification states.
	BDOStates = []string{BDOUnclassified, BDOClassified, BDOExcluded}
)

// Classification states of a source.
const (
	BDOUnclassified = "unclassified"
	BDOClassified   = "classified"
	BDOExcluded     = "excluded"
)

// gramsPerMg converts grams to megagrams (tonnes), the report's unit.
var gramsPerMg = decimal.NewFromInt(1_000_000)

// GramsToMg converts grams to Mg exactly (no rounding: a report records
// the rounding it applies).
func GramsToMg(g decimal.Decimal) decimal.Decimal { return g.Div(gramsPerMg) }

// BDOSource is one source of a year with what it contributes.
type BDOSource struct {
	Kind             string
	ID               uuid.UUID
	EventOn          time.Time
	CatalogItemID    uuid.UUID
	MainMaterialCode string
	MassG            decimal.Decimal
	Reusable         bool
	SuggestedSection string
	// The classification, when there is one.
	Section          *string
	MaterialGroup    *string
	ReusableOverride *bool
	Excluded         *bool
	ExclusionReason  *string
	ClassifiedAt     *time.Time
	// PackagingFunction is the packaging function of the item's accepted
	// classification, when it has one (read for pages only).
	PackagingFunction *string
}

// Key is the source's key, flow:<uuid> or supply:<uuid>.
func (s *BDOSource) Key() string { return s.Kind + ":" + s.ID.String() }

// Group is the material group that counts: the classification's, else the
// one of the item's main material.
func (s *BDOSource) Group(groups map[string]string) string {
	if s.MaterialGroup != nil {
		return *s.MaterialGroup
	}
	return groups[s.MainMaterialCode]
}

// CountsAsReusable is the single-use or reusable split that counts.
func (s *BDOSource) CountsAsReusable() bool {
	if s.ReusableOverride != nil {
		return *s.ReusableOverride
	}
	return s.Reusable
}

// State is the source's classification state.
func (s *BDOSource) State() string {
	switch {
	case s.Excluded != nil && *s.Excluded:
		return BDOExcluded
	case s.Section != nil:
		return BDOClassified
	}
	return BDOUnclassified
}

// bdoSources is the query of a year's sources with their
// classification, each branch of the union ending with tail. Supply events
// that generated a flow are counted through the flow. It reads neither
// items nor anything else per source: what the reader needs of the item
// it joins to the few rows it keeps (a page, or the groups of a summary),
// not to a million sources.
func bdoSources(tail string) string {
	return `SELECT src.*, c.section, c.material_group, c.reusable AS reusable_override, c.excluded, c.exclusion_reason, c.classified_at
	FROM ((SELECT 'flow' AS kind, f.id, f.event_on, f.catalog_item_id, f.mass_g, f.reusable,
		CASE WHEN f.country = 'PL' THEN 'placed_on_market' ELSE 'exported' END AS suggested_section
	FROM flows f WHERE f.organization_id = @org AND f.event_on >= @from AND f.event_on < @to` + tail + `)
	UNION ALL
	(SELECT 'supply', s.id, s.event_on, s.catalog_item_id, abs(s.mass_g), COALESCE(s.reusable_at_event = 'reusable', false),
		CASE WHEN s.direction = 'produced' THEN 'manufactured' ELSE 'imported' END
	FROM supply_events s WHERE s.organization_id = @org AND s.event_on >= @from AND s.event_on < @to
		AND (s.direction = 'produced' OR (s.direction = 'received' AND s.counterparty_country <> 'PL'))` + tail + `)) src
	LEFT JOIN bdo_classifications c ON c.organization_id = @org AND c.source_kind = src.kind AND c.source_id = src.id`
}

func yearArgs(org uuid.UUID, year int) map[string]any {
	return PeriodArgs(org, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC))
}

// PeriodArgs are the organization and the dates from and to (inclusive)
// as the half-open range [@from, @to) that queries of dated rows take.
func PeriodArgs(org uuid.UUID, from, to time.Time) map[string]any {
	return map[string]any{"org": org, "from": from, "to": to.AddDate(0, 0, 1)}
}

// AcceptedClassification is the SQL of one value of the packaging
// classification that counts for the item whose id is the SQL item: its
// latest active, accepted entry's; NULL without one.
func AcceptedClassification(value, item string) string {
	return `(SELECT e."values"->>'` + value + `' FROM ppwr_register_entries e
		WHERE e.catalog_item_id = ` + item + ` AND e.register = 'packaging-classification' AND e.status = 'active'
			AND e.review_status = 'accepted' ORDER BY e.id DESC LIMIT 1)`
}

// BDOSourcesPage is a page of a year's sources, in date order. A page
// takes the first rows of each branch of the union from its (organization,
// date, id) index and orders only those: PostgreSQL does not merge the
// branches in index order by itself, and would sort the whole year to
// keep a page of it. A page at least deepOffset sources in starts the
// walk at the date the page begins on, found by counting the year's
// sources per date, so it walks no more than that date's sources before
// its own rows.
func BDOSourcesPage(ctx context.Context, db *gorm.DB, org uuid.UUID, year, page, perPage int) ([]BDOSource, error) {
	args, offset := yearArgs(org, year), (page-1)*perPage
	var out []BDOSource
	err := plannedForValues(ctx, db, func(tx *gorm.DB) error {
		if offset < deepOffset {
			var err error
			out, err = sourcesFrom(tx, args, offset, perPage)
			return err
		}
		var days []struct {
			EventOn time.Time
			Sources int
		}
		if err := tx.Raw(`SELECT event_on, count(*) AS sources FROM (`+bdoSources("")+`) s GROUP BY 1 ORDER BY 1`, args).
			Scan(&days).Error; err != nil {
			return err
		}
		for _, d := range days {
			if offset < d.Sources {
				args["from"] = d.EventOn
				var err error
				out, err = sourcesFrom(tx, args, offset, perPage)
				return err
			}
			offset -= d.Sources
		}
		return nil
	})
	return out, err
}

// plannedForValues runs fn's statements in one snapshot (so a source
// written between a deep page's count and its rows cannot shift the page),
// each planned for its values (database.PlanForValues: with a generic plan
// the last page took 8 to 11 s).
func plannedForValues(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := database.PlanForValues(tx); err != nil {
			return err
		}
		return fn(tx)
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
}

// deepOffset is where a page stops walking the index from the year's
// start. The walk reads each row it passes at random in the heap, the
// count per date reads the year once in heap order: on the benchmark's
// million sources, under load, walking 10,000 rows took 35 to 210 ms and
// the count 340 to 920 ms. So a page below deepOffset walks for at most
// a fraction of the count, and from it on a page costs one pass over the
// year more than the first page, however deep.
const deepOffset = 10_000

// sourcesFrom is the page of perPage sources after the first offset from
// @from on.
func sourcesFrom(db *gorm.DB, args map[string]any, offset, perPage int) ([]BDOSource, error) {
	args["limit"], args["offset"], args["rows"] = perPage, offset, offset+perPage
	var out []BDOSource
	err := db.Raw(`SELECT s.*, i.main_material_code, `+AcceptedClassification("packaging_function", "s.catalog_item_id")+` AS packaging_function
		FROM (`+bdoSources(" ORDER BY event_on, id LIMIT @rows")+` ORDER BY src.event_on, src.id LIMIT @limit OFFSET @offset) s
		JOIN catalog_items i ON i.id = s.catalog_item_id ORDER BY s.event_on, s.id`, args).Scan(&out).Error
	return out, err
}

// BDOSummary totals a year's sources.
type BDOSummary struct {
	// Totals are in Mg, per material group and single-use/reusable, of
	// the sources not excluded.
	Totals       []BDOTotal
	Sources      int64
	Unclassified int64
	Excluded     int64
}

// BDOTotal is one material group's mass, single-use and reusable.
type BDOTotal struct {
	MaterialGroup string
	SingleUseG    decimal.Decimal
	ReusableG     decimal.Decimal
}

// SummarizeBDOYear counts and totals the year's sources in the database:
// grams summed exactly per group and split, converted to Mg by the
// caller. The sources are tallied per item in one pass, a hash table of a
// few hundred groups, and only those groups read their item's material.
func SummarizeBDOYear(ctx context.Context, db *gorm.DB, org uuid.UUID, year int) (*BDOSummary, error) {
	groups := dictionaries.Default().BDOGroupsByMaterial()
	var rows []struct {
		MainMaterialCode string
		MaterialGroup    *string
		Reusable         bool
		State            string
		MassG            decimal.Decimal
		Sources          int64
	}
	err := plannedForValues(ctx, db, func(tx *gorm.DB) error {
		return tx.Raw(`SELECT i.main_material_code, s.material_group, s.reusable, s.state, s.mass_g, s.sources
		FROM (SELECT catalog_item_id, material_group, COALESCE(reusable_override, reusable) AS reusable,
				CASE WHEN excluded THEN 'excluded' WHEN section IS NOT NULL THEN 'classified' ELSE 'unclassified' END AS state,
				sum(mass_g) AS mass_g, count(*) AS sources
			FROM (`+bdoSources("")+`) s GROUP BY 1, 2, 3, 4) s
		JOIN catalog_items i ON i.id = s.catalog_item_id`, yearArgs(org, year)).Scan(&rows).Error
	})
	if err != nil {
		return nil, err
	}
	s := &BDOSummary{}
	byGroup := map[string]*BDOTotal{}
	for _, r := range rows {
		s.Sources += r.Sources
		switch r.State {
		case BDOExcluded:
			s.Excluded += r.Sources
			continue
		case BDOUnclassified:
			s.Unclassified += r.Sources
		}
		group := groups[r.MainMaterialCode]
		if r.MaterialGroup != nil {
			group = *r.MaterialGroup
		}
		t := byGroup[group]
		if t == nil {
			t = &BDOTotal{MaterialGroup: group, SingleUseG: decimal.Zero, ReusableG: decimal.Zero}
			byGroup[group] = t
		}
		if r.Reusable {
			t.ReusableG = t.ReusableG.Add(r.MassG)
		} else {
			t.SingleUseG = t.SingleUseG.Add(r.MassG)
		}
	}
	for _, g := range dictionaries.BDOGroups() {
		if t := byGroup[g]; t != nil {
			s.Totals = append(s.Totals, *t)
		}
	}
	return s, nil
}

// ErrInvalidSources refuses keys that are not sources of the year: a
// packaging-card (item) id, another organization's record, another
// year's (the spec's "invalid register sources").
var ErrInvalidSources = &domain.RuleError{Code: "invalid_register_sources", Key: "error.invalid_register_sources"}

// BDOClassification is the body that classifies sources of a year.
type BDOClassification struct {
	input.Errors
	Year    input.Opt[int]
	Sources []BDOSourceClass
}

// BDOSourceClass is the classification of one source: its key alone, as
// the spec writes it (classified into its suggested section), or an object
// with the key and what the body says otherwise.
type BDOSourceClass struct {
	Key input.Opt[string]
	// KeyField is the name the key's errors are reported under: the entry
	// itself ("sources.3") for a bare key, "sources.3.key" in an object.
	KeyField        string
	Section         input.Opt[string]
	MaterialGroup   input.Opt[string]
	Reusable        input.Opt[bool]
	Excluded        input.Opt[bool]
	ExclusionReason input.Opt[string]
}

// BDOReasonMax bounds an exclusion reason.
const BDOReasonMax = 1000

// Declare names the classification's fields.
func (in *BDOClassification) Declare(f *input.Fields) {
	f.Int("year", &in.Year, BDOYears)
	f.Items("sources", input.Items{Required: true, MinItems: 1, MaxItems: 1000, Shorthand: "key", Desc: "bdo.sources"}, func(i int, e *input.Fields) {
		s := BDOSourceClass{KeyField: e.Path("key")}
		e.Text("key", &s.Key, input.Text{Required: true, Max: 50, Desc: "bdo.source_key"})
		e.Enum("section", &s.Section, input.Enum{Values: BDOSections, Desc: "bdo.section"})
		e.Enum("material_group", &s.MaterialGroup, input.Enum{Values: dictionaries.BDOGroups()})
		e.Bool("reusable", &s.Reusable, input.Bool{})
		e.Bool("excluded", &s.Excluded, input.Bool{})
		e.Text("exclusion_reason", &s.ExclusionReason, input.Text{Nullable: true, NotBlank: true, Max: BDOReasonMax})
		e.RequiredWhen("exclusion_reason", input.Is("excluded", true))
		if i >= 0 {
			in.Sources = append(in.Sources, s)
		}
	})
}

// parseKey splits flow:<uuid> or supply:<uuid>.
func parseKey(key string) (string, uuid.UUID, bool) {
	kind, raw, ok := strings.Cut(key, ":")
	id, err := uuid.Parse(raw)
	return kind, id, ok && (kind == "flow" || kind == "supply") && err == nil && len(raw) == 36
}

// ClassifyBDOSources records the classification of each source, after
// checking that every key is a source of the organization's year; a source
// sent without a section goes into its suggested one. It touches no stored
// report. It returns the keys classified.
func ClassifyBDOSources(w *work.Unit, in *BDOClassification) ([]string, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	byKind := map[string][]uuid.UUID{}
	for _, s := range in.Sources {
		if kind, id, ok := parseKey(s.Key.Value); ok {
			byKind[kind] = append(byKind[kind], id)
		}
	}
	var rows []struct {
		Kind             string
		ID               uuid.UUID
		SuggestedSection string
	}
	args := yearArgs(w.Organization(), in.Year.Value)
	args["flows"], args["supplies"] = append(byKind["flow"], uuid.Nil), append(byKind["supply"], uuid.Nil)
	if err := w.Tx().Raw(`SELECT kind, id, suggested_section FROM (`+bdoSources("")+`) s
		WHERE (kind = 'flow' AND id IN @flows) OR (kind = 'supply' AND id IN @supplies)`, args).Scan(&rows).Error; err != nil {
		return nil, err
	}
	// suggested is the suggested section of each source of the year.
	suggested := map[string]string{}
	for _, r := range rows {
		suggested[r.Kind+":"+r.ID.String()] = r.SuggestedSection
	}
	bad := ErrInvalidSources
	for _, s := range in.Sources {
		if _, ok := suggested[strings.ToLower(s.Key.Value)]; !ok {
			bad = bad.On(s.KeyField, "field.not_bdo_source", in.Year.Value)
		}
	}
	if len(bad.Fields) > 0 {
		return nil, bad
	}
	at, keys := domain.Now(), make([]string, 0, len(in.Sources))
	for _, s := range in.Sources {
		kind, id, _ := parseKey(strings.ToLower(s.Key.Value))
		key := kind + ":" + id.String()
		section := suggested[key]
		if s.Section.Set() {
			section = s.Section.Value
		}
		row := map[string]any{"organization_id": w.Organization(), "source_kind": kind, "source_id": id, "year": in.Year.Value,
			"section": section, "material_group": domain.Optional(s.MaterialGroup), "reusable": domain.Optional(s.Reusable),
			"excluded": s.Excluded.Value, "exclusion_reason": domain.Optional(s.ExclusionReason), "classified_by": w.Actor().UserID,
			"classified_at": at}
		upsert := clause.OnConflict{Columns: []clause.Column{{Name: "organization_id"}, {Name: "source_kind"}, {Name: "source_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"year", "section", "material_group", "reusable", "excluded", "exclusion_reason",
				"classified_by", "classified_at"})}
		if err := w.Tx().Table("bdo_classifications").Clauses(upsert).Create(row).Error; err != nil {
			return nil, err
		}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return keys, nil
}
