package imports_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
)

// requireProgress asserts an import's progress: its stage, done and total
// (nil: unknown).
func requireProgress(t *testing.T, imp map[string]any, stage string, done float64, total any) {
	t.Helper()
	p, ok := imp["progress"].(map[string]any)
	require.True(t, ok, "the import shows its progress: %v", imp)
	assert.Equal(t, stage, p["stage"])
	assert.Equal(t, done, p["done"])
	assert.Equal(t, total, p["total"])
	assert.NotEmpty(t, p["updated_at"])
}

// requirePollAfter asserts the answer asks to read again in
// kit.PollSeconds (or, with false, that it does not ask).
func requirePollAfter(t *testing.T, res *apitest.Response, running bool) {
	t.Helper()
	if !running {
		assert.Empty(t, res.Header().Get("Retry-After"), "a job that is not running is not polled")
		return
	}
	wait, err := strconv.Atoi(res.Header().Get("Retry-After"))
	require.NoError(t, err, "Retry-After is whole seconds")
	assert.Equal(t, kit.PollSeconds, wait)
}

// An import shows its progress from the upload to the end of its apply,
// and asks to be polled while it runs: each 202 and each read of a queued
// or applying import carry Retry-After, a ready or completed one does not.
func TestImportProgressAndPolling(t *testing.T) {
	f := newFixture(t)
	const rows = 25
	var csv strings.Builder
	csv.WriteString("internalCode,name,sourcingType,massG,mainMaterialCode,stockUnit,stockTracked,foodContactStatus,reuseType\n")
	for i := range rows {
		fmt.Fprintf(&csv, "PROG-%02d,Box %d,purchased,10,PLASTIC_PET,piece,true,food_contact,single_use\n", i, i)
	}
	key := apitest.IdemKey()
	res := f.upload(t, key, "catalog", "progress.csv", []byte(csv.String()))
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	requirePollAfter(t, res, true)
	requireProgress(t, res.JSON, "queued", 0, nil)
	id := res.JSON["id"].(string)
	replayed := f.upload(t, key, "catalog", "progress.csv", []byte(csv.String()))
	assert.Equal(t, "true", replayed.Header().Get("Idempotent-Replayed"))
	requirePollAfter(t, replayed, true)

	queued := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id), Token: f.tn.Token})
	require.Equal(t, http.StatusOK, queued.Code, queued.Body.String())
	requirePollAfter(t, queued, true)

	f.startRecorded(t)
	ready := f.await(t, id, "ready", "failed")
	require.Equal(t, "ready", ready["status"], "%v", ready["error"])
	requireProgress(t, ready, "previewing", rows, float64(rows))
	read := f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id), Token: f.tn.Token})
	requirePollAfter(t, read, false)

	applying := f.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/imports/" + id + "/apply"), Token: f.tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusAccepted, applying.Code, applying.Body.String())
	requirePollAfter(t, applying, true)
	requireProgress(t, applying.JSON, "applying", 0, float64(rows))
	read = f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id), Token: f.tn.Token})
	requirePollAfter(t, read, true)

	f.startRecorded(t)
	done := f.await(t, id, "completed", "completed_with_errors")
	assert.Equal(t, "completed", done["status"])
	requireProgress(t, done, "applying", rows, float64(rows))
	read = f.Do(apitest.Req{Method: http.MethodGet, Path: f.tn.Path("/imports/" + id), Token: f.tn.Token})
	requirePollAfter(t, read, false)
}
