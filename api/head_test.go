package api_test

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/internal/access"
)

// head sends r as HEAD and checks what every HEAD answer shares: no body.
func head(t *testing.T, a *apitest.API, r apitest.Req) *apitest.Response {
	t.Helper()
	r.Method, r.Undocumented = http.MethodHead, true
	res := a.Do(r)
	assert.Zero(t, res.Body.Len(), "a HEAD answer has no body: %s", res.Body)
	return res
}

// sameHeaders checks that a HEAD answered with the GET's status and the
// headers a client reads before the body.
func sameHeaders(t *testing.T, get, head *apitest.Response) {
	t.Helper()
	assert.Equal(t, get.Code, head.Code)
	for _, name := range []string{"ETag", "Content-Type", "Content-Length", "Content-Language", "WWW-Authenticate", "Location"} {
		assert.Equal(t, get.Header().Get(name), head.Header().Get(name), name)
	}
	assert.NotEmpty(t, head.Header().Get("X-Request-ID"))
}

// HEAD of a read answers what its GET answers, without the body: a
// record with its ETag, a list, the document and the probes.
func TestHeadAnswersAsTheGet(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	created := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
		Body: `{"internalCode":"HEAD-1","name":"Head","sourcingType":"purchased","massG":"1",
			"mainMaterialCode":"PAPER","stockUnit":"piece","foodContactStatus":"unknown","reuseType":"single_use"}`})
	require.Equal(t, http.StatusCreated, created.Code, created.Body.String())
	item := tn.Path("/catalog-items/" + created.JSON["id"].(string))

	for _, r := range []apitest.Req{
		{Path: item, Token: tn.Token},
		{Path: tn.Path("/catalog-items"), Token: tn.Token},
		{Path: "/openapi.json"},
		{Path: "/healthz", OutsideAPI: true},
	} {
		get := r
		get.Method, get.Undocumented = http.MethodGet, true
		g := a.Do(get)
		require.Equal(t, http.StatusOK, g.Code, r.Path)
		require.NotZero(t, g.Body.Len(), r.Path)
		sameHeaders(t, g, head(t, a, r))
	}
	res := head(t, a, apitest.Req{Path: item, Token: tn.Token})
	assert.Equal(t, kit.ETag(1), res.Header().Get("ETag"), "the record's revision")
	assert.True(t, strings.HasPrefix(res.Header().Get("Content-Type"), "application/json"))
}

// HEAD goes through the GET's pipeline: another organization's record is
// not found, and no key is 401, each without a body.
func TestHeadKeepsTheGetsRules(t *testing.T) {
	a := apitest.New(t)
	owner := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	created := a.Do(apitest.Req{Method: http.MethodPost, Path: owner.Path("/catalog-items"), Token: owner.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
		Body: `{"internalCode":"HEAD-2","name":"Head","sourcingType":"purchased","massG":"1",
			"mainMaterialCode":"PAPER","stockUnit":"piece","foodContactStatus":"unknown","reuseType":"single_use"}`})
	require.Equal(t, http.StatusCreated, created.Code, created.Body.String())
	id := created.JSON["id"].(string)

	foreign := apitest.Req{Path: other.Path("/catalog-items/" + id), Token: other.Token}
	res := head(t, a, foreign)
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's record")
	get := foreign
	get.Method = http.MethodGet
	sameHeaders(t, a.Do(get), res)

	res = head(t, a, apitest.Req{Path: owner.Path("/catalog-items/" + id)})
	assert.Equal(t, http.StatusUnauthorized, res.Code, "no key")
	assert.NotEmpty(t, res.Header().Get("WWW-Authenticate"))
}

// A download's HEAD has its length and type, and the file is not read.
func TestHeadOfADownloadReadsNothing(t *testing.T) {
	a := apitest.New(t, apitest.WithAreas(func(kit.Deps) kit.Area {
		return kit.Area{Operations: []kit.Operation{
			kit.Get("probeDownload", kit.Org+"/probe-downloads", "audit", access.CatalogRead, access.CatalogView).
				Handle(kit.Do(func(c *gin.Context) error {
					c.DataFromReader(http.StatusOK, 5, "application/pdf", unreadable{}, map[string]string{"Content-Disposition": "attachment"})
					return nil
				}), kit.Response{Status: http.StatusOK, ContentTypes: []string{"application/pdf"}, Schema: kit.Binary()}),
		}}
	}))
	tn := a.NewTenant(apitest.TenantSpec{})
	res := head(t, a, apitest.Req{Path: tn.Path("/probe-downloads"), Token: tn.Token})
	assert.Equal(t, http.StatusOK, res.Code)
	assert.Equal(t, "5", res.Header().Get("Content-Length"))
	assert.Equal(t, "application/pdf", res.Header().Get("Content-Type"))
	assert.Equal(t, "attachment", res.Header().Get("Content-Disposition"))
}

type unreadable struct{}

func (unreadable) Read([]byte) (int, error) { return 0, errors.New("a HEAD read the file") }

// A 405 lists HEAD in Allow wherever it lists GET, and nowhere else.
func TestMethodNotAllowedListsHeadWithGet(t *testing.T) {
	a := apitest.New(t)
	// Paths are grouped by route: the spec names one segment differently
	// on different operations of it.
	route := regexp.MustCompile(`\{[A-Za-z]+\}`)
	methods, sample := map[string][]string{}, map[string]*kit.Operation{}
	for i, op := range a.Server.Operations() {
		path := route.ReplaceAllString(op.Path, "{}")
		methods[path] = append(methods[path], op.Method)
		sample[path] = &a.Server.Operations()[i]
	}
	require.NotEmpty(t, methods)
	for path, ops := range methods {
		res := a.Do(apitest.Req{Method: "PROPFIND", Path: concretePath(sample[path], uuid.New()), Undocumented: true})
		require.Equal(t, http.StatusMethodNotAllowed, res.Code, path)
		allowed := strings.Split(res.Header().Get("Allow"), ", ")
		for _, m := range ops {
			assert.Contains(t, allowed, m, path)
		}
		// Allow may list a GET the path has through a route of
		// parameters (GET /bdo-reports/{id} for /bdo-reports/classifications).
		assert.Equal(t, slices.Contains(allowed, http.MethodGet), slices.Contains(allowed, http.MethodHead), "%s: %v", path, allowed)
	}
}
