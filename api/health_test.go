package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"ppwr/api/apitest"
	"ppwr/internal/storage"
	"ppwr/internal/testenv"
)

func TestHealthAndReadiness(t *testing.T) {
	a := apitest.New(t, apitest.WithServices())
	s, cfg := a.Server, testenv.Config(t)

	assert.Equal(t, http.StatusOK, a.Do(apitest.Req{Method: http.MethodGet, Path: "/healthz", OutsideAPI: true, Undocumented: true}).Code)
	res := a.Do(apitest.Req{Method: http.MethodGet, Path: "/readyz", OutsideAPI: true, Undocumented: true})
	assert.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, map[string]any{"postgres": "ok", "temporal": "ok", "s3": "ok"}, res.JSON["checks"])

	// An unreachable object store makes the replica not ready.
	s.Storage = storage.New(storage.Options{Endpoint: "http://127.0.0.1:1", Region: cfg.S3Region, Bucket: cfg.S3Bucket, AccessKeyID: "x", SecretAccessKey: "y"})
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: "/readyz", OutsideAPI: true, Undocumented: true})
	assert.Equal(t, http.StatusServiceUnavailable, res.Code)
	assert.Equal(t, "unavailable", res.JSON["status"])
	assert.NotEqual(t, "ok", res.JSON["checks"].(map[string]any)["s3"])
}
