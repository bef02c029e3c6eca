package bdo

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/testenv"
)

// seedYear writes an organization's year of flows and supply events on a
// few dates, hundreds to thousands of sources a date, so pages cross
// dates and end within them, and more than deepOffset sources, so the
// last pages start from a date. It also writes what is not a source of
// the year: flows of the years around it, a domestic purchase, another
// organization's flows on the same dates.
func seedYear(t *testing.T, db *gorm.DB) domain.Org {
	t.Helper()
	org, other := domain.NewID(), domain.NewID()
	for _, id := range []uuid.UUID{org, other} {
		require.NoError(t, db.Exec(`INSERT INTO organizations (id, name, slug) VALUES (?, 'BDO', ?)`, id, "bdo-"+id.String()).Error)
	}
	args := map[string]any{"org": org, "other": other, "deep": deepOffset}
	for _, s := range []string{
		`INSERT INTO catalog_items (id, organization_id, internal_code, name, sourcing_type, mass_g, main_material_code, stock_unit,
			food_contact_status, reuse_type)
		 SELECT gen_random_uuid(), o.id, 'BDO-' || g, 'Item ' || g, 'purchased', 25, 'PLASTIC_PET', 'piece', 'not_food_contact', 'single_use'
		 FROM organizations o, generate_series(1, 3) g WHERE o.id IN (@org, @other)`,
		`INSERT INTO catalog_item_data_versions (id, organization_id, catalog_item_id, revision, specifications, components, markets, sha256)
		 SELECT gen_random_uuid(), organization_id, id, 1, '{}', '[]', '[]', 'test' FROM catalog_items WHERE organization_id IN (@org, @other)`,
		// Three dates share all but 1,000 of deepOffset flows, the next four
		// share 1,200, and the year's last date has 200.
		`INSERT INTO flows (id, organization_id, catalog_item_id, data_version_id, kind, quantity, unit, mass_g, country, event_on, reusable)
		 SELECT gen_random_uuid(), @org, v.catalog_item_id, v.id, 'placed', 1, 'piece', 25, 'PL',
			date '2025-01-01' + CASE WHEN g <= @deep - 1000 THEN g % 3 * 100 WHEN g <= @deep + 200 THEN 330 + g % 4 ELSE 364 END, false
		 FROM generate_series(1, @deep + 400) g, LATERAL (SELECT * FROM catalog_item_data_versions WHERE organization_id = @org LIMIT 1) v`,
		`INSERT INTO flows (id, organization_id, catalog_item_id, data_version_id, kind, quantity, unit, mass_g, country, event_on, reusable)
		 SELECT gen_random_uuid(), v.organization_id, v.catalog_item_id, v.id, 'placed', 1, 'piece', 25, 'PL', d, false
		 FROM unnest(ARRAY[date '2024-12-31', '2025-01-01', '2025-12-31', '2026-01-01']) d, generate_series(1, 50) g,
			LATERAL (SELECT * FROM catalog_item_data_versions WHERE organization_id = CASE WHEN d IN ('2025-01-01', '2025-12-31') THEN @other ELSE @org END::uuid LIMIT 1) v`,
		// Production, imports and domestic purchases on the flows' dates.
		`INSERT INTO supply_events (id, organization_id, catalog_item_id, data_version_id, catalog_revision, direction, stock_quantity,
			stock_unit, mass_g, counterparty_country, event_on)
		 SELECT gen_random_uuid(), @org, v.catalog_item_id, v.id, 1, CASE WHEN g % 3 = 0 THEN 'produced' ELSE 'received' END, 1, 'piece', 25,
			CASE g % 3 WHEN 1 THEN 'DE' WHEN 2 THEN 'PL' END, date '2025-01-01' + (ARRAY[0, 330, 331, 364])[1 + g % 4]
		 FROM generate_series(1, 300) g, LATERAL (SELECT * FROM catalog_item_data_versions WHERE organization_id = @org LIMIT 1) v`,
	} {
		require.NoError(t, db.Exec(s, args).Error)
	}
	return domain.OrgOf(org)
}

// Every page, shallow or deep, holds the rows the whole year sorted by
// date and id would give it, ties in date included.
func TestADeepPageHoldsTheRowsOfTheSortedYear(t *testing.T) {
	ctx, db := context.Background(), testenv.DB(t)
	org := seedYear(t, db).Organization()
	var sorted []string
	require.NoError(t, db.Raw(`SELECT kind || ':' || id FROM (`+bdoSources("")+`) s ORDER BY event_on, id`, yearArgs(org, 2025)).
		Scan(&sorted).Error)
	require.Len(t, sorted, deepOffset+400+200, "the year's flows, its production and its imports")
	// Every page of 100, and the pages of 37 from a little before the deep
	// ones on, whose edges fall elsewhere.
	for perPage, first := range map[int]int{100: 1, 37: (deepOffset - 1000) / 37} {
		for page := first; (page-2)*perPage < len(sorted); page++ {
			rows, err := BDOSourcesPage(ctx, db, org, 2025, page, perPage)
			require.NoError(t, err)
			keys := make([]string, len(rows))
			for i := range rows {
				keys[i] = rows[i].Key()
			}
			from := min((page-1)*perPage, len(sorted))
			assert.Equal(t, sorted[from:min(from+perPage, len(sorted))], keys, "page %d, per_page %d", page, perPage)
		}
	}
}
