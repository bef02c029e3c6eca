package documents_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/documents"
	"ppwr/internal/access"
	"ppwr/internal/config"
	"ppwr/internal/storage"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// docs is the API with a worker of its own task queue processing
// documents against the real stack (Postgres, Temporal, S3, clamd), and
// the relay that starts the workflows requests recorded.
type docs struct {
	*apitest.API
	tn    apitest.Tenant
	relay *worker.Relay
}

func newDocs(t *testing.T, opts ...apitest.Option) *docs {
	return newDocsWorker(t, func(*worker.Deps) {}, opts...)
}

// newDocsWorker is newDocs with a worker that more deps configure.
func newDocsWorker(t *testing.T, configure func(*worker.Deps), opts ...apitest.Option) *docs {
	t.Helper()
	clamd := testenv.Clamd(t)
	a := apitest.New(t, append([]apitest.Option{apitest.WithServices()}, opts...)...)
	queue := "ppwr-documents-" + uuid.NewString()
	c := testenv.Temporal(t)
	deps := worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue, Storage: testenv.Storage(t), ClamdAddress: clamd}
	configure(&deps)
	w := worker.New(deps)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return &docs{API: a, tn: a.NewTenant(apitest.TenantSpec{}), relay: &worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}}
}

// fixtureFile reads a committed document fixture (testdata/documents).
func fixtureFile(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "documents", name))
	require.NoError(t, err)
	return raw
}

// eicar is the standard anti-malware test file, assembled here so that
// the repository holds no file a scanner flags.
var eicar = []byte(`X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR` + "-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*")

// upload posts a file with the form's text fields to path as tn.
func (d *docs) upload(t *testing.T, tn apitest.Tenant, path string, fields map[string]string, name string, content []byte) *apitest.Response {
	t.Helper()
	return d.uploadKeyed(t, tn, path, apitest.IdemKey(), fields, name, content)
}

// uploadKeyed is upload with the Idempotency-Key key. The fields go in
// map order, which differs from call to call, as a client's may.
func (d *docs) uploadKeyed(t *testing.T, tn apitest.Tenant, path, key string, fields map[string]string, name string, content []byte) *apitest.Response {
	t.Helper()
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	for k, v := range fields {
		require.NoError(t, form.WriteField(k, v))
	}
	if name != "" {
		part, err := form.CreateFormFile("file", name)
		require.NoError(t, err)
		_, err = part.Write(content)
		require.NoError(t, err)
	}
	require.NoError(t, form.Close())
	return d.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body.String(),
		Headers: map[string]string{"Content-Type": form.FormDataContentType(), "Idempotency-Key": key}})
}

// uploadDocument uploads a new document as the tenant and answers its
// version.
func (d *docs) uploadDocument(t *testing.T, fields map[string]string, name string, content []byte) map[string]any {
	t.Helper()
	res := d.upload(t, d.tn, "/documents", fields, name, content)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON
}

// processed starts the recorded workflows and waits for the version's
// processing to end.
func (d *docs) processed(t *testing.T, versionID string) map[string]any {
	t.Helper()
	_, err := d.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	deadline := time.Now().Add(60 * time.Second)
	for {
		v := d.get(t, "/document-versions/"+versionID)
		switch v["processing_status"] {
		case documents.ProcessingReviewRequired, documents.ProcessingQuarantined, documents.ProcessingFailed:
			return v
		}
		require.True(t, time.Now().Before(deadline), "version %s still %v", versionID, v["processing_status"])
		time.Sleep(100 * time.Millisecond)
	}
}

// analysed starts the recorded workflows and polls the version until its
// latest analysis run has completed; it returns that read.
func (d *docs) analysed(t *testing.T, versionID string) *apitest.Response {
	t.Helper()
	_, err := d.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + versionID), Token: d.tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		if a, ok := res.JSON["analysis"].(map[string]any); ok && a["status"] == documents.AnalysisCompleted {
			return res
		}
		require.True(t, time.Now().Before(deadline), "version %s: analysis %v", versionID, res.JSON["analysis"])
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *docs) get(t *testing.T, path string) map[string]any {
	t.Helper()
	res := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path(path), Token: d.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

func (d *docs) post(t *testing.T, tn apitest.Tenant, path string, body any) *apitest.Response {
	t.Helper()
	return d.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

// newItem creates a catalogue item named name.
func (d *docs) newItem(t *testing.T, name string) string {
	t.Helper()
	res := d.post(t, d.tn, "/catalog-items", map[string]any{"internalCode": "DOC-" + uuid.NewString()[:8], "name": name,
		"sourcingType": "purchased", "massG": "24.5", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece", "reuseType": "single_use", "foodContactStatus": "not_food_contact"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON["id"].(string)
}

func TestAPDFIsProcessedPageByPageAndServedBack(t *testing.T) {
	d := newDocs(t)
	pdf := fixtureFile(t, "measurements.pdf")
	item := d.newItem(t, "Pudełko")
	res := d.upload(t, d.tn, "/documents", map[string]string{"document_type": "specification_sheet", "title": "Karta wyrobu",
		"catalog_item": item, "valid_from": "2026-01-01", "language": "pl"}, "karta.pdf", pdf)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), res.Header().Get("Retry-After"), "a version being processed is polled from its upload")
	v := res.JSON
	assert.Equal(t, documents.ProcessingQueued, v["processing_status"], "the upload answers before processing")
	assert.Equal(t, documents.ReviewUnreviewed, v["review_status"])
	sum := sha256.Sum256(pdf)
	assert.Equal(t, hex.EncodeToString(sum[:]), v["sha256"])
	assert.EqualValues(t, len(pdf), v["size_bytes"])
	assert.EqualValues(t, 1, v["version"])
	assert.Equal(t, "queued", v["progress"].(map[string]any)["stage"])
	queued := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string)), Token: d.tn.Token})
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), queued.Header().Get("Retry-After"), "a version being processed is polled")

	v = d.processed(t, v["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	assert.Equal(t, "application/pdf", v["content_type"])
	pages := int(v["page_count"].(float64))
	require.GreaterOrEqual(t, pages, 3)
	progress := v["progress"].(map[string]any)
	assert.Equal(t, []any{"finished", float64(pages), float64(pages)}, []any{progress["stage"], progress["done"], progress["total"]}, "every page read")
	read := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string)), Token: d.tn.Token})
	assert.Empty(t, read.Header().Get("Retry-After"), "a processed version is not polled")
	var stored []documents.DocumentPage
	require.NoError(t, d.DB.Where("document_version_id = ?", v["id"]).Order("page").Find(&stored).Error)
	require.Len(t, stored, pages)
	assert.Contains(t, stored[0].Text, "ąćęłńóśźż", "Polish text comes out of the PDF as written")

	doc := d.get(t, "/documents/"+v["document"].(string))
	assert.Equal(t, item, doc["catalog_item"])
	assert.Equal(t, "2026-01-01", doc["valid_from"])
	assert.Equal(t, v["id"], doc["current_version"].(map[string]any)["id"])

	res = d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string) + "/download"), Token: d.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, pdf, res.Body.Bytes())
	assert.Equal(t, "application/pdf", res.Header().Get("Content-Type"))
	assert.Equal(t, hex.EncodeToString(sum[:]), res.Header().Get("X-Checksum-SHA256"))
	assert.Contains(t, res.Header().Get("Content-Disposition"), "karta.pdf")

	assert.Contains(t, d.EventTypes(d.tn.Org), "document_version.created")
	assert.Contains(t, d.EventTypes(d.tn.Org), "document_version.processed")
	assert.NotEmpty(t, d.AuditEntries(d.tn.Org, "processDocumentVersion"))
}

func TestEICARIsQuarantinedAndNeverServed(t *testing.T) {
	d := newDocs(t)
	v := d.uploadDocument(t, map[string]string{"document_type": "test_report", "title": "Lab"}, "report.pdf", eicar)
	v = d.processed(t, v["id"].(string))
	assert.Equal(t, documents.ProcessingQuarantined, v["processing_status"])
	assert.Contains(t, v["processing_reason"], "Eicar")
	assert.Contains(t, d.EventTypes(d.tn.Org), "document_version.quarantined")

	download := apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string) + "/download"), Token: d.tn.Token}
	res := d.Do(download)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "document_not_servable", res.ErrorCode())
	assert.NotContains(t, res.Body.String(), "EICAR-STANDARD", "errors stay JSON; the bytes never leave")

	res = d.post(t, d.tn, "/document-versions/"+v["id"].(string)+"/decision", map[string]any{"decision": "approved", "revision": v["revision"]})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "document_not_reviewable", res.ErrorCode())

	// The bytes left the version's key for the quarantine prefix, which
	// the store never reads.
	var stored documents.DocumentVersion
	require.NoError(t, d.DB.Take(&stored, "id = ?", v["id"]).Error)
	key := documents.DocumentObjectKey(d.tn.Org, stored.DocumentID, stored.ID)
	assert.Equal(t, storage.QuarantinePrefix+key, stored.ObjectKey)
	store := testenv.Storage(t)
	_, err := store.Get(context.Background(), key)
	assert.ErrorIs(t, err, storage.ErrNotFound)
	_, err = store.Get(context.Background(), stored.ObjectKey)
	assert.ErrorIs(t, err, storage.ErrQuarantined)
	kept, err := store.Exists(context.Background(), stored.ObjectKey)
	require.NoError(t, err)
	assert.True(t, kept, "kept for an operator")

	// Even a version wrongly marked clean cannot serve them.
	require.NoError(t, d.DB.Model(&stored).Updates(map[string]any{"processing_status": documents.ProcessingReviewRequired, "content_type": "text/plain"}).Error)
	res = d.Do(download)
	assert.NotEqual(t, http.StatusOK, res.Code)
	assert.NotContains(t, res.Body.String(), "EICAR-STANDARD")
}

func TestContentDecidesTheType(t *testing.T) {
	d := newDocs(t)
	for name, want := range map[string]string{
		"renamed-executable.pdf": documents.ProcessingFailed,
		"javascript.pdf":         documents.ProcessingQuarantined,
		"encrypted.pdf":          documents.ProcessingQuarantined,
		"sample.png":             documents.ProcessingReviewRequired,
	} {
		v := d.uploadDocument(t, map[string]string{"document_type": "other", "title": name}, name, fixtureFile(t, name))
		v = d.processed(t, v["id"].(string))
		assert.Equal(t, want, v["processing_status"], "%s: %v", name, v["processing_reason"])

		pages := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string) + "/pages"), Token: d.tn.Token})
		if want == documents.ProcessingReviewRequired {
			require.Equal(t, http.StatusOK, pages.Code, pages.Body.String())
			assert.Empty(t, pages.JSON["data"], "%s: a clean file that is not a PDF has no pages", name)
		} else {
			assert.Equal(t, http.StatusUnprocessableEntity, pages.Code, name)
			assert.Equal(t, "document_not_servable", pages.ErrorCode(), "%s: an unsafe or unreadable file's text is never served", name)
		}
	}
}

// A reviewer reads a PDF's text page by page, exactly as stored, to quote
// it; before processing ends the list says to come back.
func TestThePagesTextIsReadPageByPage(t *testing.T) {
	d := newDocs(t)
	v := d.uploadDocument(t, map[string]string{"document_type": "specification_sheet", "title": "Karta"}, "karta.pdf", fixtureFile(t, "measurements.pdf"))
	id := v["id"].(string)
	list := func(tn apitest.Tenant, path string) *apitest.Response {
		return d.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path(path), Token: tn.Token})
	}

	res := list(d.tn, "/document-versions/"+id+"/pages")
	assert.Equal(t, http.StatusConflict, res.Code, "queued: %s", res.Body)
	assert.Equal(t, "file_not_ready", res.ErrorCode())
	assert.NotEmpty(t, res.Header().Get("Retry-After"))

	v = d.processed(t, id)
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	var stored []documents.DocumentPage
	require.NoError(t, d.DB.Where("document_version_id = ?", id).Order("page").Find(&stored).Error)
	require.GreaterOrEqual(t, len(stored), 3)

	var pages []map[string]any
	next := d.tn.Path("/document-versions/" + id + "/pages?per_page=2")
	for requests := 0; next != ""; requests++ {
		require.Less(t, requests, len(stored))
		res := d.Do(apitest.Req{Method: http.MethodGet, Path: next, Token: d.tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		for _, p := range res.JSON["data"].([]any) {
			pages = append(pages, p.(map[string]any))
		}
		next = ""
		if link, ok := res.JSON["links"].(map[string]any)["next"].(string); ok {
			next = link[len(apitest.Base):]
		}
	}
	require.Len(t, pages, len(stored), "every page once, over pages of two")
	for i, p := range pages {
		assert.EqualValues(t, i+1, p["page"])
		assert.Equal(t, stored[i].Text, p["text"], "page %d verbatim", i+1)
	}
	assert.Contains(t, pages[0]["text"], "Masa opakowania: 12,5 g")
	assert.Contains(t, pages[1]["text"], "Wymiary: 300 x 200 x 150 mm")
	assert.NotContains(t, pages[1]["text"], "Masa opakowania")

	// A cursor names its list: an id's, not issued here, is refused here,
	// a page's on a list of ids.
	idCursor := base64.RawURLEncoding.EncodeToString([]byte(`{"a":"` + uuid.NewString() + `"}`))
	res = list(d.tn, "/document-versions/"+id+"/pages?cursor="+idCursor)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "cursor")
	first := list(d.tn, "/document-versions/"+id+"/pages?per_page=1")
	link := first.JSON["links"].(map[string]any)["next"].(string)
	res = list(d.tn, "/documents?cursor="+link[strings.Index(link, "cursor=")+len("cursor="):])
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "cursor")

	other := d.NewTenant(apitest.TenantSpec{})
	res = list(other, "/document-versions/"+id+"/pages")
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's version")
}

// An upload retried with its Idempotency-Key replays its first answer only
// for the same file and fields; anything else under that key is a reuse.
func TestAnUploadsKeyReplaysOnlyTheSameForm(t *testing.T) {
	d := newDocs(t)
	key := apitest.IdemKey()
	fields := map[string]string{"document_type": "other", "title": "Notes", "language": "pl"}
	first := d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes.txt", []byte("first file"))
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())

	again := d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes.txt", []byte("first file"))
	require.Equal(t, http.StatusCreated, again.Code, again.Body.String())
	assert.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	assert.Equal(t, first.JSON["id"], again.JSON["id"], "the same version")
	assert.Equal(t, first.Header().Get("Location"), again.Header().Get("Location"))

	for name, retry := range map[string]func() *apitest.Response{
		"another file": func() *apitest.Response {
			return d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes.txt", []byte("other file"))
		},
		"another file name": func() *apitest.Response {
			return d.uploadKeyed(t, d.tn, "/documents", key, fields, "notes-2.txt", []byte("first file"))
		},
		"another field": func() *apitest.Response {
			return d.uploadKeyed(t, d.tn, "/documents", key, map[string]string{"document_type": "other", "title": "Notes 2", "language": "pl"}, "notes.txt", []byte("first file"))
		},
		"one field less": func() *apitest.Response {
			return d.uploadKeyed(t, d.tn, "/documents", key, map[string]string{"document_type": "other", "title": "Notes"}, "notes.txt", []byte("first file"))
		},
	} {
		res := retry()
		assert.Equal(t, http.StatusConflict, res.Code, "%s: %s", name, res.Body)
		assert.Equal(t, "idempotency_key_reused", res.ErrorCode(), name)
	}

	// A new version's upload is keyed the same way.
	doc := first.JSON["document"].(string)
	versionKey := apitest.IdemKey()
	second := d.uploadKeyed(t, d.tn, "/documents/"+doc+"/versions", versionKey, nil, "notes.txt", []byte("second file"))
	require.Equal(t, http.StatusCreated, second.Code, second.Body.String())
	again = d.uploadKeyed(t, d.tn, "/documents/"+doc+"/versions", versionKey, nil, "notes.txt", []byte("second file"))
	require.Equal(t, http.StatusCreated, again.Code, again.Body.String())
	assert.Equal(t, second.JSON["id"], again.JSON["id"])
	res := d.uploadKeyed(t, d.tn, "/documents/"+doc+"/versions", versionKey, nil, "notes.txt", []byte("third file"))
	assert.Equal(t, http.StatusConflict, res.Code, res.Body.String())
	assert.Equal(t, "idempotency_key_reused", res.ErrorCode())

	var docs, versions int64
	require.NoError(t, d.DB.Model(&documents.Document{}).Where("organization_id = ?", d.tn.Org).Count(&docs).Error)
	require.NoError(t, d.DB.Model(&documents.DocumentVersion{}).Where("organization_id = ?", d.tn.Org).Count(&versions).Error)
	assert.EqualValues(t, 1, docs, "replays and reuses store nothing")
	assert.EqualValues(t, 2, versions)
	assert.EqualValues(t, 2, d.get(t, "/documents/"+doc)["version_count"])
	assert.Len(t, d.AuditEntries(d.tn.Org, "uploadDocument"), 1)
	assert.Len(t, d.AuditEntries(d.tn.Org, "uploadDocumentVersion"), 1)
}

func TestAScannedPageHasNoText(t *testing.T) {
	d := newDocs(t)
	v := d.uploadDocument(t, map[string]string{"document_type": "photo", "title": "Scan"}, "scan.pdf", fixtureFile(t, "scanned.pdf"))
	v = d.processed(t, v["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	var page documents.DocumentPage
	require.NoError(t, d.DB.Where("document_version_id = ?", v["id"]).Take(&page).Error)
	assert.False(t, page.HasText)
}

func TestUploadRefusesBadFormsAndKeepsNothing(t *testing.T) {
	d := newDocs(t, apitest.WithConfig(func(c *config.Config) { c.DocumentMaxBytes = 1024 }))
	other := d.NewTenant(apitest.TenantSpec{})
	foreign := d.post(t, other, "/catalog-items", map[string]any{"internalCode": "F-1", "name": "Foreign", "sourcingType": "purchased",
		"massG": "1", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece", "reuseType": "single_use", "foodContactStatus": "not_food_contact"})
	require.Equal(t, http.StatusCreated, foreign.Code, foreign.Body.String())

	res := d.upload(t, d.tn, "/documents", map[string]string{"document_type": "other", "title": "No file"}, "", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "file")

	res = d.upload(t, d.tn, "/documents", map[string]string{"document_type": "poem", "title": " ", "valid_from": "2026-02-01",
		"valid_until": "2026-01-01", "catalog_item": foreign.JSON["id"].(string)}, "a.txt", []byte("hello"))
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	for _, field := range []string{"document_type", "title", "valid_until", "catalog_item"} {
		assert.Contains(t, res.FieldErrors(), field)
	}

	res = d.upload(t, d.tn, "/documents", map[string]string{"document_type": "other", "title": "Big"}, "big.txt", bytes.Repeat([]byte("a"), 2048))
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
	assert.Equal(t, "request_too_large", res.ErrorCode())

	var count int64
	require.NoError(t, d.DB.Model(&documents.Document{}).Where("organization_id = ?", d.tn.Org).Count(&count).Error)
	assert.Zero(t, count, "a refused upload leaves no document")
}

func TestANewVersionKeepsTheEarlierOnes(t *testing.T) {
	d := newDocs(t)
	first := d.uploadDocument(t, map[string]string{"document_type": "other", "title": "Notes"}, "v1.txt", []byte("first"))
	doc := first["document"].(string)
	res := d.upload(t, d.tn, "/documents/"+doc+"/versions", nil, "v2.txt", []byte("second"))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.EqualValues(t, 2, res.JSON["version"])
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), res.Header().Get("Retry-After"), "a version whose processing starts is polled from its upload")

	list := d.get(t, "/documents/"+doc+"/versions")["data"].([]any)
	require.Len(t, list, 2)
	assert.Equal(t, first["sha256"], list[0].(map[string]any)["sha256"], "the first version is unchanged")
	assert.Equal(t, res.JSON["id"], d.get(t, "/documents/"+doc)["current_version"].(map[string]any)["id"])

	other := d.NewTenant(apitest.TenantSpec{})
	res = d.upload(t, other, "/documents/"+doc+"/versions", nil, "v3.txt", []byte("third"))
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's document")
}

// reviewable uploads a text document as uploader and processes it.
func (d *docs) reviewable(t *testing.T, uploader apitest.Tenant) map[string]any {
	t.Helper()
	res := d.upload(t, uploader, "/documents", map[string]string{"document_type": "supplier_declaration", "title": "Declaration"},
		"declaration.txt", []byte("We declare the box is 12,5 g."))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	v := d.processed(t, res.JSON["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	return v
}

func decide(d *docs, t *testing.T, tn apitest.Tenant, v map[string]any, body map[string]any) *apitest.Response {
	t.Helper()
	return d.post(t, tn, "/document-versions/"+v["id"].(string)+"/decision", body)
}

func TestReviewFollowsTheStateTableWithDualControl(t *testing.T) {
	d := newDocs(t)
	require.NoError(t, d.DB.Model(&accounts.Organization{}).Where("id = ?", d.tn.Org).Update("dual_control", true).Error)
	reviewer := []string{string(access.DocumentsView), string(access.DocumentsUploadPerm), string(access.DocumentsApprove)}
	alice := d.AddUser(d.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: reviewer})
	bob := d.AddUser(d.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: reviewer})

	v := d.reviewable(t, alice)
	res := decide(d, t, alice, v, map[string]any{"decision": "approved", "revision": v["revision"]})
	assert.Equal(t, http.StatusForbidden, res.Code, "under dual control a member cannot approve their own upload")
	assert.Equal(t, "dual_control", res.ErrorCode())

	res = decide(d, t, bob, v, map[string]any{"decision": "approved", "revision": 99})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale revision")

	res = decide(d, t, bob, v, map[string]any{"decision": "approved", "revision": v["revision"]})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, documents.ReviewApproved, res.JSON["review_status"])
	assert.Equal(t, bob.User.String(), res.JSON["reviewed_by"])
	approved := res.JSON

	res = decide(d, t, bob, approved, map[string]any{"decision": "rejected", "revision": approved["revision"], "reason": "late"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "an approved version is not rejected")
	assert.Equal(t, "document_not_reviewable", res.ErrorCode())

	res = decide(d, t, bob, approved, map[string]any{"decision": "revoked", "revision": approved["revision"], "reason": "expired"})
	assert.Equal(t, http.StatusForbidden, res.Code, "revoking needs documents.revoke")

	res = decide(d, t, d.tn, approved, map[string]any{"decision": "revoked", "revision": approved["revision"]})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a revocation says why")
	assert.Contains(t, res.FieldErrors(), "reason")

	res = decide(d, t, d.tn, approved, map[string]any{"decision": "revoked", "revision": approved["revision"], "reason": "expired"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, documents.ReviewRevoked, res.JSON["review_status"])
	res = decide(d, t, d.tn, res.JSON, map[string]any{"decision": "revoked", "revision": res.JSON["revision"], "reason": "again"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "only an approved version is revoked")

	own := d.reviewable(t, d.tn)
	res = decide(d, t, d.tn, own, map[string]any{"decision": "approved", "revision": own["revision"]})
	assert.Equal(t, http.StatusOK, res.Code, "an owner may approve their own upload: %s", res.Body.String())

	rejected := d.reviewable(t, alice)
	res = decide(d, t, alice, rejected, map[string]any{"decision": "rejected", "revision": rejected["revision"], "reason": "wrong supplier"})
	require.Equal(t, http.StatusOK, res.Code, "dual control is about approving: %s", res.Body.String())
	assert.Equal(t, "wrong supplier", res.JSON["review_reason"])

	assert.Len(t, d.AuditEntries(d.tn.Org, "decideDocumentVersion"), 4)
}

func TestWithoutDualControlAMemberApprovesTheirOwnUpload(t *testing.T) {
	d := newDocs(t)
	member := d.AddUser(d.tn.Org, apitest.TenantSpec{Role: access.Member,
		Permissions: []string{string(access.DocumentsView), string(access.DocumentsUploadPerm), string(access.DocumentsApprove)}})
	v := d.reviewable(t, member)
	res := decide(d, t, member, v, map[string]any{"decision": "approved", "revision": v["revision"]})
	assert.Equal(t, http.StatusOK, res.Code, res.Body.String())
}

func TestAnalysisProposesCitedMeasurements(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	v := d.uploadDocument(t, map[string]string{"document_type": "specification_sheet", "title": "Karta", "catalog_item": item},
		"karta.pdf", fixtureFile(t, "measurements.pdf"))
	v = d.processed(t, v["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"])

	res := d.post(t, d.tn, "/document-versions/"+v["id"].(string)+"/analyze", nil)
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	assert.Equal(t, "2", res.Header().Get("Retry-After"), "whole seconds")
	assert.Equal(t, "queued", res.JSON["status"])
	assert.Equal(t, "document-version/"+v["id"].(string)+"/analysis/1", res.JSON["workflow_id"])
	queued := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string)), Token: d.tn.Token})
	require.Equal(t, http.StatusOK, queued.Code)
	assert.Equal(t, map[string]any{"run": 1.0, "status": "queued", "proposal_count": nil, "completed_at": nil}, queued.JSON["analysis"],
		"not finished reads apart from no proposals")
	assert.Equal(t, "2", queued.Header().Get("Retry-After"), "a read of a running analysis says when to poll again")

	analysed := d.analysed(t, v["id"].(string))
	var proposals []documents.EvidenceProposal
	require.NoError(t, d.DB.Where("document_version_id = ?", v["id"]).Find(&proposals).Error)
	require.NotEmpty(t, proposals)
	analysis := analysed.JSON["analysis"].(map[string]any)
	assert.Equal(t, float64(len(proposals)), analysis["proposal_count"])
	assert.NotNil(t, analysis["completed_at"])
	assert.Empty(t, analysed.Header().Get("Retry-After"), "nothing to wait for")
	assert.Contains(t, d.EventTypes(d.tn.Org), "analysis.completed")
	codes := map[string]bool{}
	for _, p := range proposals {
		codes[p.Code] = true
		var page documents.DocumentPage
		require.NoError(t, d.DB.Where("document_version_id = ? AND page = ?", v["id"], p.SourcePage).Take(&page).Error)
		assert.Contains(t, page.Text, p.SourceText, "the quotation is on the cited page")
		assert.Equal(t, "open", p.Status, "nothing is accepted automatically")
	}
	assert.True(t, codes["MASS_G"], "found: %v", codes)

	unlinked := d.uploadDocument(t, map[string]string{"document_type": "other", "title": "Unlinked"}, "u.pdf", fixtureFile(t, "measurements.pdf"))
	unlinked = d.processed(t, unlinked["id"].(string))
	res = d.post(t, d.tn, "/document-versions/"+unlinked["id"].(string)+"/analyze", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "document_not_analyzable", res.ErrorCode())
}

// A text that names nothing measurable ends its analysis with 0 proposals,
// which a client reads as an answer, not as a run still going.
func TestAnAnalysisThatFindsNothingCompletesWithNoProposals(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	v := d.uploadDocument(t, map[string]string{"document_type": "specification_sheet", "title": "Skan", "catalog_item": item},
		"skan.pdf", fixtureFile(t, "scanned.pdf"))
	v = d.processed(t, v["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"])

	for run := 1; run <= 2; run++ {
		res := d.post(t, d.tn, "/document-versions/"+v["id"].(string)+"/analyze", nil)
		require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
		analysis := d.analysed(t, v["id"].(string)).JSON["analysis"].(map[string]any)
		assert.Equal(t, float64(run), analysis["run"], "the latest run")
		assert.Equal(t, 0.0, analysis["proposal_count"])
	}
	var announced int64
	require.NoError(t, d.DB.Model(&domain.Event{}).Where("organization_id = ? AND type = ?", d.tn.Org, "analysis.completed").Count(&announced).Error)
	assert.Equal(t, int64(2), announced, "each run announced once")
}

func TestAGeneratedSpecificationSheetIsADraftWithTheItemsName(t *testing.T) {
	d := newDocs(t)
	name := "Pudełko kartonowe ŻÓŁĆ ąęśćńóźł"
	item := d.newItem(t, name)
	res := d.post(t, d.tn, "/catalog-items/"+item+"/generated-documents", map[string]any{"kind": "specification_sheet", "catalog_revision": 1, "language": "pl"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	v := d.processed(t, res.JSON["id"].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	doc := d.get(t, "/documents/"+v["document"].(string))
	assert.Equal(t, "specification_sheet", doc["generated_kind"])
	assert.Equal(t, item, doc["catalog_item"])

	download := d.Do(apitest.Req{Method: http.MethodGet, Path: d.tn.Path("/document-versions/" + v["id"].(string) + "/download"), Token: d.tn.Token})
	require.Equal(t, http.StatusOK, download.Code)
	text := pdftotext(t, download.Body.Bytes())
	assert.Contains(t, text, name)
	assert.Contains(t, text, "PROJEKT")

	res = d.post(t, d.tn, "/catalog-items/"+item+"/generated-documents", map[string]any{"kind": "declaration_of_conformity", "catalog_revision": 7})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "catalog_revision")
}

// pdftotext reads a PDF's text with poppler, an extractor independent of
// the code that wrote it.
func pdftotext(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	require.NoError(t, err, "pdftotext is missing: apt-get install poppler-utils (make test installs it)")
	cmd := exec.Command(bin, "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.Join(strings.Fields(string(out)), " ")
}
