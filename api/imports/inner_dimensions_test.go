package imports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/catalog"
)

// A catalog file sets inner dimensions like any other field: an update
// plans only the dimension that differs, and a bad one fails its row.
func TestCatalogImportOfInnerDimensions(t *testing.T) {
	f := newFixture(t)
	f.createItem(t, map[string]any{"internalCode": "BOX-1", "name": "Box", "mainMaterialCode": "PAPER_CARDBOARD",
		"foodContactStatus": "not_food_contact", "innerLengthMm": "300", "innerWidthMm": "200", "innerHeightMm": "100"})
	ready := f.preview(t, map[string]string{"type": "catalog"}, "boxes.csv",
		"internalCode;innerLengthMm;innerWidthMm;innerHeightMm\nBOX-1;300.0;200;150\nBOX-2;0;1;1\n")
	require.Equal(t, "ready", ready["status"], "%v", ready["error"])
	rows := f.rows(t, ready["id"].(string), "")
	update, invalid := rows[0].(map[string]any), rows[1].(map[string]any)
	require.Equal(t, "update", update["outcome"], "%v", update["errors"])
	assert.Equal(t, map[string]any{"innerHeightMm": map[string]any{"from": "100", "to": "150"}},
		update["planned"].(map[string]any)["changes"], "300.0 is the length the item has")
	assert.Equal(t, "invalid", invalid["outcome"])
	assert.Contains(t, invalid["errors"], "innerLengthMm")

	assert.Equal(t, "completed_with_errors", f.apply(t, ready["id"].(string))["status"])
	var item catalog.CatalogItem
	require.NoError(t, f.DB.Where("organization_id = ? AND internal_code = ?", f.tn.Org, "BOX-1").First(&item).Error)
	require.NotNil(t, item.InnerHeightMm)
	assert.Equal(t, "150", item.InnerHeightMm.String())
	assert.Equal(t, "300", item.InnerLengthMm.String())
}
