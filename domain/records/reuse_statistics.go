package records

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain/movements"
	"ppwr/internal/rules"
)

// Re-use statistics (PPWR Art. 29-31, Annex VI Part A point 1(f)): per
// re-use system, what its reuse units record; per Art. 29 format, the
// reusable share of the year's flows against the targets.

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

// ReuseStatistics is the year's statistics of an organization.
type ReuseStatistics struct {
	Year               int                               `json:"year"`
	Systems            []ReuseSystemStatistics           `json:"systems"`
	Formats            []movements.ReuseFormatStatistics `json:"formats"`
	FlowsWithoutFormat int64                             `json:"flows_without_format"`
	Method             string                            `json:"method"`
}

// ReuseStatisticsMethod says how the statistics are made; it is part of
// each answer.
const ReuseStatisticsMethod = "Systems: the active reuse-units entries naming the system (by id or code) whose unit was added by the year's end " +
	"and not at end of life before its start; a batch counts its units_in_batch; trips, rotations, rejects and return events are the totals " +
	"the entries record; the return rate is return events per trip. Formats: the year's flows of items whose accepted packaging-classification " +
	"entry on their current revision names an article_29_format; transport formats and grouped boxes count used flows (Art. 29(1), 29(5): users), " +
	"beverage containers placed flows (Art. 29(6): final distributors); units are flow quantities in pieces, flows in other units are counted " +
	"apart; items with exemption 29(4), and beverage containers with exemption 29(7), count as exempt. A target is measured for a year only when it applies from the year's first day; one whose start waits for a pending Commission act is provisional and not_applicable."

// ComputeReuseStatistics reads the year's statistics, of one system when
// system is not nil.
func ComputeReuseStatistics(ctx context.Context, db *gorm.DB, org uuid.UUID, year int, system *uuid.UUID, acts rules.Acts) (*ReuseStatistics, error) {
	start, end := date(year, 1, 1), date(year, 12, 31)
	out := &ReuseStatistics{Year: year, Systems: []ReuseSystemStatistics{}, Method: ReuseStatisticsMethod}
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
	flows, err := movements.LoadReuseFlows(ctx, db, org, year)
	if err != nil {
		return nil, err
	}
	out.Formats, out.FlowsWithoutFormat = flows.Formats("", year, acts)
	return out, nil
}
