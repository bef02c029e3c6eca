package imports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	importsapi "ppwr/api/imports"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// fixture is the API with a worker of its own task queue, and the relay
// that starts the workflows requests recorded.
type fixture struct {
	*apitest.API
	tn    apitest.Tenant
	relay *worker.Relay
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	a := apitest.New(t, apitest.WithServices())
	queue := "ppwr-imports-" + uuid.NewString()
	c := testenv.Temporal(t)
	w := worker.New(worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue, Storage: testenv.Storage(t)})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return &fixture{API: a, tn: a.NewTenant(apitest.TenantSpec{}), relay: &worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}}
}

// startRecorded runs the relay once, as the worker process does every
// second.
func (f *fixture) startRecorded(t *testing.T) {
	t.Helper()
	_, err := f.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
}

// summaryOf is the summary recorded with the start of workflowID.
func (f *fixture) summaryOf(t *testing.T, workflowID string) string {
	t.Helper()
	var s domain.WorkflowStart
	require.NoError(t, f.DB.Take(&s, "workflow_id = ?", workflowID).Error)
	return s.Summary
}

// upload posts a file of a type as the multipart form of createImport.
func (f *fixture) upload(t *testing.T, key, importType, name string, content []byte) *apitest.Response {
	t.Helper()
	return f.uploadForm(t, key, map[string]string{"type": importType}, name, content)
}

// uploadForm posts a file with the form's text fields.
func (f *fixture) uploadForm(t *testing.T, key string, fields map[string]string, name string, content []byte) *apitest.Response {
	t.Helper()
	body, contentType := apitest.Form(t, fields, name, content)
	return f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports"), Token: f.tn.Token, Body: body,
		Headers: map[string]string{"Content-Type": contentType, "Idempotency-Key": key}})
}

// await polls the import until it reaches one of the statuses.
func (f *fixture) await(t *testing.T, id string, statuses ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id), Token: f.tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		for _, s := range statuses {
			if res.JSON["status"] == s {
				return res.JSON
			}
		}
		require.True(t, time.Now().Before(deadline), "import %s still %v", id, res.JSON["status"])
		time.Sleep(50 * time.Millisecond)
	}
}

// createItem creates a catalogue item through the API, with fields over a
// purchased single-use piece of 24.5 g.
func (f *fixture) createItem(t *testing.T, fields map[string]any) *apitest.Response {
	t.Helper()
	body := map[string]any{"sourcingType": "purchased", "massG": "24.5", "stockUnit": "piece", "reuseType": "single_use"}
	maps.Copy(body, fields)
	res := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/catalog-items"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}, Body: body})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res
}

// preview uploads a file with the form's fields and waits for its preview
// to end; it returns the import.
func (f *fixture) preview(t *testing.T, fields map[string]string, name, content string) map[string]any {
	t.Helper()
	res := f.uploadForm(t, apitest.IdemKey(), fields, name, []byte(content))
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	f.startRecorded(t)
	return f.await(t, res.JSON["id"].(string), "ready", "failed")
}

// apply applies a ready import and waits for it to end; it returns the
// import.
func (f *fixture) apply(t *testing.T, id string) map[string]any {
	t.Helper()
	res := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports/" + id + "/apply"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	f.startRecorded(t)
	return f.await(t, id, "completed", "completed_with_errors")
}

// download reads a CSV file of the area, without its byte order mark.
func (f *fixture) download(t *testing.T, path string, headers map[string]string) [][]string {
	t.Helper()
	res := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path(path), Token: f.tn.Token, Headers: headers})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "text/csv; charset=utf-8", res.Header().Get("Content-Type"))
	body := res.Body.String()
	require.True(t, strings.HasPrefix(body, "\uFEFF"), "a byte order mark, for Excel")
	records, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	require.NoError(t, err)
	return records
}

func (f *fixture) rows(t *testing.T, id, query string) []any {
	t.Helper()
	res := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id + "/rows" + query), Token: f.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON["data"].([]any)
}

// requireResultNotReady asserts that the import's result file is not
// served yet: 409 file_not_ready naming the status, with Retry-After in
// whole seconds.
func (f *fixture) requireResultNotReady(t *testing.T, id, status string) {
	t.Helper()
	res := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id + "/result.csv"), Token: f.tn.Token})
	require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
	assert.Equal(t, "file_not_ready", res.ErrorCode())
	assert.Contains(t, res.JSON["error"].(map[string]any)["message"], "("+status+")")
	wait, err := strconv.Atoi(res.Header().Get("Retry-After"))
	require.NoError(t, err, "Retry-After is whole seconds")
	assert.Positive(t, wait)
}

// The path: a Polish Excel CSV (Windows-1250, semicolons) with a
// new item, an update and an invalid row is previewed, inspected, applied
// and lands in the catalogue; the upload retried with its key is one
// import.
func TestCatalogImportFromPolishExcelCSV(t *testing.T) {
	f := newFixture(t)
	existing := f.createItem(t, map[string]any{"internalCode": "PL-ISTN-1", "name": "Bottle 0.5 l",
		"mainMaterialCode": "PLASTIC_PET", "stockTracked": true, "foodContactStatus": "food_contact"})

	file, err := os.ReadFile("testdata/catalog-cp1250-semicolon.csv")
	require.NoError(t, err)
	key := apitest.IdemKey()
	res := f.upload(t, key, "catalog", "katalog.csv", file)
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	assert.Equal(t, "queued", res.JSON["status"])
	assert.Equal(t, "katalog.csv", res.JSON["file_name"])
	assert.Equal(t, float64(len(file)), res.JSON["size_bytes"])
	assert.Contains(t, res.Header().Get("Location"), "/imports/"+id)
	assert.Equal(t, fmt.Sprintf("Preview import `katalog.csv`: catalog, %d bytes", len(file)), f.summaryOf(t, "import/"+id),
		"the run's summary in the Temporal UI")

	again := f.upload(t, key, "catalog", "katalog.csv", file)
	require.Equal(t, http.StatusAccepted, again.Code, again.Body.String())
	assert.Equal(t, id, again.JSON["id"], "the retried upload is the same import")
	var count int64
	require.NoError(t, f.DB.Model(&imports.Import{}).Where("organization_id = ?", f.tn.Org).Count(&count).Error)
	assert.Equal(t, int64(1), count)

	early := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports/" + id + "/apply"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	assert.Equal(t, http.StatusUnprocessableEntity, early.Code, "apply before the preview is ready")
	assert.Equal(t, "import_not_ready", early.ErrorCode())
	f.requireResultNotReady(t, id, "queued")

	f.startRecorded(t)
	ready := f.await(t, id, "ready", "failed")
	require.Equal(t, "ready", ready["status"], "%v", ready["error"])
	assert.Equal(t, map[string]any{"create": 1.0, "update": 1.0, "unchanged": 0.0, "invalid": 1.0}, ready["counts"])

	rows := f.rows(t, id, "")
	require.Len(t, rows, 3)
	created, updated, invalid := rows[0].(map[string]any), rows[1].(map[string]any), rows[2].(map[string]any)
	assert.Equal(t, "create", created["outcome"])
	assert.Equal(t, "Pudełko żółte „Gęś”", created["input"].(map[string]any)["name"], "Windows-1250 decoded")
	assert.Equal(t, "update", updated["outcome"])
	changes := updated["planned"].(map[string]any)["changes"].(map[string]any)
	assert.Equal(t, map[string]any{"name": map[string]any{"from": "Bottle 0.5 l", "to": "Butelka źdźbło Łódź"}}, changes, "only the name differs")
	assert.Equal(t, "invalid", invalid["outcome"])
	assert.Contains(t, invalid["errors"], "massG")
	assert.Contains(t, invalid["errors"], "stockUnit")
	assert.Len(t, f.rows(t, id, "?outcome=invalid"), 1)
	var items int64
	require.NoError(t, f.DB.Model(&catalog.CatalogItem{}).Where("organization_id = ?", f.tn.Org).Count(&items).Error)
	assert.Equal(t, int64(1), items, "a preview changes nothing")

	applyKey := apitest.IdemKey()
	applied := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports/" + id + "/apply"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": applyKey}})
	require.Equal(t, http.StatusAccepted, applied.Code, applied.Body.String())
	assert.Equal(t, "applying", applied.JSON["status"])
	assert.Equal(t, "Apply import `katalog.csv`: catalog, 3 rows (1 new, 1 changed)", f.summaryOf(t, "import/"+id+"/apply"))
	f.requireResultNotReady(t, id, "applying")
	f.startRecorded(t)
	done := f.await(t, id, "completed", "completed_with_errors")
	assert.Equal(t, "completed_with_errors", done["status"])
	assert.NotNil(t, done["completed_at"])

	second := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports/" + id + "/apply"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	assert.Equal(t, "import_not_ready", second.ErrorCode(), "an import is applied once")

	rows = f.rows(t, id, "")
	for _, r := range rows[:2] {
		assert.NotNil(t, r.(map[string]any)["applied"], "applied rows record their change")
	}
	assert.Nil(t, rows[2].(map[string]any)["applied"])
	list := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/catalog-items?q=PL-"), Token: f.tn.Token})
	require.Equal(t, http.StatusOK, list.Code)
	names := map[string]any{}
	for _, it := range list.JSON["data"].([]any) {
		names[it.(map[string]any)["internalCode"].(string)] = it.(map[string]any)["name"]
	}
	assert.Equal(t, map[string]any{"PL-NOWY-1": "Pudełko żółte „Gęś”", "PL-ISTN-1": "Butelka źdźbło Łódź"}, names)
	assert.Len(t, f.AuditEntries(f.tn.Org, "applyImport"), 2, "the apply request and one batch")
	assert.Contains(t, f.EventTypes(f.tn.Org), "import.ready")
	assert.Contains(t, f.EventTypes(f.tn.Org), "import.completed")
	assert.Equal(t, []string{"catalog_item.created"}, slices.DeleteFunc(f.EventTypes(f.tn.Org), func(e string) bool { return strings.HasPrefix(e, "import.") }),
		"the import's rows record what it changed: no event per row")

	result := f.download(t, "/imports/"+id+"/result.csv", map[string]string{"X-Locale": "pl"})
	require.Len(t, result, 4, "the header and every input row")
	assert.Equal(t, append([]string{"row", "outcome", "applied", "record_id", "message"}, imports.CatalogImportColumns...), result[0])
	assert.Equal(t, []string{"1", "create", "true"}, result[1][:3])
	assert.Equal(t, "Utworzono.", result[1][4])
	assert.Equal(t, "Pudełko żółte „Gęś”", result[1][6], "the input as read")
	assert.Equal(t, []string{"2", "update", "true", existing.JSON["id"].(string), "Zaktualizowano: name."}, result[2][:5])
	assert.Equal(t, []string{"3", "invalid", "false", ""}, result[3][:4])
	assert.Contains(t, result[3][4], "massG: ")

	// The audit log, validated against the document like every answer,
	// names the apply's batch with a published actor type.
	audit := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/audit-log"), Token: f.tn.Token})
	require.Equal(t, http.StatusOK, audit.Code, audit.Body.String())
	actors := map[string]any{}
	for _, e := range audit.JSON["data"].([]any) {
		entry := e.(map[string]any)
		if entry["operation"] == "applyImport" {
			actor := entry["actor"].(map[string]any)["type"].(string)
			actors[actor] = []any{entry["record_type"], entry["record_id"], entry["request_id"]}
		}
	}
	require.Len(t, actors, 2, "the apply request and its batch: %v", actors)
	assert.Contains(t, actors, "api_key", "the request")
	assert.Equal(t, []any{"import", id, "import/" + id + "/apply"}, actors["system"],
		"the batch acts as the system, for the import, by its workflow")
}

// A file the preview cannot read fails the import with its reason; a type
// not built yet and an oversized file are refused at upload.
func TestUnreadableAndRefusedUploads(t *testing.T) {
	f := newFixture(t)
	res := f.upload(t, apitest.IdemKey(), "catalog", "bad.csv", []byte("code,colour\nA,red\n"))
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	f.startRecorded(t)
	failed := f.await(t, res.JSON["id"].(string), "ready", "failed")
	assert.Equal(t, "failed", failed["status"])
	assert.Contains(t, failed["error"], `Unknown columns: "code", "colour".`)
	pl := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + res.JSON["id"].(string)), Token: f.tn.Token,
		Headers: map[string]string{"X-Locale": "pl"}})
	assert.Contains(t, pl.JSON["error"], `Nieznane kolumny: "code", "colour".`)
	assert.Contains(t, f.EventTypes(f.tn.Org), "import.failed")
	f.requireResultNotReady(t, res.JSON["id"].(string), "failed")

	res = f.upload(t, apitest.IdemKey(), "catalog", "big.csv", bytes.Repeat([]byte("x"), importsapi.MaxUploadBytes+1))
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
	assert.Equal(t, "request_too_large", res.ErrorCode())
	var kept int64
	require.NoError(t, f.DB.Model(&imports.Import{}).Where("organization_id = ? AND file_name = ?", f.tn.Org, "big.csv").Count(&kept).Error)
	assert.Zero(t, kept)

	res = f.uploadForm(t, apitest.IdemKey(), map[string]string{"type": "partners", "mapping": `{"Firma": "name", "Kolor": "colour"}`},
		"p.csv", []byte("Firma\nA\n"))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, fmt.Sprint(res.FieldErrors()["mapping.Kolor"]), "must be one of: name, roles")
	res = f.uploadForm(t, apitest.IdemKey(), map[string]string{"type": "stock", "mapping": `["name"]`}, "p.csv", []byte("name\nA\n"))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Len(t, res.FieldErrors(), 2, res.Body.String())
	require.NoError(t, f.DB.Model(&imports.Import{}).Where("organization_id = ? AND file_name = ?", f.tn.Org, "p.csv").Count(&kept).Error)
	assert.Zero(t, kept, "a refused upload keeps nothing")
}

// A picture uploaded as an import, under a CSV file's name, fails as what
// it is, not a CSV or XLSX file, in the request's language, instead of
// naming its bytes as unknown columns.
func TestPictureUploadedAsAnImportIsNotACSVOrXLSXFile(t *testing.T) {
	f := newFixture(t)
	picture, err := os.ReadFile("testdata/catalog-photo.png")
	require.NoError(t, err)
	failed := f.preview(t, map[string]string{"type": "catalog"}, "katalog.csv", string(picture))
	assert.Equal(t, "failed", failed["status"])
	assert.Equal(t, "The file is not a CSV or XLSX file (it is a picture, a PDF or a workbook in the older .xls format, for example). "+
		"Save the data as CSV or XLSX in the spreadsheet program and upload it again.", failed["error"])
	id := failed["id"].(string)
	pl := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id), Token: f.tn.Token,
		Headers: map[string]string{"X-Locale": "pl"}})
	assert.True(t, strings.HasPrefix(pl.JSON["error"].(string), "Plik nie jest plikiem CSV ani XLSX"), pl.JSON["error"])
	assert.Empty(t, f.rows(t, id, ""), "no row read from it")
}

// A workbook LibreOffice saved: the first sheet is read by default, short
// rows and a mass formatted "0.00" read as typed, Polish text intact, and
// the import applies like a CSV one.
func TestCatalogImportFromLibreOfficeWorkbook(t *testing.T) {
	f := newFixture(t)
	f.createItem(t, map[string]any{"internalCode": "LO-ISTN-1", "name": "Tape",
		"mainMaterialCode": "PLASTIC_PP", "stockTracked": false, "foodContactStatus": "not_food_contact"})

	file, err := os.ReadFile("testdata/catalog-libreoffice.xlsx")
	require.NoError(t, err)
	ready := f.preview(t, map[string]string{"type": "catalog"}, "katalog.xlsx", string(file))
	require.Equal(t, "ready", ready["status"], "%v", ready["error"])
	id := ready["id"].(string)
	assert.Equal(t, map[string]any{"create": 1.0, "update": 1.0, "unchanged": 0.0, "invalid": 1.0}, ready["counts"])

	rows := f.rows(t, id, "")
	require.Len(t, rows, 3)
	created, updated, invalid := rows[0].(map[string]any), rows[1].(map[string]any), rows[2].(map[string]any)
	assert.Equal(t, "create", created["outcome"], "%v", created["errors"])
	assert.Equal(t, map[string]any{"internalCode": "LO-NOWY-1", "name": "Pudełko kartonowe żółte", "sourcingType": "purchased",
		"massG": "12.5", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece", "stockTracked": "1",
		"foodContactStatus": "food_contact", "reuseType": "single_use"}, created["input"])
	assert.Equal(t, "update", updated["outcome"], "%v", updated["errors"])
	assert.Equal(t, "24.5", updated["input"].(map[string]any)["massG"], "the value stored, not the 24.50 displayed")
	changes := updated["planned"].(map[string]any)["changes"].(map[string]any)
	assert.Equal(t, map[string]any{"name": map[string]any{"from": "Tape", "to": "Taśma klejąca"}}, changes, "only the name differs")
	assert.Equal(t, "invalid", invalid["outcome"])
	assert.Contains(t, invalid["errors"], "massG")
	assert.Contains(t, invalid["errors"], "stockUnit")

	assert.Equal(t, "completed_with_errors", f.apply(t, id)["status"])
	list := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/catalog-items?q=LO-"), Token: f.tn.Token})
	require.Equal(t, http.StatusOK, list.Code)
	items := map[string]any{}
	for _, it := range list.JSON["data"].([]any) {
		item := it.(map[string]any)
		items[item["internalCode"].(string)] = []any{item["name"], item["massG"], item["stockTracked"]}
	}
	assert.Equal(t, map[string]any{
		"LO-NOWY-1": []any{"Pudełko kartonowe żółte", "12.5", true},
		"LO-ISTN-1": []any{"Taśma klejąca", "24.5", false},
	}, items)
}

// The sheet field picks a sheet of the workbook, which is told from a CSV
// file by its content whatever its name; a missing sheet, an empty one and
// a damaged workbook fail the import with their reasons.
func TestWorkbookSheetsAndUnreadableWorkbooks(t *testing.T) {
	f := newFixture(t)
	file, err := os.ReadFile("testdata/catalog-libreoffice.xlsx")
	require.NoError(t, err)
	upload := func(name, sheet string, content []byte) string {
		res := f.uploadForm(t, apitest.IdemKey(), map[string]string{"type": "catalog", "sheet": sheet}, name, content)
		require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
		return res.JSON["id"].(string)
	}
	second := upload("export", "Zapasowy", file)
	missing := upload("katalog.xlsx", "Arkusz9", file)
	empty := upload("katalog.xlsx", "Pusty", file)
	damaged := upload("katalog.csv", "", file[:len(file)/2])
	f.startRecorded(t)

	ready := f.await(t, second, "ready", "failed")
	require.Equal(t, "ready", ready["status"], "%v", ready["error"])
	assert.Equal(t, map[string]any{"create": 1.0, "update": 0.0, "unchanged": 0.0, "invalid": 0.0}, ready["counts"])
	rows := f.rows(t, second, "")
	require.Len(t, rows, 1)
	assert.Equal(t, "Worek foliowy źdźbło", rows[0].(map[string]any)["input"].(map[string]any)["name"])

	failed := f.await(t, missing, "ready", "failed")
	assert.Equal(t, "failed", failed["status"])
	assert.Equal(t, `The workbook has no sheet named "Arkusz9". Its sheets are: "Katalog", "Zapasowy", "Pusty".`, failed["error"])
	pl := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + missing), Token: f.tn.Token,
		Headers: map[string]string{"X-Locale": "pl"}})
	assert.Equal(t, `Skoroszyt nie ma arkusza o nazwie "Arkusz9". Jego arkusze to: "Katalog", "Zapasowy", "Pusty".`, pl.JSON["error"])

	failed = f.await(t, empty, "ready", "failed")
	assert.Equal(t, "failed", failed["status"])
	assert.Contains(t, failed["error"], "The file is empty")

	failed = f.await(t, damaged, "ready", "failed")
	assert.Equal(t, "failed", failed["status"])
	assert.Contains(t, failed["error"], "The file is not a readable XLSX workbook", "read as a workbook despite its name")
}
