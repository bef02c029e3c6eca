package api_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/internal/telemetry"
)

// A request counts under its operation id and status, never its path.
func TestRequestsAreCountedByOperation(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	m, err := telemetry.NewMetrics()
	require.NoError(t, err)
	defer m.Close()
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return rec.Body.String()
	}
	sample := func(series string) float64 {
		found := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(scrape())
		if found == nil {
			return 0
		}
		v, err := strconv.ParseFloat(found[1], 64)
		require.NoError(t, err)
		return v
	}
	ok := `ppwr_http_requests_total{operation="getCatalogItem",status="200"}`
	missing := `ppwr_http_requests_total{operation="getCatalogItem",status="404"}`
	latency := `ppwr_http_request_duration_seconds_count{operation="getCatalogItem"}`
	okBefore, missingBefore, latencyBefore := sample(ok), sample(missing), sample(latency)

	created := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
		Body: `{"internalCode":"METRICS-1","name":"Metrics","sourcingType":"purchased","massG":"1",
			"mainMaterialCode":"PAPER","stockUnit":"piece","foodContactStatus":"unknown","reuseType":"single_use"}`})
	require.Equal(t, http.StatusCreated, created.Code, created.Body.String())
	item := created.JSON["id"].(string)
	res := a.Do(apitest.Req{Path: tn.Path("/catalog-items/" + item), Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	res = a.Do(apitest.Req{Path: tn.Path("/catalog-items/019a0000-0000-7000-8000-000000000000"), Token: tn.Token})
	require.Equal(t, http.StatusNotFound, res.Code, res.Body.String())

	assert.Equal(t, okBefore+1, sample(ok))
	assert.Equal(t, missingBefore+1, sample(missing))
	assert.Equal(t, latencyBefore+2, sample(latency))
	assert.NotContains(t, scrape(), item, "no series is labelled with a record's id")

	// An operation's server errors are exported before the first, so
	// rate() sees it.
	for _, series := range []string{`ppwr_http_requests_total{operation="createComponent",status="500"}`,
		`ppwr_http_requests_total{operation="listAuditLog",status="503"}`} {
		assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(series)+` \d`, scrape(), series)
	}
}
