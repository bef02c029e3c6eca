package records

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain/movements"
	"ppwr/internal/register"
	"ppwr/internal/rules"
)

// Re-use statistics (PPWR Art. 29-31, Annex VI Part A point 1(f)): per
// re-use system, what its reuse units record; per Art. 29 format, the
// reusable share of the year's flows against the targets.

// ReuseTarget is a share Art. 29 sets for a format, with its article.
type ReuseTarget struct {
	Article string          `json:"article"`
	Percent decimal.Decimal `json:"share_pct"`
	// Kind is "binding" or "endeavour" (an operator shall endeavour to
	// reach it: information, never a failure).
	Kind  string      `json:"kind"`
	Start rules.Start `json:"-"`
}

// Kinds of target.
const (
	TargetBinding   = "binding"
	TargetEndeavour = "endeavour"
)

// reuseTargetsOf are the Art. 29 targets by format (ppwr-facts §1.1, rows
// R49, R52 and R53). The 29(1) share is demonstrated from 1 January 2030
// or 18 months after the Art. 30(3) method act enters into force,
// whichever is later (Art. 30(4)).
func reuseTargetsOf(format string) []ReuseTarget {
	switch format {
	case "grouped_box":
		return []ReuseTarget{
			{Article: "Art. 29(5)", Percent: decimal.NewFromInt(10), Kind: TargetBinding, Start: rules.Start{Fixed: date(2030, 1, 1)}},
			{Article: "Art. 29(5)", Percent: decimal.NewFromInt(25), Kind: TargetEndeavour, Start: rules.Start{Fixed: date(2040, 1, 1)}},
		}
	case "beverage_container":
		return []ReuseTarget{
			{Article: "Art. 29(6)", Percent: decimal.NewFromInt(10), Kind: TargetBinding, Start: rules.Start{Fixed: date(2030, 1, 1)}},
			{Article: "Art. 29(6)", Percent: decimal.NewFromInt(40), Kind: TargetEndeavour, Start: rules.Start{Fixed: date(2040, 1, 1)}},
		}
	}
	return []ReuseTarget{
		{Article: "Art. 29(1), Art. 30(4)", Percent: decimal.NewFromInt(40), Kind: TargetBinding,
			Start: rules.Start{Fixed: date(2030, 1, 1), Act: "reuse_equivalent_units_method", OffsetMonths: 18}},
		{Article: "Art. 29(1)", Percent: decimal.NewFromInt(70), Kind: TargetEndeavour, Start: rules.Start{Fixed: date(2040, 1, 1)}},
	}
}

var hundred = decimal.NewFromInt(100)

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// ReuseSystemStatistics is what a system's reuse units in circulation in
// the year record. Counters are the units' totals as last recorded (their
// active entries), not the year's increments.
type ReuseSystemStatistics struct {
	System             uuid.UUID        `json:"system"`
	Code               string           `json:"code"`
	Name               string           `json:"name"`
	UnitEntries        int64            `json:"unit_entries"`
	UnitsInCirculation int64            `json:"units_in_circulation"`
	Trips              int64            `json:"trips"`
	Rotations          int64            `json:"rotations"`
	Rejects            int64            `json:"rejects"`
	ReturnEvents       int64            `json:"return_events"`
	EstimatedEntries   int64            `json:"estimated_entries"`
	ReturnRate         *decimal.Decimal `json:"return_rate_pct" gorm:"-"`
}

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

// ReuseStatistics is the year's statistics of an organization.
type ReuseStatistics struct {
	Year               int                     `json:"year"`
	Systems            []ReuseSystemStatistics `json:"systems"`
	Formats            []ReuseFormatStatistics `json:"formats"`
	FlowsWithoutFormat int64                   `json:"flows_without_format"`
	Method             string                  `json:"method"`
}

// ReuseStatisticsMethod says how the statistics are made; it is part of
// each answer.
const ReuseStatisticsMethod = "Systems: the active reuse-units entries naming the system (by id or code) whose unit was added by the year's end " +
	"and not at end of life before its start; a batch counts its units_in_batch; trips, rotations, rejects and return events are the totals " +
	"the entries record; the return rate is return events per trip. Formats: the year's flows of items whose accepted packaging-classification " +
	"entry on their current revision names an article_29_format; transport formats and grouped boxes count used flows (Art. 29(1), 29(5): users), " +
	"beverage containers placed flows (Art. 29(6): final distributors); units are flow quantities in pieces, flows in other units are counted " +
	"apart; items with exemption 29(4) count as exempt. A target is measured for a year only when it applies from the year's first day; one whose start waits for a pending Commission act is provisional and not_applicable."

// ComputeReuseStatistics reads the year's statistics, of one system when
// system is not nil.
func ComputeReuseStatistics(ctx context.Context, db *gorm.DB, org uuid.UUID, year int, system *uuid.UUID, acts rules.Acts) (*ReuseStatistics, error) {
	start, end := date(year, 1, 1), date(year, 12, 31)
	out := &ReuseStatistics{Year: year, Systems: []ReuseSystemStatistics{}, Formats: []ReuseFormatStatistics{}, Method: ReuseStatisticsMethod}
	params := map[string]any{"org": org, "start": start, "end": end, "system": system}
	err := db.WithContext(ctx).Raw(`
		SELECT s.id AS system, s.code, s.name, count(e.id) AS unit_entries,
		       coalesce(sum(CASE WHEN e."values"->>'identifier_kind' = 'batch' THEN (e."values"->>'units_in_batch')::bigint ELSE 1 END)
		                FILTER (WHERE e.id IS NOT NULL), 0) AS units_in_circulation,
		       coalesce(sum((e."values"->>'trips')::bigint), 0) AS trips,
		       coalesce(sum((e."values"->>'rotations')::bigint), 0) AS rotations,
		       coalesce(sum((e."values"->>'rejects')::bigint), 0) AS rejects,
		       coalesce(sum((e."values"->>'return_events')::bigint), 0) AS return_events,
		       count(e.id) FILTER (WHERE e."values"->>'counting' = 'estimated') AS estimated_entries
		FROM reuse_systems s
		LEFT JOIN ppwr_register_entries e ON e.organization_id = s.organization_id AND e.register = 'reuse-units'
		     AND e.status = 'active' AND e."values"->>'reuse_system' IN (s.id::text, s.code)
		     AND (e."values"->>'added_on')::date <= @end
		     AND coalesce((e."values"->>'end_of_life_on')::date >= @start, true)
		WHERE s.organization_id = @org AND (CAST(@system AS uuid) IS NULL OR s.id = @system)
		GROUP BY s.id ORDER BY s.code`, params).Scan(&out.Systems).Error
	if err != nil {
		return nil, err
	}
	for i := range out.Systems {
		if s := &out.Systems[i]; s.Trips > 0 {
			rate := decimal.NewFromInt(s.ReturnEvents).Mul(hundred).Div(decimal.NewFromInt(s.Trips)).Round(2)
			s.ReturnRate = &rate
		}
	}
	var rows []struct {
		Format   *string
		Exempt   bool
		Reusable bool
		Counted  bool
		Units    decimal.Decimal
		Flows    int64
	}
	err = db.WithContext(ctx).Raw(`
		WITH classified AS (
			SELECT DISTINCT ON (e.catalog_item_id) e.catalog_item_id, e."values"->>'article_29_format' AS format,
			       coalesce(e."values"->'exemptions' @> '["29(4)"]'::jsonb, false) AS exempt
			FROM ppwr_register_entries e JOIN catalog_items i ON i.id = e.catalog_item_id
			WHERE e.organization_id = @org AND e.register = 'packaging-classification' AND e.status = 'active'
			  AND e.review_status = 'accepted' AND e.catalog_revision = i.revision
			ORDER BY e.catalog_item_id, e.created_at DESC
		)
		SELECT c.format, coalesce(c.exempt, false) AS exempt, f.reusable, f.unit = 'piece' AS counted,
		       sum(f.quantity) AS units, count(*) AS flows
		FROM flows f LEFT JOIN classified c ON c.catalog_item_id = f.catalog_item_id
		WHERE f.organization_id = @org AND f.event_on BETWEEN @start AND @end
		  AND f.kind = CASE WHEN c.format = 'beverage_container' THEN 'placed' ELSE 'used' END
		GROUP BY 1, 2, 3, 4`, params).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	byFormat := map[string]*ReuseFormatStatistics{}
	for _, f := range register.Article29Formats {
		kind := movements.FlowUsed
		if f == "beverage_container" {
			kind = movements.FlowPlaced
		}
		byFormat[f] = &ReuseFormatStatistics{Format: f, FlowKind: kind}
	}
	for _, r := range rows {
		if r.Format == nil {
			out.FlowsWithoutFormat += r.Flows
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
	for _, f := range register.Article29Formats {
		s := byFormat[f]
		if total := s.ReusableUnits.Add(s.SingleUseUnits); total.IsPositive() {
			share := s.ReusableUnits.Mul(hundred).Div(total).Round(2)
			s.ReusableShare = &share
		}
		for _, t := range reuseTargetsOf(f) {
			s.Targets = append(s.Targets, targetStatus(t, s.ReusableShare, year, acts))
		}
		out.Formats = append(out.Formats, *s)
	}
	return out, nil
}

// targetStatus places a year's share against a target. The targets are
// annual, so a year is measured only when the target applies from its
// first day; a start that waits for a pending act is not_applicable.
func targetStatus(t ReuseTarget, share *decimal.Decimal, year int, acts rules.Acts) ReuseTargetStatus {
	from, provisional := t.Start.From(acts)
	st := ReuseTargetStatus{ReuseTarget: t, AppliesFrom: from.Format(time.DateOnly), Provisional: provisional}
	switch {
	case provisional || date(year, 1, 1).Before(from):
		st.Status = "not_applicable"
	case share == nil:
		st.Status = "no_data"
	case share.GreaterThanOrEqual(t.Percent):
		st.Status = "met"
	default:
		st.Status = "not_met"
	}
	return st
}
