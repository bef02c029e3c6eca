package documents_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api"
	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/internal/config"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// bound is each wait's bound in these tests: short, so a frozen service
// fails a request quickly.
const bound = time.Second

// assertUnavailable checks a request a frozen service failed: 503
// service_unavailable, Retry-After, the service named.
func assertUnavailable(t *testing.T, status int, header http.Header, body []byte, service string) {
	t.Helper()
	require.Equal(t, http.StatusServiceUnavailable, status, string(body))
	var out struct {
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal(body, &out))
	assert.Equal(t, kit.CodeServiceUnavailable, out.Error.Code)
	assert.Contains(t, out.Error.Message, service)
	assert.NotEmpty(t, header.Get("Retry-After"))
}

// assertNothingKept checks that the organization has no document and the
// key no stored answer.
func (d *docs) assertNothingKept(t *testing.T, key string) {
	t.Helper()
	var count int64
	require.NoError(t, d.DB.Model(&documents.Document{}).Where("organization_id = ?", d.tn.Org).Count(&count).Error)
	assert.Zero(t, count, "no document without its file, no half-done write")
	stored, err := domain.FindIdempotencyRecord(t.Context(), d.DB, d.tn.KeyID, key)
	require.NoError(t, err)
	assert.Nil(t, stored, "a failed request stores no answer for its key")
}

// assertRetrySucceedsOnce retries the upload with its key: it is stored
// once, a replay answers the same version, and its processing ends by
// itself.
func (d *docs) assertRetrySucceedsOnce(t *testing.T, key string, fields map[string]string, content []byte) {
	t.Helper()
	res := d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes.txt", content)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	again := d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes.txt", content)
	require.Equal(t, http.StatusCreated, again.Code, again.Body.String())
	assert.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	assert.Equal(t, res.JSON["id"], again.JSON["id"])
	var count int64
	require.NoError(t, d.DB.Model(&documents.Document{}).Where("organization_id = ?", d.tn.Org).Count(&count).Error)
	assert.EqualValues(t, 1, count)
	v := d.processed(t, res.JSON["id"].(string))
	assert.Equal(t, documents.ProcessingReviewRequired, v["processing_status"])
}

func TestAFrozenObjectStoreAnswers503AndTheRetrySucceedsOnce(t *testing.T) {
	d := newDocs(t, func(t testing.TB, deps *api.Deps, _ *[]func(kit.Deps) kit.Area) {
		deps.Storage = testenv.BoundedStorage(t, bound)
	})
	fields := map[string]string{"document_type": "other", "title": "Notes"}
	content := []byte("notes kept while the store is down")
	key := apitest.IdemKey()

	thaw := testenv.FreezeS3(t)
	res := d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes.txt", content)
	assertUnavailable(t, res.Code, res.Header(), res.Body.Bytes(), "s3")
	thaw()
	d.assertNothingKept(t, key)
	d.assertRetrySucceedsOnce(t, key, fields, content)

	// A download waits on the store too.
	var v documents.DocumentVersion
	require.NoError(t, d.DB.Where("organization_id = ?", d.tn.Org).Take(&v).Error)
	download := apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v.ID.String() + "/download"), Token: d.tn.Token}
	thaw = testenv.FreezeS3(t)
	res = d.Do(download)
	assertUnavailable(t, res.Code, res.Header(), res.Body.Bytes(), "s3")
	thaw()
	res = d.Do(download)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, content, res.Body.Bytes())
}

func TestPostgreSQLThatStopsMidUploadAnswers503AndKeepsNothing(t *testing.T) {
	db, pause, resume := testenv.PausableDB(t)
	d := newDocs(t, func(_ testing.TB, deps *api.Deps, _ *[]func(kit.Deps) kit.Area) { deps.DB = db },
		apitest.WithConfig(func(c *config.Config) { c.DatabaseTimeout = bound }))
	fields := map[string]string{"document_type": "other", "title": "Notes"}
	content := bytes.Repeat([]byte("notes kept while the database is down\n"), 100)
	key := apitest.IdemKey()

	// The form goes out in two halves: once the handler has read the
	// first (past authentication and the key's lookup), PostgreSQL stops
	// answering, so the file reaches the store and the records do not.
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	for k, v := range fields {
		require.NoError(t, w.WriteField(k, v))
	}
	part, err := w.CreateFormFile("file", "notes.txt")
	require.NoError(t, err)
	_, err = part.Write(content)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	body, send := io.Pipe()
	req := httptest.NewRequest(http.MethodPost, apitest.Base+d.tn.Path("/documents"), body)
	req.Header.Set("Authorization", "Bearer "+d.tn.Token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Engine.ServeHTTP(rec, req)
	}()
	half := form.Len() / 2
	_, err = send.Write(form.Bytes()[:half])
	require.NoError(t, err)
	pause()
	_, _ = send.Write(form.Bytes()[half:])
	_ = send.Close()
	<-done
	assertUnavailable(t, rec.Code, rec.Header(), rec.Body.Bytes(), "postgres")
	resume()
	d.assertNothingKept(t, key)
	d.assertRetrySucceedsOnce(t, key, fields, content)
}

// readyz asks the API's readiness, which probes each service within
// health.Timeout (3 s).
func (d *docs) readyz(t *testing.T) (int, map[string]any) {
	t.Helper()
	res := d.Do(apitest.Req{Method: http.MethodGet, Path: "/readyz", OutsideAPI: true, Undocumented: true})
	checks, _ := res.JSON["checks"].(map[string]any)
	return res.Code, checks
}

// No request waits on Temporal but /readyz: a request that starts work
// records the start (domain.WorkflowStart) in its transaction, and the
// relay makes it once Temporal answers again.
func TestAFrozenTemporalHoldsNoRequestAndTheWorkStartsWhenItIsBack(t *testing.T) {
	d := newDocs(t)
	d.relay.StartTimeout = bound
	thaw := testenv.FreezeTemporal(t)

	res := d.Do(apitest.Req{Method: http.MethodGet, Path: "/readyz", OutsideAPI: true, Undocumented: true})
	assert.Equal(t, http.StatusOK, res.Code, "the replica serves: requests do not wait on Temporal")
	assert.Equal(t, "degraded", res.JSON["status"])
	checks := res.JSON["checks"].(map[string]any)
	assert.NotEqual(t, "ok", checks["temporal"], "readiness names Temporal")
	assert.Equal(t, "ok", checks["postgres"])
	assert.Equal(t, "ok", checks["s3"])

	v := d.uploadDocument(t, map[string]string{"document_type": "other", "title": "Notes"}, "notes.txt",
		[]byte("notes uploaded while Temporal is down"))
	id := v["id"].(string)
	assert.Equal(t, documents.ProcessingQueued, d.get(t, "/document-versions/"+id)["processing_status"])

	// The relay's start fails within its bound and is kept for a later pass.
	started, err := d.relay.StartWorkflows(t.Context())
	require.NoError(t, err)
	assert.Zero(t, started)
	var start domain.WorkflowStart
	require.NoError(t, d.DB.Where("workflow_id = ?",
		documents.ProcessingWorkflow.ID(documents.VersionInput{VersionID: uuid.MustParse(id)})).Take(&start).Error)
	assert.Nil(t, start.StartedAt)
	assert.Equal(t, 1, start.Attempts)
	assert.NotEmpty(t, start.LastError)

	thaw()
	status, checks := d.readyz(t)
	assert.Equal(t, http.StatusOK, status, "%v", checks)
	assert.Equal(t, "ok", checks["temporal"])
	assert.Equal(t, documents.ProcessingReviewRequired, d.processed(t, id)["processing_status"])
}

// Document processing is parked in its malware scan by a frozen clamd;
// then, in turn, each other service its next steps wait on is frozen and
// clamd thawed, so the processing moves on into the frozen service. While
// it waits, the version is still processing and the worker's readiness
// names the service; once thawed, the processing ends by itself, every
// page stored once.
func TestDocumentProcessingWaitsOutAFrozenServiceAndEndsByItself(t *testing.T) {
	db, pause, resume := testenv.PausableDB(t)
	var deps worker.Deps
	d := newDocsWorker(t, func(wd *worker.Deps) {
		wd.DB, wd.Storage = db, testenv.BoundedStorage(t, bound)
		deps = *wd
	})
	readiness := worker.Readiness(deps)
	pdf := fixtureFile(t, "measurements.pdf")
	for _, frozen := range []struct {
		service string
		freeze  func() (thaw func()) // nil: clamd itself
	}{
		{"clamd", nil},
		// The scan's result waits to be reported.
		{"temporal", func() func() { return testenv.FreezeTemporal(t) }},
		// The page extraction waits to read its version (the worker's
		// pool only is paused), then its file (a read that ends in the
		// worker's bound is retried).
		{"postgres", func() func() { pause(); return resume }},
		{"s3", func() func() { return testenv.FreezeS3(t) }},
	} {
		v := d.uploadDocument(t, map[string]string{"document_type": "other", "title": "Measurements " + frozen.service}, "measurements.pdf", pdf)
		id := v["id"].(string)
		thaw := testenv.FreezeClamd(t, deps.ClamdAddress)
		_, err := d.relay.StartWorkflows(t.Context())
		require.NoError(t, err)
		d.awaitStage(t, id, documents.StageScanning)
		if frozen.freeze != nil {
			thawClamd := thaw
			thaw = frozen.freeze()
			thawClamd()
		}

		report, ready := readiness.Run(t.Context())
		assert.False(t, ready, frozen.service)
		assert.NotEqual(t, "ok", report.Checks[frozen.service], "the worker's readiness names %s", frozen.service)
		assert.Equal(t, documents.ProcessingRunning, d.get(t, "/document-versions/"+id)["processing_status"],
			"%s frozen: the version waits, neither failed nor quarantined", frozen.service)

		thaw()
		v = d.processed(t, id)
		require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%s thawed: %v", frozen.service, v["processing_reason"])
		var pages int64
		require.NoError(t, d.DB.Model(&documents.DocumentPage{}).Where("document_version_id = ?", id).Count(&pages).Error)
		assert.EqualValues(t, v["page_count"], pages, "%s thawed: every page stored once", frozen.service)
	}
}

// awaitStage polls the version until its processing reaches stage.
func (d *docs) awaitStage(t *testing.T, versionID, stage string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := d.get(t, "/document-versions/"+versionID)
		if v["progress"].(map[string]any)["stage"] == stage {
			return
		}
		require.True(t, time.Now().Before(deadline), "version %s at %v, not %s", versionID, v["progress"], stage)
		time.Sleep(50 * time.Millisecond)
	}
}
