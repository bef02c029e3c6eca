package passports_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/documents"
	"ppwr/domain/passports"
	"ppwr/internal/access"
	"ppwr/internal/canonjson"
	"ppwr/internal/storage"
	"ppwr/internal/testenv"
)

// desk is an owner of an item with a reviewer of its register entries, a
// partner to share with and a stranger who is never granted anything.
type desk struct {
	*apitest.API
	store             *storage.Store
	owner, reviewer   apitest.Tenant
	partner, stranger apitest.Tenant
	item              string
}

func newDesk(t *testing.T) *desk {
	a := apitest.New(t, apitest.WithStorage())
	d := &desk{API: a, store: testenv.Storage(t), owner: a.NewTenant(apitest.TenantSpec{}),
		partner: a.NewTenant(apitest.TenantSpec{}), stranger: a.NewTenant(apitest.TenantSpec{})}
	d.reviewer = a.AddUser(d.owner.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{
		string(access.EvidenceReviewPerm), string(access.CatalogView), string(access.AssessmentsPublish), string(access.AssessmentsView)}})
	d.item = d.newItem(t, d.owner)
	return d
}

// newItem is a carton whose name needs escaping in HTML, so the answer's
// JSON spells it differently from the canonical document.
func (d *desk) newItem(t *testing.T, tn apitest.Tenant) string {
	return d.ok(t, tn, http.StatusCreated, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "P-" + uuid.NewString()[:8],
		"name": "Karton <A&B> „żółty”", "sourcingType": "purchased", "massG": "120.5", "mainMaterialCode": "PAPER_CARDBOARD",
		"stockUnit": "piece", "reuseType": "single_use", "foodContactStatus": "not_food_contact"})["id"].(string)
}

func (d *desk) send(t *testing.T, tn apitest.Tenant, method, path string, body any, headers ...string) *apitest.Response {
	t.Helper()
	h := map[string]string{}
	if method != http.MethodGet {
		h["Idempotency-Key"] = apitest.IdemKey()
	}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return d.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body, Headers: h})
}

func (d *desk) ok(t *testing.T, tn apitest.Tenant, status int, method, path string, body any) map[string]any {
	t.Helper()
	res := d.send(t, tn, method, path, body)
	require.Equal(t, status, res.Code, res.Body.String())
	return res.JSON
}

func (d *desk) revision(t *testing.T) int {
	return int(d.ok(t, d.owner, http.StatusOK, http.MethodGet, "/catalog-items/"+d.item, nil)["revision"].(float64))
}

// accepted records an entry of the register about the item and has the
// reviewer accept it.
func (d *desk) accepted(t *testing.T, register string, values map[string]any) string {
	t.Helper()
	path := "/catalog-items/" + d.item + "/ppwr/" + register
	id := d.ok(t, d.owner, http.StatusCreated, http.MethodPost, path, map[string]any{"catalog_revision": d.revision(t),
		"method": "declared_by_supplier", "values": values})["id"].(string)
	d.ok(t, d.reviewer, http.StatusOK, http.MethodPost, path+"/"+id+"/review", map[string]any{"decision": "accepted", "reason": "Sprawdzone", "revision": 1})
	return id
}

var declaration = map[string]any{"declaration_number": "DoC-7", "packaging_identification": "Karton",
	"manufacturer": "Tektura S.A.", "sole_responsibility_statement": true, "object_description": "Karton klapowy",
	"union_legislation": "Regulation (EU) 2025/40", "languages": "pl", "signature_status": "unsigned", "placed_on_market_on": "2026-09-01"}

func (d *desk) createPassport(t *testing.T) map[string]any {
	return d.ok(t, d.owner, http.StatusCreated, http.MethodPost, "/passports", map[string]any{"catalog_item": d.item, "catalog_revision": d.revision(t)})
}

func (d *desk) publish(t *testing.T, passport string, revision int) map[string]any {
	return d.ok(t, d.owner, http.StatusOK, http.MethodPost, "/passports/"+passport+"/publish", map[string]any{"revision": revision})
}

// stored reads a version's document from the object store.
func (d *desk) stored(t *testing.T, passport string, version int) []byte {
	t.Helper()
	obj, err := d.store.Get(t.Context(), passports.PassportObjectKey(d.owner.Org, uuid.MustParse(passport), version))
	require.NoError(t, err)
	defer obj.Body.Close()
	raw, err := io.ReadAll(obj.Body)
	require.NoError(t, err)
	return raw
}

func digest(raw []byte) string { sum := sha256.Sum256(raw); return hex.EncodeToString(sum[:]) }

// canonical is a reader's check: the document as parsed from the
// answer, canonicalized again, hashes to the digest given beside it.
func canonical(t *testing.T, document any) []byte {
	t.Helper()
	raw, err := canonjson.Marshal(document)
	require.NoError(t, err)
	return raw
}

// pythonDigest is the README's recipe, run by a reader independent of
// this service's Go code: Python's json with sorted keys, no white space
// and unescaped UTF-8.
func pythonDigest(t *testing.T, document any) string {
	t.Helper()
	raw, err := json.Marshal(document)
	require.NoError(t, err)
	script := `import sys, json, hashlib
doc = json.load(sys.stdin)
print(hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest())`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func (d *desk) grants(t *testing.T, tn apitest.Tenant, query string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, g := range d.ok(t, tn, http.StatusOK, http.MethodGet, "/sharing-grants"+query, nil)["data"].([]any) {
		out = append(out, g.(map[string]any))
	}
	return out
}

func TestAPassportIsPublishedInVersionsSharedReadVerifiedAndRevoked(t *testing.T) {
	d := newDesk(t)
	formats := d.accepted(t, "restricted-formats", map[string]any{"plastic": false, "single_use": true, "use_context": "none"})

	draft := d.createPassport(t)
	passport := draft["id"].(string)
	assert.Equal(t, "draft", draft["status"])
	assert.EqualValues(t, 1, draft["revision"])
	assert.Nil(t, draft["latest_version"])
	assert.EqualValues(t, 0, draft["version_count"])

	first := d.publish(t, passport, 1)
	assert.Equal(t, "published", first["status"])
	assert.EqualValues(t, 2, first["revision"])
	v1 := first["latest_version"].(map[string]any)
	assert.EqualValues(t, 1, v1["version"])
	assert.Equal(t, []any{"published_assessment", "eu_declaration"}, v1["missing"], "nothing assessed or declared yet, and it says so")
	raw := d.stored(t, passport, 1)
	assert.Equal(t, digest(raw), v1["sha256"], "the digest is the SHA-256 of the stored bytes")
	assert.EqualValues(t, len(raw), v1["size_bytes"])
	assert.Equal(t, raw, canonical(t, v1["document"]), "the answer's document canonicalizes to the stored bytes")
	assert.NotContains(t, string(raw), `\u003c`, "canonical strings are not HTML-escaped")
	assert.NotContains(t, string(raw), "\n", "no insignificant white space")

	doc := v1["document"].(map[string]any)
	versions := d.ok(t, d.owner, http.StatusOK, http.MethodGet, "/catalog-items/"+d.item+"/data-versions", nil)["data"].([]any)
	current := versions[len(versions)-1].(map[string]any)
	item := doc["item"].(map[string]any)
	assert.Equal(t, d.item, item["id"])
	assert.Equal(t, current["id"], item["data_version"].(map[string]any)["id"], "the document names the item's current data version")
	assert.Equal(t, current["hash"], item["data_version"].(map[string]any)["sha256"])
	assert.Equal(t, "Karton <A&B> „żółty”", item["data_version"].(map[string]any)["specifications"].(map[string]any)["name"])
	entries := doc["register_entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, formats, entries[0].(map[string]any)["id"], "the document names the accepted entry")
	assert.Equal(t, "accepted", entries[0].(map[string]any)["review_status"])
	assert.Nil(t, doc["eu_declaration"])
	assert.Nil(t, doc["assessment"])
	assert.Equal(t, "ppwr-passport/1", doc["format"])
	assert.Equal(t, d.owner.Org.String(), doc["organization"].(map[string]any)["id"])

	declared := d.accepted(t, "eu-declarations", declaration)
	proof := d.StoredVersion(d.owner.Org, documents.ReviewApproved)
	link := d.ok(t, d.owner, http.StatusCreated, http.MethodPost, "/catalog-items/"+d.item+"/traceability",
		map[string]any{"link_type": "declaration_of_conformity", "version": proof, "revision": d.revision(t)})
	assessment := d.ok(t, d.owner, http.StatusCreated, http.MethodPost, "/assessments", map[string]any{"item": d.item})["id"].(string)
	d.ok(t, d.reviewer, http.StatusOK, http.MethodPost, "/assessments/"+assessment+"/review",
		map[string]any{"decision": "published", "reason": "Kompletne", "revision": 1})
	res := d.send(t, d.owner, http.MethodPost, "/passports/"+passport+"/publish", map[string]any{"revision": 1})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale revision publishes nothing")
	assert.Equal(t, "revision_conflict", res.ErrorCode())
	second := d.publish(t, passport, 2)
	v2 := second["latest_version"].(map[string]any)
	assert.EqualValues(t, 2, v2["version"], "publishing again makes version 2")
	assert.EqualValues(t, 2, second["version_count"])
	assert.Equal(t, []any{}, v2["missing"], "the declaration and the published assessment are in")
	doc = v2["document"].(map[string]any)
	assert.Equal(t, declared, doc["eu_declaration"].(map[string]any)["id"])
	assert.Len(t, doc["register_entries"], 2)
	assert.Equal(t, assessment, doc["assessment"].(map[string]any)["id"])
	assert.Equal(t, false, doc["assessment"].(map[string]any)["stale"])
	documents := doc["evidence"].(map[string]any)["approved_documents"].([]any)
	require.Len(t, documents, 1)
	assert.Equal(t, link["id"], documents[0].(map[string]any)["link"])
	assert.Equal(t, proof, documents[0].(map[string]any)["document_version"])
	assert.Equal(t, strings.Repeat("0", 64), documents[0].(map[string]any)["sha256"], "the document's own file digest is cited")
	assert.Equal(t, digest(d.stored(t, passport, 2)), v2["sha256"])
	assert.Equal(t, raw, d.stored(t, passport, 1), "version 1 stays as published")
	assert.NotEqual(t, v1["sha256"], v2["sha256"])

	grant := d.ok(t, d.owner, http.StatusCreated, http.MethodPost, "/passports/"+passport+"/shares",
		map[string]any{"organization": d.partner.Org, "note": "Dla klienta"})
	assert.Equal(t, "given", grant["direction"])
	assert.Equal(t, "active", grant["status"])
	assert.Equal(t, d.partner.Org.String(), grant["organization"])
	assert.Nil(t, grant["content"])
	grantPath := "/sharing-grants/" + grant["id"].(string) + "/revoke"

	received := d.grants(t, d.partner, "")
	require.Len(t, received, 1)
	assert.Equal(t, "received", received[0]["direction"])
	assert.Equal(t, d.owner.Org.String(), received[0]["granting_organization"])
	content := received[0]["content"].(map[string]any)
	assert.EqualValues(t, 2, content["version"], "the grantee reads the latest version")
	assert.Equal(t, true, content["verified"])
	assert.Equal(t, v2["sha256"], content["sha256"])
	assert.Equal(t, content["sha256"], digest(canonical(t, content["document"])), "the grantee verifies the digest itself")
	assert.Equal(t, content["sha256"], pythonDigest(t, content["document"]), "with the README's recipe too")
	assert.Empty(t, d.grants(t, d.partner, "?direction=given"))
	given := d.grants(t, d.owner, "?direction=given")
	require.Len(t, given, 1)
	assert.Nil(t, given[0]["content"], "the granting organization reads no content through its grants")
	assert.Empty(t, d.grants(t, d.owner, "?direction=received"))

	// Altered bytes in the store are caught on the next read.
	key := passports.PassportObjectKey(d.owner.Org, uuid.MustParse(passport), 2)
	require.NoError(t, d.store.Put(t.Context(), key, strings.NewReader(strings.Replace(string(d.stored(t, passport, 2)), "DoC-7", "DoC-8", 1)), "application/json"))
	tampered := d.grants(t, d.partner, "")[0]["content"].(map[string]any)
	assert.Equal(t, false, tampered["verified"])
	assert.Nil(t, tampered["document"])
	require.NoError(t, d.store.Put(t.Context(), key, strings.NewReader(string(canonical(t, v2["document"]))), "application/json"))
	assert.Equal(t, true, d.grants(t, d.partner, "")[0]["content"].(map[string]any)["verified"])

	// Nobody else sees the passport: 404 on all of its paths.
	assert.Empty(t, d.grants(t, d.stranger, ""))
	for _, tn := range []apitest.Tenant{d.stranger, d.partner} {
		for path, body := range map[string]any{
			"/passports/" + passport + "/publish": map[string]any{"revision": 3},
			"/passports/" + passport + "/shares":  map[string]any{"organization": d.stranger.Org},
			grantPath:                             map[string]any{"revision": 1},
		} {
			res := d.send(t, tn, http.MethodPost, path, body)
			assert.Equal(t, http.StatusNotFound, res.Code, "%s %s", tn.Org, path)
		}
	}

	res = d.send(t, d.owner, http.MethodPost, "/passports/"+passport+"/shares", map[string]any{"organization": d.partner.Org})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "one active grant per organization, so one revocation ends access")
	assert.Equal(t, "passport_already_shared", res.ErrorCode())
	assert.Contains(t, res.FieldErrors()["organization"].([]any)[0], grant["id"])

	revoked := d.ok(t, d.owner, http.StatusOK, http.MethodPost, grantPath, map[string]any{"revision": 1, "reason": "Koniec współpracy"})
	assert.Equal(t, "revoked", revoked["status"])
	assert.NotNil(t, revoked["revoked_at"])
	assert.EqualValues(t, 2, revoked["revision"])
	res = d.send(t, d.owner, http.MethodPost, grantPath, map[string]any{"revision": 2})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "sharing_grant_revoked", res.ErrorCode())
	after := d.grants(t, d.partner, "")
	require.Len(t, after, 1)
	assert.Equal(t, "revoked", after[0]["status"])
	assert.Nil(t, after[0]["content"], "access stops at once")
	assert.Empty(t, d.grants(t, d.partner, "?status=active"))

	again := d.ok(t, d.owner, http.StatusCreated, http.MethodPost, "/passports/"+passport+"/shares",
		map[string]any{"organization": d.partner.Org, "expires_on": time.Now().UTC().Format(time.DateOnly)})
	assert.Equal(t, "active", again["status"], "a grant is valid through its expires_on day")
	require.NoError(t, d.DB.Model(&passports.SharingGrant{}).Where("id = ?", again["id"]).
		Update("expires_on", time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)).Error)
	expired := d.grants(t, d.partner, "?status=expired")
	require.Len(t, expired, 1)
	assert.Equal(t, again["id"], expired[0]["id"])
	assert.Nil(t, expired[0]["content"], "an expired grant shows nothing")
	page := d.ok(t, d.partner, http.StatusOK, http.MethodGet, "/sharing-grants?per_page=1", nil)
	require.NotNil(t, page["links"].(map[string]any)["next"], "two grants on pages of one")

	assert.Subset(t, d.EventTypes(d.owner.Org), []string{"passport.created", "passport.published", "passport.shared", "sharing_grant.revoked"})
	assert.Equal(t, []string{"sharing_grant.received", "sharing_grant.revoked", "sharing_grant.received"}, d.EventTypes(d.partner.Org),
		"the grantee hears of what it receives and loses")
	assert.Empty(t, d.EventTypes(d.stranger.Org))
	audit := d.AuditEntries(d.owner.Org, "sharePassport")
	require.Len(t, audit, 2)
	assert.Equal(t, "sharing_grant", audit[0].RecordType)
}

func TestPassportRequestsAreCheckedFieldByField(t *testing.T) {
	d := newDesk(t)
	refuse := func(tn apitest.Tenant, path string, body map[string]any, field string) *apitest.Response {
		t.Helper()
		res := d.send(t, tn, http.MethodPost, path, body)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		if field != "" {
			assert.Contains(t, res.FieldErrors(), field, res.Body.String())
		}
		return res
	}
	refuse(d.owner, "/passports", map[string]any{"catalog_item": uuid.NewString(), "catalog_revision": 1}, "catalog_item")
	foreign := d.newItem(t, d.partner)
	res := refuse(d.owner, "/passports", map[string]any{"catalog_item": foreign, "catalog_revision": 1}, "catalog_item")
	assert.Equal(t, []any{"does not refer to an existing record of this organization"}, res.FieldErrors()["catalog_item"], "another organization's item is unknown here")
	refuse(d.owner, "/passports", map[string]any{"catalog_item": d.item}, "catalog_revision")
	res = d.send(t, d.owner, http.MethodPost, "/passports", map[string]any{"catalog_item": d.item, "catalog_revision": d.revision(t) + 1})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale item revision")

	passport := d.createPassport(t)["id"].(string)
	res = refuse(d.owner, "/passports", map[string]any{"catalog_item": d.item, "catalog_revision": d.revision(t)}, "catalog_item")
	assert.Equal(t, "passport_exists", res.ErrorCode())
	assert.Contains(t, res.FieldErrors()["catalog_item"].([]any)[0], passport, "the answer names the item's passport")

	shares := "/passports/" + passport + "/shares"
	res = refuse(d.owner, shares, map[string]any{"organization": d.partner.Org}, "")
	assert.Equal(t, "passport_not_published", res.ErrorCode(), "a draft is not shared")

	res = d.send(t, d.owner, http.MethodPost, "/passports/"+passport+"/publish", map[string]any{"revision": 1, "catalog_revision": d.revision(t) + 1})
	assert.Equal(t, http.StatusConflict, res.Code, "the item moved on since the publisher's review")
	d.publish(t, passport, 1)
	refuse(d.owner, shares, map[string]any{"organization": d.owner.Org}, "organization")
	refuse(d.owner, shares, map[string]any{"organization": uuid.NewString()}, "organization")
	refuse(d.owner, shares, map[string]any{"organization": d.partner.Org, "expires_on": "2020-01-01"}, "expires_on")
	refuse(d.owner, shares, map[string]any{"organization": d.partner.Org, "expires_on": "jutro"}, "expires_on")
	refuse(d.owner, shares, map[string]any{}, "organization")
	res = d.send(t, d.owner, http.MethodPost, shares, map[string]any{"organization": d.owner.Org}, "X-Locale", "pl")
	assert.Equal(t, []any{"musi wskazywać inną organizację niż udostępniająca"}, res.FieldErrors()["organization"])
	res = d.send(t, d.owner, http.MethodPost, "/passports/"+uuid.NewString()+"/shares", map[string]any{"organization": d.partner.Org})
	assert.Equal(t, http.StatusNotFound, res.Code)
	res = d.send(t, d.owner, http.MethodGet, "/sharing-grants?direction=sideways", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Empty(t, d.grants(t, d.owner, ""), "nothing was shared")
}
