package ppwr_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/movements"
	"ppwr/internal/rules"
)

func (o *desk) revision(t *testing.T, item string) int {
	t.Helper()
	return int(o.ok(t, http.StatusOK, http.MethodGet, "/catalog-items/"+item, nil)["revision"].(float64))
}

// entry records a register entry about an item; a reviewable one is
// accepted by the reviewer.
func (o *desk) entry(t *testing.T, item, register string, values map[string]any) {
	t.Helper()
	e := o.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items/"+item+"/ppwr/"+register,
		map[string]any{"catalog_revision": o.revision(t, item), "method": "test_method", "values": values})
	if e["review_status"] == "unreviewed" {
		res := o.send(t, o.reviewer, http.MethodPost, "/catalog-items/"+item+"/ppwr/"+register+"/"+e["id"].(string)+"/review",
			map[string]any{"decision": "accepted", "reason": "Sprawdzono", "revision": 1})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	}
}

// classify records an accepted classification naming the Art. 29 format.
func (o *desk) classify(t *testing.T, item, format, reuseType string, exemptions ...string) {
	t.Helper()
	o.entry(t, item, "packaging-classification", map[string]any{"packaging_function": "transport", "is_packaging": true,
		"reuse_type": reuseType, "contact_sensitive": false, "food_contact": false, "annex_ii_category": 9,
		"predominant_material": "plastic", "composite": false, "article_29_format": format, "exemptions": append(exemptions, "6(11)")})
}

func (o *desk) flow(t *testing.T, item, kind, quantity, unit, on string, reusable bool) {
	t.Helper()
	o.ok(t, http.StatusCreated, http.MethodPost, "/flows", map[string]any{"item": item, "kind": kind, "quantity": quantity,
		"unit": unit, "mass_g": "1000", "country": "PL", "event_on": on, "reusable": reusable})
}

func unit(system, id, added string, trips, returns int, more map[string]any) map[string]any {
	v := map[string]any{"unit_identifier": id, "identifier_kind": "unit", "reuse_system": system, "added_on": added,
		"trips": trips, "rotations": returns, "return_events": returns, "counting": "counted"}
	for k, x := range more {
		v[k] = x
	}
	return v
}

func TestReuseStatisticsComeFromTheSystemsUnitsAndTheYearsFlows(t *testing.T) {
	o := newDesk(t)
	crate, oneWayCrate, cardboard, unclassified := o.item(t, o.tn, "reusable"), o.item(t, o.tn, "single_use"),
		o.item(t, o.tn, "single_use"), o.item(t, o.tn, "single_use")
	system := o.ok(t, http.StatusCreated, http.MethodPost, "/ppwr/reuse-systems", map[string]any{"code": "POOL-PL",
		"name": "Pula skrzynek PL", "operator": "Pula Sp. z o.o.", "loop": "closed_loop", "return_incentive": "Kaucja 20 zł za skrzynkę",
		"participants": []any{map[string]any{"name": "Sklep A", "role": "packaging_user", "confirmation": o.approved},
			map[string]any{"name": "Myjnia B", "role": "reconditioner"}},
		"reconditioning_steps": []string{"condition_check", "cleaning"}, "items": []string{crate}, "markets": []string{"PL"}})
	id := system["id"].(string)
	assert.Equal(t, nil, system["participants"].([]any)[1].(map[string]any)["confirmation"])

	o.entry(t, crate, "reuse-units", unit("POOL-PL", "C-1", "2026-01-15", 12, 11, nil))
	o.entry(t, crate, "reuse-units", unit(id, "BATCH-7", "2025-06-01", 100, 90,
		map[string]any{"identifier_kind": "batch", "units_in_batch": 50, "rejects": 2, "counting": "estimated"}))
	o.entry(t, crate, "reuse-units", unit("POOL-PL", "C-OLD", "2024-01-01", 40, 40, map[string]any{"end_of_life_on": "2025-12-31"}))
	o.entry(t, crate, "reuse-units", unit("Inny system", "X-1", "2026-01-01", 5, 5, nil))

	o.classify(t, crate, "crate", "reusable")
	o.classify(t, oneWayCrate, "crate", "single_use")
	o.classify(t, cardboard, "box", "single_use", "29(4)")
	o.flow(t, crate, "used", "60", "piece", "2026-03-01", true)
	o.flow(t, oneWayCrate, "used", "40", "piece", "2026-04-01", false)
	o.flow(t, oneWayCrate, "placed", "10", "piece", "2026-04-01", false)
	o.flow(t, oneWayCrate, "used", "1", "kg", "2026-04-01", false)
	o.flow(t, oneWayCrate, "used", "500", "piece", "2025-05-01", false)
	o.flow(t, cardboard, "used", "5", "piece", "2026-05-01", false)
	o.flow(t, unclassified, "used", "7", "piece", "2026-05-01", false)

	stats := o.ok(t, http.StatusOK, http.MethodGet, "/ppwr/reuse-statistics?year=2026", nil)
	systems := stats["systems"].([]any)
	require.Len(t, systems, 1)
	assert.Equal(t, map[string]any{"system": id, "code": "POOL-PL", "name": "Pula skrzynek PL", "unit_entries": 2.0,
		"units_in_circulation": 51.0, "trips": 112.0, "rotations": 101.0, "rejects": 2.0, "return_events": 101.0,
		"estimated_entries": 1.0, "return_rate_pct": "90.18"}, systems[0], "C-1 and the batch of 50; not the unit retired in 2025 nor another system's")
	formats := map[string]map[string]any{}
	for _, f := range stats["formats"].([]any) {
		formats[f.(map[string]any)["format"].(string)] = f.(map[string]any)
	}
	crates := formats["crate"]
	assert.Equal(t, "60", crates["reusable_units"])
	assert.Equal(t, "40", crates["single_use_units"], "used flows of 2026 in pieces only")
	assert.Equal(t, 1.0, crates["flows_not_in_pieces"])
	assert.Equal(t, "60", crates["reusable_share_pct"])
	target := crates["targets"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"article": "Art. 29(1), Art. 30(4)", "share_pct": "40", "kind": "binding", "applies_from": "2030-01-01",
		"provisional": true, "status": "not_applicable"}, target)
	assert.Equal(t, "5", formats["box"]["exempt_units"])
	assert.Nil(t, formats["box"]["reusable_share_pct"], "exempt units make no share")
	assert.Equal(t, "placed", formats["beverage_container"]["flow_kind"])
	assert.Equal(t, 1.0, stats["flows_without_format"])

	one := o.ok(t, http.StatusOK, http.MethodGet, "/ppwr/reuse-statistics?year=2025&system="+id, nil)
	assert.Equal(t, 1.0, one["systems"].([]any)[0].(map[string]any)["units_in_circulation"].(float64)-50, "C-OLD and the batch in 2025")

	for _, q := range []string{"", "?year=1999", "?year=2026&system=" + uuid.NewString(), "?year=2026&system=nie"} {
		res := o.send(t, o.tn, http.MethodGet, "/ppwr/reuse-statistics"+q, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, q)
	}
	res := o.send(t, o.other, http.MethodGet, "/ppwr/reuse-statistics?year=2026&system="+id, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "another organization's system")
	res = o.send(t, o.tn, http.MethodPost, "/ppwr/reuse-systems", map[string]any{"code": "POOL-PL", "name": "Druga", "operator": "X",
		"loop": "open_loop", "return_incentive": "Kaucja", "participants": []any{map[string]any{"name": "A", "role": "operator"}},
		"reconditioning_steps": []string{}, "items": []string{o.foreignItem}, "markets": []string{"PL", "XX"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	assert.Contains(t, res.FieldErrors(), "items.0")
	assert.Contains(t, res.FieldErrors(), "markets")
	res = o.send(t, o.tn, http.MethodPost, "/ppwr/reuse-systems", map[string]any{"code": "POOL-PL", "name": "Druga", "operator": "X",
		"loop": "open_loop", "return_incentive": "Kaucja", "participants": []any{map[string]any{"name": "A", "role": "operator"}},
		"reconditioning_steps": []string{}, "items": []string{crate}, "markets": []string{"PL"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	assert.Contains(t, res.FieldErrors(), "code", "the code is taken")
}

// The target rules read the statistics per Member State: the same groups
// of the year's flows, summed for the flows of one country. A beverage the
// classification excludes under Art. 29(7) counts as exempt.
func TestReuseStatisticsPerMemberState(t *testing.T) {
	o := newDesk(t)
	crate, bottle, milk := o.item(t, o.tn, "reusable"), o.item(t, o.tn, "single_use"), o.item(t, o.tn, "single_use")
	o.classify(t, crate, "crate", "reusable")
	o.classify(t, bottle, "beverage_container", "single_use")
	o.classify(t, milk, "beverage_container", "single_use", "29(7)")
	for _, f := range []struct {
		item, kind, quantity, country string
		reusable                      bool
	}{
		{crate, "used", "30", "PL", true}, {crate, "used", "10", "DE", true}, {crate, "used", "10", "DE", false},
		{bottle, "placed", "90", "PL", false}, {milk, "placed", "500", "PL", false},
	} {
		o.ok(t, http.StatusCreated, http.MethodPost, "/flows", map[string]any{"item": f.item, "kind": f.kind, "quantity": f.quantity,
			"unit": "piece", "mass_g": "1000", "country": f.country, "event_on": "2026-03-01", "reusable": f.reusable})
	}
	formats := func(list []movements.ReuseFormatStatistics) map[string]movements.ReuseFormatStatistics {
		out := map[string]movements.ReuseFormatStatistics{}
		for _, f := range list {
			out[f.Format] = f
		}
		return out
	}

	flows, err := movements.LoadReuseFlows(context.Background(), o.DB, o.tn.Org, 2026)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"PL", "DE"}, flows.Countries())
	pl, _ := flows.Formats("PL", 2026, rules.Acts{})
	de, _ := flows.Formats("DE", 2026, rules.Acts{})
	assert.Equal(t, "100", formats(pl)["crate"].ReusableShare.String())
	assert.Equal(t, "50", formats(de)["crate"].ReusableShare.String())
	assert.Equal(t, "0", formats(pl)["beverage_container"].ReusableShare.String(), "the milk is not counted")
	assert.Equal(t, "500", formats(pl)["beverage_container"].ExemptUnits.String())
	assert.Nil(t, formats(de)["beverage_container"].ReusableShare)

	stats := o.ok(t, http.StatusOK, http.MethodGet, "/ppwr/reuse-statistics?year=2026", nil)
	for _, f := range stats["formats"].([]any) {
		if f := f.(map[string]any); f["format"] == "crate" {
			assert.Equal(t, "80", f["reusable_share_pct"], "the organization's share sums the countries: 40 of 50")
		}
	}
}
