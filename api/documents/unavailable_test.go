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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api"
	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/internal/config"
	"ppwr/internal/testenv"
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
