package worker_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/health"
	"ppwr/internal/smtpsink"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// readyz asks the worker's readiness.
func readyz(t *testing.T, checks health.Checks) (int, health.Report) {
	t.Helper()
	rec := httptest.NewRecorder()
	health.Handler(checks).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var report health.Report
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &report))
	return rec.Code, report
}

func TestWorkerReadinessNamesAFrozenDependency(t *testing.T) {
	sink, err := smtpsink.Start("127.0.0.1:0", t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = sink.Close() })
	clamd := testenv.Clamd(t)
	checks := worker.Readiness(worker.Deps{
		DB: testenv.DB(t), Temporal: testenv.Temporal(t), Storage: testenv.Storage(t),
		ClamdAddress: clamd, SMTPURL: "smtp://" + sink.Addr(),
	})

	status, report := readyz(t, checks)
	require.Equal(t, http.StatusOK, status, "%+v", report)
	assert.Equal(t, map[string]string{"postgres": "ok", "temporal": "ok", "s3": "ok", "clamd": "ok", "smtp": "ok"}, report.Checks)

	for name, freeze := range map[string]func() func(){
		"clamd":    func() func() { return testenv.FreezeClamd(t, clamd) },
		"s3":       func() func() { return testenv.FreezeS3(t) },
		"temporal": func() func() { return testenv.FreezeTemporal(t) },
	} {
		thaw := freeze()
		status, report = readyz(t, checks)
		thaw()
		assert.Equal(t, http.StatusServiceUnavailable, status, name)
		assert.Equal(t, "unavailable", report.Status, name)
		for dep, result := range report.Checks {
			if dep == name {
				assert.NotEqual(t, "ok", result, "%s is named", name)
			} else {
				assert.Equal(t, "ok", result, "%s frozen, %s still answers", name, dep)
			}
		}
		status, report = readyz(t, checks)
		assert.Equal(t, http.StatusOK, status, "%s thawed: %+v", name, report)
	}
}
