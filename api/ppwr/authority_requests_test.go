package ppwr_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
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
	"ppwr/domain/documents"
	"ppwr/domain/records"
	"ppwr/internal/access"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
	"ppwr/worker"
	"ppwr/workflows"
)

// office is a compliance office against the real stack: the API, a
// worker of its own task queue (documents and bundles), the relay, the
// owner and a second user who reviews and publishes.
type office struct {
	*apitest.API
	tn, reviewer apitest.Tenant
	relay        *worker.Relay
}

func newOffice(t *testing.T) *office {
	t.Helper()
	clamd := testenv.Clamd(t)
	a := apitest.New(t, apitest.WithServices())
	c, queue := testenv.Temporal(t), "ppwr-authority-"+uuid.NewString()
	w := worker.New(worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue, Storage: testenv.Storage(t), ClamdAddress: clamd})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	o := &office{API: a, tn: a.NewTenant(apitest.TenantSpec{}), relay: &worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}}
	o.reviewer = a.AddUser(o.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{string(access.EvidenceReviewPerm),
		string(access.CatalogView), string(access.AssessmentsPublish), string(access.AssessmentsView)}})
	return o
}

func (o *office) send(t *testing.T, tn apitest.Tenant, method, path string, body any) *apitest.Response {
	t.Helper()
	return o.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (o *office) ok(t *testing.T, tn apitest.Tenant, status int, method, path string, body any) map[string]any {
	t.Helper()
	res := o.send(t, tn, method, path, body)
	require.Equal(t, status, res.Code, res.Body.String())
	return res.JSON
}

func (o *office) get(t *testing.T, path string) map[string]any {
	t.Helper()
	res := o.Do(apitest.Req{Method: http.MethodGet, Path: o.tn.Path(path), Token: o.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

// bundle asks for a request's bundle.
func (o *office) bundle(t *testing.T, tn apitest.Tenant, id string) *apitest.Response {
	t.Helper()
	return o.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/ppwr/authority-requests/" + id), Token: tn.Token,
		Headers: map[string]string{"Accept": "application/zip"}})
}

func jar(t *testing.T, o *office, tn apitest.Tenant) string {
	t.Helper()
	return o.ok(t, tn, http.StatusCreated, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "JAR-" + uuid.NewString()[:8],
		"name": "Słoik 500 ml", "sourcingType": "own_production", "massG": "184", "mainMaterialCode": "GLASS", "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "food_contact"})["id"].(string)
}

// approvedDocument uploads content as a document about item, has it
// processed and approves it; it answers the version's id.
func (o *office) approvedDocument(t *testing.T, item, name string, content []byte) string {
	t.Helper()
	body, contentType := apitest.Form(t, map[string]string{"document_type": "test_report", "title": "Raport z badań słoika", "catalog_item": item},
		name, content)
	res := o.Do(apitest.Req{Method: http.MethodPost, Path: o.tn.Path("/documents"), Token: o.tn.Token, Body: body,
		Headers: map[string]string{"Content-Type": contentType, "Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	_, err := o.relay.StartWorkflows(t.Context())
	require.NoError(t, err)
	var v map[string]any
	require.Eventually(t, func() bool {
		v = o.get(t, "/document-versions/"+id)
		return v["processing_status"] != documents.ProcessingQueued && v["processing_status"] != documents.ProcessingRunning
	}, time.Minute, 100*time.Millisecond)
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	o.ok(t, o.tn, http.StatusOK, http.MethodPost, "/document-versions/"+id+"/decision", map[string]any{"decision": "approved", "revision": v["revision"]})
	return id
}

// entry records an entry of a register about item, accepted by the
// reviewer when accept says so; it answers the entry's id.
func (o *office) entry(t *testing.T, item, register string, values map[string]any, accept bool) string {
	t.Helper()
	revision := o.get(t, "/catalog-items/"+item)["revision"]
	path := "/catalog-items/" + item + "/ppwr/" + register
	id := o.ok(t, o.tn, http.StatusCreated, http.MethodPost, path, map[string]any{"catalog_revision": revision, "method": "test_method",
		"values": values})["id"].(string)
	if accept {
		o.ok(t, o.reviewer, http.StatusOK, http.MethodPost, path+"/"+id+"/review", map[string]any{"decision": "accepted", "reason": "Sprawdzone", "revision": 1})
	}
	return id
}

// A request names the authority and items; its workflow files each item's
// technical documentation into a ZIP whose manifest lists every file with
// a digest that matches its bytes, served by the same read with Accept:
// application/zip.
func TestAnAuthorityRequestIsAnsweredWithTheItemsDocumentation(t *testing.T) {
	o := newOffice(t)
	item := jar(t, o, o.tn)
	pdf, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "documents", "measurements.pdf"))
	require.NoError(t, err)
	version := o.approvedDocument(t, item, "raport.pdf", pdf)
	classification := o.entry(t, item, "packaging-classification", map[string]any{"packaging_function": "sales", "is_packaging": true,
		"reuse_type": "single_use", "contact_sensitive": true, "contact_sensitive_basis": "food_contact", "food_contact": true,
		"annex_ii_category": 1, "predominant_material": "glass", "composite": false}, true)
	unreviewed := o.entry(t, item, "recyclability", map[string]any{"annex_ii_category": 1, "dfr_score": map[string]any{"value": "85", "unit": "%"}}, false)
	declaration := o.entry(t, item, "eu-declarations", map[string]any{"declaration_number": "DoC-2026-001",
		"packaging_identification": "Słoik 500 ml", "manufacturer": "Huta Szkła S.A., ul. Szklana 1, Kraków",
		"sole_responsibility_statement": true, "object_description": "Słoik szklany 500 ml", "union_legislation": "Regulation (EU) 2025/40",
		"languages": "pl", "signature_status": "unsigned", "placed_on_market_on": "2026-09-01"}, false)
	assessment := o.ok(t, o.tn, http.StatusCreated, http.MethodPost, "/assessments", map[string]any{"item": item})["id"].(string)
	o.ok(t, o.reviewer, http.StatusOK, http.MethodPost, "/assessments/"+assessment+"/review",
		map[string]any{"decision": "published", "reason": "Dane kompletne", "revision": 1})

	received := time.Now().UTC().AddDate(0, 0, -2).Format(time.DateOnly)
	res := o.send(t, o.tn, http.MethodPost, "/ppwr/authority-requests", map[string]any{
		"authority":           map[string]any{"name": "Wojewódzki Inspektorat Ochrony Środowiska w Krakowie", "country": "PL"},
		"authority_reference": "WI.7021.15.2026", "items": []string{item}, "received_on": received,
		"subject": "Dokumentacja techniczna słoików 500 ml"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), res.Header().Get("Retry-After"), "a request whose bundle starts building is polled from its create")
	r := res.JSON
	id := r["id"].(string)
	assert.Contains(t, res.Header().Get("Location"), "/ppwr/authority-requests/"+id)
	assert.Equal(t, time.Now().UTC().AddDate(0, 0, 8).Format(time.DateOnly), r["due_on"], "due 10 days after receipt")
	assert.Equal(t, records.DeadlineOpen, r["deadline_status"])
	assert.Equal(t, records.BundleBuilding, r["bundle"].(map[string]any)["status"])
	assert.Equal(t, map[string]any{"name": "Wojewódzki Inspektorat Ochrony Środowiska w Krakowie", "country": "PL"}, r["authority"])

	res = o.bundle(t, o.tn, id)
	require.Equal(t, http.StatusConflict, res.Code, "the bundle is not built yet")
	assert.Equal(t, "file_not_ready", res.ErrorCode())
	assert.Equal(t, "5", res.Header().Get("Retry-After"))
	building := o.Do(apitest.Req{Method: http.MethodGet, Path: o.tn.Path("/ppwr/authority-requests/" + id), Token: o.tn.Token})
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), building.Header().Get("Retry-After"), "a bundle being built is polled")
	assert.Equal(t, "queued", building.JSON["bundle"].(map[string]any)["progress"].(map[string]any)["stage"])

	_, err = o.relay.StartWorkflows(t.Context())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return o.get(t, "/ppwr/authority-requests/"+id)["bundle"].(map[string]any)["status"] != records.BundleBuilding
	}, time.Minute, 100*time.Millisecond)
	read := o.Do(apitest.Req{Method: http.MethodGet, Path: o.tn.Path("/ppwr/authority-requests/" + id), Token: o.tn.Token})
	assert.Empty(t, read.Header().Get("Retry-After"), "a built bundle is not polled")
	r = read.JSON
	built := r["bundle"].(map[string]any)
	require.Equal(t, records.BundleReady, built["status"], "%v", built["error"])
	progress := built["progress"].(map[string]any)
	assert.Equal(t, []any{"collecting", 1.0, 1.0}, []any{progress["stage"], progress["done"], progress["total"]}, "its one item collected")

	res = o.bundle(t, o.tn, id)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	raw := res.Body.Bytes()
	assert.Equal(t, "application/zip", res.Header().Get("Content-Type"))
	assert.Contains(t, res.Header().Get("Content-Disposition"), "authority-request-"+id+".zip")
	sum := sha256.Sum256(raw)
	assert.Equal(t, hex.EncodeToString(sum[:]), built["sha256"], "the record's digest is the ZIP's")
	assert.Equal(t, built["sha256"], res.Header().Get("X-Checksum-SHA256"))
	assert.EqualValues(t, len(raw), built["size_bytes"])

	archive, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, f := range archive.File {
		rc, err := f.Open()
		require.NoError(t, err)
		content, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		files[f.Name] = content
	}
	var manifest struct {
		Request   string `json:"authority_request"`
		Reference string `json:"authority_reference"`
		DueOn     string `json:"due_on"`
		Statement string `json:"statement"`
		Items     []struct {
			ID string `json:"id"`
		} `json:"items"`
		Files []struct {
			Path      string `json:"path"`
			Kind      string `json:"kind"`
			Source    string `json:"source_id"`
			SizeBytes int    `json:"size_bytes"`
			SHA256    string `json:"sha256"`
		} `json:"files"`
	}
	require.Contains(t, files, "manifest.json")
	require.NoError(t, json.Unmarshal(files["manifest.json"], &manifest))
	assert.Equal(t, id, manifest.Request)
	assert.Equal(t, "WI.7021.15.2026", manifest.Reference)
	assert.Equal(t, r["due_on"], manifest.DueOn)
	assert.Contains(t, manifest.Statement, "no decision of the authority")
	require.Len(t, manifest.Items, 1)
	assert.Equal(t, item, manifest.Items[0].ID)

	assert.Len(t, manifest.Files, len(files)-1, "the manifest lists every file but itself")
	bySource := map[string]string{}
	for _, f := range manifest.Files {
		content, ok := files[f.Path]
		require.True(t, ok, "%s is in the ZIP", f.Path)
		digest := sha256.Sum256(content)
		assert.Equal(t, hex.EncodeToString(digest[:]), f.SHA256, "the digest of %s is its bytes'", f.Path)
		assert.Equal(t, len(content), f.SizeBytes, f.Path)
		bySource[f.Source] = f.Kind
		if f.Source == version {
			assert.Equal(t, pdf, content, "the document's bytes are the uploaded ones")
		}
	}
	assert.Equal(t, map[string]string{version: "document_version", classification: "register_entry", assessment: "assessment",
		declaration: "eu_declaration"}, bySource, "an unreviewed entry (%s) is no accepted documentation", unreviewed)
	for _, f := range manifest.Files {
		if f.Source == classification {
			var e map[string]any
			require.NoError(t, json.Unmarshal(files[f.Path], &e))
			assert.Equal(t, "accepted", e["review_status"])
			assert.Equal(t, "glass", e["values"].(map[string]any)["predominant_material"])
		}
	}

	assert.Contains(t, o.EventTypes(o.tn.Org), "authority_request.created")
	assert.Contains(t, o.EventTypes(o.tn.Org), "authority_request.bundle_ready")
	assert.Len(t, o.AuditEntries(o.tn.Org, "createAuthorityRequest"), 1)
	assert.NotEmpty(t, o.AuditEntries(o.tn.Org, "buildAuthorityRequestBundle"))

	other := o.NewTenant(apitest.TenantSpec{})
	res = o.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/ppwr/authority-requests/" + id), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's request")
	assert.Equal(t, http.StatusNotFound, o.bundle(t, other, id).Code, "nor its bundle")
}

// Several workers relay starts at once, so a request's answer can be
// started before the request's own run: one relay holds the run's row,
// slow to start it, while another takes the answer's, recorded later. The
// answer's signal then finds no run to stop, and the run, once it has
// built the bundle, ends answered all the same instead of waiting for the
// reminder.
func TestAnAnswerStartedBeforeTheRequestsRunStillEndsIt(t *testing.T) {
	o := newOffice(t)
	item := jar(t, o, o.tn)
	id := o.ok(t, o.tn, http.StatusCreated, http.MethodPost, "/ppwr/authority-requests", map[string]any{
		"authority": map[string]any{"name": "WIOŚ Kraków", "country": "PL"}, "authority_reference": "WI.7021.16.2026",
		"items": []string{item}, "received_on": domain.Today().Format(time.DateOnly)})["id"].(string)
	_, err := records.OperatorMarkAnswered(t.Context(), o.DB, o.tn.Org, uuid.MustParse(id), time.Time{})
	require.NoError(t, err)

	runID := "authority-request/" + id
	apitest.StartEndFirst(t, o.relay, runID, runID+"/answered")
	apitest.RequireOutcome(t, o.relay.Temporal, runID, workflows.OutcomeAnswered, nil)
	assert.Equal(t, records.BundleReady, o.get(t, "/ppwr/authority-requests/"+id)["bundle"].(map[string]any)["status"],
		"the bundle is built all the same")
}

// The record and its refusals need no worker: the workflow start is only
// recorded.
func TestAuthorityRequestsRefuseWhatNoAuthorityRequestIs(t *testing.T) {
	a := apitest.New(t)
	o := &office{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	other := a.NewTenant(apitest.TenantSpec{})
	mine, theirs := jar(t, o, o.tn), jar(t, o, other)
	today := time.Now().UTC()
	valid := func() map[string]any {
		return map[string]any{"authority": map[string]any{"name": "WIOŚ Kraków", "country": "PL"}, "authority_reference": "WI.1",
			"items": []string{mine}, "received_on": today.Format(time.DateOnly)}
	}
	with := func(k string, v any) map[string]any { b := valid(); b[k] = v; return b }
	without := func(k string) map[string]any { b := valid(); delete(b, k); return b }
	for field, body := range map[string]map[string]any{
		"items.1":               with("items", []string{mine, theirs}),
		"received_on":           with("received_on", today.AddDate(0, 0, 1).Format(time.DateOnly)),
		"authority":             without("authority"),
		"authority.country":     with("authority", map[string]any{"name": "Mattilsynet", "country": "NO"}),
		"authority.name":        with("authority", map[string]any{"country": "DE"}),
		"authority_reference":   without("authority_reference"),
		"items":                 with("items", []string{}),
		"answered_on":           with("answered_on", today.AddDate(0, 0, -1).Format(time.DateOnly)),
		"answered_on (future)":  with("answered_on", today.AddDate(0, 0, 1).Format(time.DateOnly)),
		"received_on (missing)": without("received_on"),
	} {
		res := o.send(t, o.tn, http.MethodPost, "/ppwr/authority-requests", body)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", field, res.Body.String())
		name, _, _ := bytes.Cut([]byte(field), []byte(" "))
		assert.Contains(t, res.FieldErrors(), string(name), "%s: %s", field, res.Body.String())
	}
	var n int64
	require.NoError(t, a.DB.Model(&records.AuthorityRequest{}).Where("organization_id = ?", o.tn.Org).Count(&n).Error)
	assert.Zero(t, n, "a refused request records nothing")

	received := today.AddDate(0, 0, -20).Format(time.DateOnly)
	answered := today.AddDate(0, 0, -5).Format(time.DateOnly)
	b := with("received_on", received)
	b["answered_on"] = answered
	r := o.ok(t, o.tn, http.StatusCreated, http.MethodPost, "/ppwr/authority-requests", b)
	assert.Equal(t, answered, r["answered_on"])
	assert.Equal(t, records.DeadlineAnsweredLate, r["deadline_status"], "answered 15 days after receipt")
	var start domain.WorkflowStart
	require.NoError(t, a.DB.Take(&start, "workflow_id = ?", "authority-request/"+r["id"].(string)).Error)
	assert.Equal(t, records.AuthorityRequestWorkflow.Type, start.WorkflowType)
	var in records.AuthorityRequestInput
	require.NoError(t, json.Unmarshal(start.Input, &in))
	assert.True(t, in.Answered, "a request recorded as answered starts no reminder")

	late := o.ok(t, o.tn, http.StatusCreated, http.MethodPost, "/ppwr/authority-requests", with("received_on", received))
	assert.Equal(t, records.DeadlineOverdue, late["deadline_status"])
	assert.Nil(t, late["answered_on"])

	// The workflow gave up building the bundle (as FailAuthorityBundle records it).
	w := work.New(t.Context(), a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: o.tn.Org, Reference: "test"})
	lateID := uuid.MustParse(late["id"].(string))
	require.NoError(t, records.FinishAuthorityBundle(w, lateID, "", 0, "", errors.New("object store unavailable")))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.fail"}))
	failed := o.get(t, "/ppwr/authority-requests/"+late["id"].(string))["bundle"].(map[string]any)
	assert.Equal(t, records.BundleFailed, failed["status"])
	assert.Equal(t, "object store unavailable", failed["error"])
	assert.Nil(t, failed["sha256"])
	res := o.bundle(t, o.tn, late["id"].(string))
	assert.Equal(t, http.StatusConflict, res.Code, "a failed bundle is no file")
	assert.Contains(t, o.EventTypes(o.tn.Org), "authority_request.bundle_failed")
	w = work.New(t.Context(), a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: o.tn.Org, Reference: "test"})
	require.NoError(t, records.FinishAuthorityBundle(w, lateID, "key", 1, strings.Repeat("0", 64), nil))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.late"}))
	assert.Equal(t, records.BundleFailed, o.get(t, "/ppwr/authority-requests/"+late["id"].(string))["bundle"].(map[string]any)["status"],
		"a finished bundle is not finished again by a retried activity")

	res = o.Do(apitest.Req{Method: http.MethodGet, Path: o.tn.Path("/ppwr/authority-requests/" + late["id"].(string)), Token: o.tn.Token,
		Headers: map[string]string{"Accept": "*/*"}})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Equal(t, late["id"], res.JSON["id"], "any type is the record")
	res = o.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/ppwr/authority-requests/" + late["id"].(string)), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
}
