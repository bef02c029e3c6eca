package movements

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/internal/register"
	"ppwr/internal/rules"
)

// The year's flows by Art. 29 format (PPWR Art. 29-30): the reusable
// share of each format against its re-use targets, for the organization
// (the re-use statistics) or one Member State (the target rules, per
// market).

// ReuseFormatStatistics is the year's reusable share of one Art. 29
// format.
type ReuseFormatStatistics struct {
	Format          string              `json:"format"`
	FlowKind        string              `json:"flow_kind"`
	ReusableUnits   decimal.Decimal     `json:"reusable_units"`
	SingleUseUnits  decimal.Decimal     `json:"single_use_units"`
	ExemptUnits     decimal.Decimal     `json:"exempt_units"`
	FlowsNotInUnits int64               `json:"flows_not_in_pieces"`
	ReusableShare   *decimal.Decimal    `json:"reusable_share_pct"`
	Targets         []ReuseTargetStatus `json:"targets"`
}

// ReuseTarget is a share Art. 29 sets for a format, with its article
// (rules.ReuseTargets declares them).
type ReuseTarget struct {
	Article string          `json:"article"`
	Percent decimal.Decimal `json:"share_pct"`
	// Kind is "binding" or "endeavour" (an operator shall endeavour to
	// reach it: information, never a failure).
	Kind string `json:"kind"`
}

// ReuseTargetStatus is a target and where the year stands against it.
type ReuseTargetStatus struct {
	ReuseTarget
	AppliesFrom string `json:"applies_from" schema:"date"`
	// Provisional: the date waits for a Commission act and may move later.
	Provisional bool `json:"provisional"`
	// Status is met, not_met, not_applicable (the year is before the
	// target applies) or no_data.
	Status string `json:"status"`
}

// ReuseFlows are the organization's flows of a year grouped by country,
// by the Art. 29 format and exemption the item's accepted classification
// gives, by reusable, and by whether they count in pieces.
type ReuseFlows []reuseFlowGroup

type reuseFlowGroup struct {
	Country  string
	Format   *string
	Exempt   bool
	Reusable bool
	Counted  bool
	Units    decimal.Decimal
	Flows    int64
}

// LoadReuseFlows groups the organization's flows of the year in one
// aggregate query over the year's flows (index on organization_id,
// event_on) and the accepted classifications of the organization's items.
func LoadReuseFlows(ctx context.Context, db *gorm.DB, org uuid.UUID, year int) (ReuseFlows, error) {
	var rows ReuseFlows
	err := db.WithContext(ctx).Raw(`
		WITH classified AS (
			SELECT DISTINCT ON (e.catalog_item_id) e.catalog_item_id, e."values"->>'article_29_format' AS format,
			       coalesce(e."values"->'exemptions' @> '["29(4)"]'::jsonb OR (e."values"->>'article_29_format' = 'beverage_container'
			                AND e."values"->'exemptions' @> '["29(7)"]'::jsonb), false) AS exempt
			FROM ppwr_register_entries e JOIN catalog_items i ON i.id = e.catalog_item_id
			WHERE e.organization_id = @org AND e.register = 'packaging-classification' AND e.status = 'active'
			  AND e.review_status = 'accepted' AND e.catalog_revision = i.revision
			ORDER BY e.catalog_item_id, e.created_at DESC
		)
		SELECT f.country, c.format, coalesce(c.exempt, false) AS exempt, f.reusable, f.unit = 'piece' AS counted,
		       sum(f.quantity) AS units, count(*) AS flows
		FROM flows f LEFT JOIN classified c ON c.catalog_item_id = f.catalog_item_id
		WHERE f.organization_id = @org AND f.event_on BETWEEN @start AND @end
		  AND f.kind = CASE WHEN c.format = 'beverage_container' THEN 'placed' ELSE 'used' END
		GROUP BY 1, 2, 3, 4, 5`, map[string]any{"org": org, "start": time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC),
		"end": time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC)}).Scan(&rows).Error
	return rows, err
}

// Formats sums the flows, of one country ("" for all), into each Art. 29
// format's units and share against its targets; it counts the flows of
// items without a format apart. Transport formats and grouped boxes count
// used flows (Art. 29(1), 29(5): users), beverage containers placed flows
// (Art. 29(6): final distributors).
func (f ReuseFlows) Formats(country string, year int, acts rules.Acts) ([]ReuseFormatStatistics, int64) {
	byFormat := map[string]*ReuseFormatStatistics{}
	for _, format := range register.Article29Formats {
		kind := FlowUsed
		if format == "beverage_container" {
			kind = FlowPlaced
		}
		byFormat[format] = &ReuseFormatStatistics{Format: format, FlowKind: kind}
	}
	var withoutFormat int64
	for _, r := range f {
		switch {
		case country != "" && r.Country != country:
			continue
		case r.Format == nil:
			withoutFormat += r.Flows
			continue
		}
		s := byFormat[*r.Format]
		switch {
		case !r.Counted:
			s.FlowsNotInUnits += r.Flows
		case r.Exempt:
			s.ExemptUnits = s.ExemptUnits.Add(r.Units)
		case r.Reusable:
			s.ReusableUnits = s.ReusableUnits.Add(r.Units)
		default:
			s.SingleUseUnits = s.SingleUseUnits.Add(r.Units)
		}
	}
	out := []ReuseFormatStatistics{}
	for _, format := range register.Article29Formats {
		s := byFormat[format]
		s.ReusableShare = rules.ReusableShare(s.ReusableUnits, s.SingleUseUnits)
		for _, t := range rules.ReuseTargets(format) {
			status, from, provisional := t.YearStatus(s.ReusableShare, year, acts)
			s.Targets = append(s.Targets, ReuseTargetStatus{ReuseTarget: ReuseTarget{Article: t.Article, Percent: t.Percent, Kind: t.Kind},
				AppliesFrom: from.Format(time.DateOnly), Provisional: provisional, Status: status})
		}
		out = append(out, *s)
	}
	return out, withoutFormat
}

// Countries are the countries the flows name.
func (f ReuseFlows) Countries() []string {
	var out []string
	for _, r := range f {
		if !slices.Contains(out, r.Country) {
			out = append(out, r.Country)
		}
	}
	return out
}
