package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
	"ppwr/internal/work"
	"ppwr/models"
)

// messages renders a command's field errors as the API does.
func messages(t *testing.T, err error) map[string]any {
	t.Helper()
	var invalid *input.Invalid
	require.True(t, errors.As(err, &invalid), "a field error: %v", err)
	byField := map[string][]string{}
	for _, f := range invalid.Fields {
		byField[f.Field] = append(byField[f.Field], i18n.T(i18n.EN, f.Key, f.Args...))
	}
	out := map[string]any{}
	for field, msgs := range byField {
		sort.Strings(msgs)
		list := make([]any, len(msgs))
		for i, m := range msgs {
			list[i] = m
		}
		out[field] = list
	}
	return out
}

// systemWork is a unit of work of a caller outside HTTP, such as a
// workflow's activity acting for a record.
func systemWork(a *apitest.API, org uuid.UUID) *work.Unit {
	return work.New(context.Background(), a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: org, Reference: "import/test"})
}

// The catalogue's rules live in the domain, not in the handlers: the
// create command, called outside HTTP with the same values, gets the very
// field errors the API answers, whether the values come as JSON or as the
// text cells of an import row.
func TestCommandsApplyTheAPIsRules(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	mustCreateItem(t, a, tn, "TAKEN")
	bad := map[string]string{
		"internalCode": "TAKEN", "name": " ", "sourcingType": "stolen", "massG": "1e3", "mainMaterialCode": "NOPE",
		"stockUnit": "pcs", "foodContactStatus": "maybe", "reuseType": "single_use", "stockTracked": "yes",
		"folder": uuid.NewString(),
	}
	body := map[string]any{}
	for k, v := range bad {
		body[k] = v
	}
	res := createItem(t, a, tn, body)
	require.Equal(t, 422, res.Code, res.Body.String())
	want := res.FieldErrors()
	for _, field := range []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit", "foodContactStatus", "stockTracked", "folder"} {
		assert.Contains(t, want, field)
	}

	raw, err := json.Marshal(body)
	require.NoError(t, err)
	fromJSON := &models.CatalogItemCreate{}
	require.NoError(t, input.FromJSON(raw, fromJSON))
	w := systemWork(a, tn.Org)
	_, err = models.CreateCatalogItem(w, fromJSON)
	w.Rollback()
	assert.Equal(t, want, messages(t, err), "a non-HTTP caller gets the API's field errors")

	fromCells := &models.CatalogItemCreate{}
	input.FromCells(bad, fromCells)
	w = systemWork(a, tn.Org)
	_, err = models.CreateCatalogItem(w, fromCells)
	w.Rollback()
	assert.Equal(t, want, messages(t, err), "an import row gets the API's field errors")
}

// A valid import row creates the item like the API does, and its audit
// entry (acting for the system) and its event commit with it.
func TestImportRowCreatesAnItem(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	in := &models.CatalogItemCreate{}
	input.FromCells(map[string]string{
		"internalCode": "ROW-1", "name": "Carton", "sourcingType": "purchased", "massG": "120.5", "mainMaterialCode": "PAPER",
		"stockUnit": "piece", "stockTracked": "true", "foodContactStatus": "not_food_contact", "reuseType": "single_use",
	}, in)
	require.False(t, in.Failed(), "%v", in.Err())
	w := systemWork(a, tn.Org)
	item, err := models.CreateCatalogItem(w, in)
	require.NoError(t, err)
	require.NoError(t, models.Commit(w, models.AuditEntry{Operation: "applyImport"}))

	res := a.Do(apitest.Req{Method: "GET", Path: tn.Path("/catalog-items/" + item.ID.String()), Token: tn.Token})
	require.Equal(t, 200, res.Code)
	assert.Equal(t, "120.5", res.JSON["massG"])
	assert.Equal(t, true, res.JSON["stockTracked"])
	assert.Equal(t, []string{"catalog_item.created"}, a.EventTypes(tn.Org))
	entries := a.AuditEntries(tn.Org, "applyImport")
	require.Len(t, entries, 1)
	assert.Equal(t, models.ActorSystem, entries[0].ActorKind)
	assert.Equal(t, "import/test", entries[0].RequestID)
	assert.Equal(t, item.ID, *entries[0].RecordID)
}
