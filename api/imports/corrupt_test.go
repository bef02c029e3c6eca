package imports_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/datatypes"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/imports"
)

// A stored value of an import that does not decode is answered as an
// internal error, never as an empty value: the import's reason, a row's
// input, errors, planned or applied change.
func TestCorruptStoredValuesAreInternalErrors(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	stamp := domain.Now()
	imp := &imports.Import{ID: domain.NewID(), OrganizationID: tn.Org, Type: imports.ImportPartners, Status: imports.ImportReadyStatus,
		FileName: "p.csv", ObjectKey: "p.csv", Mapping: datatypes.JSON(`{}`), ErrorArgs: datatypes.JSON(`[]`), CreatedAt: stamp, UpdatedAt: stamp}
	require.NoError(t, a.DB.Create(imp).Error)
	party := uuid.New()
	row := &imports.ImportRow{ID: domain.NewID(), OrganizationID: tn.Org, ImportID: imp.ID, Number: 1, Outcome: imports.OutcomeUnchanged,
		Input: datatypes.JSON(`{"name": "Acme"}`), Errors: datatypes.JSON(`[]`), Planned: datatypes.JSON(`{"party": "` + party.String() + `"}`)}
	require.NoError(t, a.DB.Create(row).Error)
	get := func(path string) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path(path), Token: tn.Token})
	}
	list, show, rows, result := "/imports", "/imports/"+imp.ID.String(), "/imports/"+imp.ID.String()+"/rows", "/imports/"+imp.ID.String()+"/result.csv"
	fail := func(what string, paths ...string) {
		t.Helper()
		for _, path := range paths {
			res := get(path)
			assert.Equal(t, http.StatusInternalServerError, res.Code, "%s, %s: %s", what, path, res.Body.String())
			assert.Equal(t, "internal_error", res.ErrorCode(), "%s, %s", what, path)
		}
	}
	served := func(what string) {
		t.Helper()
		for _, path := range []string{list, show, rows, result} {
			res := get(path)
			require.Equal(t, http.StatusOK, res.Code, "%s, %s: %s", what, path, res.Body.String())
		}
	}
	served("stored values that decode")
	assert.Contains(t, get(result).Body.String(), party.String())

	for _, c := range []struct {
		set   string
		paths []string
	}{
		{`input = '[1]'`, []string{rows, result}},
		// The result file reads the errors of an invalid row only.
		{`errors = '{"field": 1}'`, []string{rows}},
		{`outcome = 'invalid', planned = NULL, errors = '[{"field": "name", "key": 1}]'`, []string{rows, result}},
		{`planned = '{"party": 5}'`, []string{result}},
		{`planned = NULL`, []string{result}},
		{`applied = '{"party": [1]}'`, []string{result}},
	} {
		require.NoError(t, a.DB.Exec("UPDATE import_rows SET "+c.set+" WHERE id = ?", row.ID).Error)
		fail(c.set, c.paths...)
		require.NoError(t, a.DB.Select("*").Save(row).Error)
	}
	served("restored values")

	require.NoError(t, a.DB.Exec(`UPDATE imports SET status = 'failed', error_key = 'error.import_file_empty', error_args = '{"not": "a list"}'
		WHERE id = ?`, imp.ID).Error)
	fail("a failed import's reason", list, show)
}
