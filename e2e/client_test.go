package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"ppwr/webhooksig"
)

// apiClient calls one organization's API through every serve process in
// turn, as a load balancer spreading requests would.
type apiClient struct {
	org   string
	bases []string // the organization's URL on each API
	token string
	calls int
	http  *http.Client
}

// integration is the client of an integration holding an organization's
// API key.
func (st *stack) integration(org, token string) *apiClient {
	c := &apiClient{org: org, token: token, http: &http.Client{Timeout: 30 * time.Second}}
	for _, p := range st.apis {
		c.bases = append(c.bases, p.url+"/api/v1/organizations/"+org)
	}
	return c
}

// do sends a request to the next API and decodes its JSON answer, which
// must have status want. Every POST carries a fresh Idempotency-Key.
func (c *apiClient) do(t *testing.T, method, path string, body io.Reader, contentType string, want int) map[string]any {
	t.Helper()
	base := c.bases[c.calls%len(c.bases)]
	c.calls++
	req, err := http.NewRequest(method, base+path, body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if method == http.MethodPost {
		req.Header.Set("Idempotency-Key", idempotencyKey())
	}
	res, err := c.http.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, want, res.StatusCode, "%s %s: %s", method, base+path, raw)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), "%s %s: %s", method, path, raw)
	return out
}

func (c *apiClient) get(t *testing.T, path string) map[string]any {
	t.Helper()
	return c.do(t, http.MethodGet, path, nil, "", http.StatusOK)
}

func (c *apiClient) post(t *testing.T, path string, body any, want int) map[string]any {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	return c.do(t, http.MethodPost, path, bytes.NewReader(raw), "application/json", want)
}

// upload creates an import of a catalogue CSV file.
func (c *apiClient) upload(t *testing.T, name string, csv []byte) map[string]any {
	t.Helper()
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	require.NoError(t, w.WriteField("type", "catalog"))
	f, err := w.CreateFormFile("file", name)
	require.NoError(t, err)
	_, err = f.Write(csv)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return c.do(t, http.MethodPost, "/imports", &form, w.FormDataContentType(), http.StatusAccepted)
}

// awaitImport polls an import until its status is one of statuses.
func (c *apiClient) awaitImport(t *testing.T, id string, timeout time.Duration, statuses ...string) map[string]any {
	t.Helper()
	var imp map[string]any
	await(t, timeout, "import "+id+" "+strings.Join(statuses, " or "), func() (bool, any) {
		imp = c.get(t, "/imports/"+id)
		status, _ := imp["status"].(string)
		return slices.Contains(statuses, status), imp
	})
	return imp
}

func idempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// receiver is the integration's webhook receiver: it checks each
// delivery's signature with its endpoint's secret and counts the
// deliveries of each event per endpoint.
type receiver struct {
	url     string
	mu      sync.Mutex
	secrets map[string]string            // endpoint path → secret
	got     map[string]map[uuid.UUID]int // endpoint path → event id → POSTs
	refused []string                     // deliveries that failed the receiver's checks
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{secrets: map[string]string{}, got: map[string]map[uuid.UUID]int{}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// expect registers an endpoint's path and secret.
func (r *receiver) expect(path, secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets[path] = secret
	r.got[path] = map[uuid.UUID]int{}
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	secret, known := r.secrets[req.URL.Path]
	var event struct {
		ID uuid.UUID `json:"id"`
	}
	switch {
	case err != nil:
		r.refused = append(r.refused, req.URL.Path+": "+err.Error())
	case !known:
		r.refused = append(r.refused, req.URL.Path+": no such endpoint")
	case webhooksig.Verify(secret, req.Header.Get(webhooksig.Header), body, time.Now()) != nil:
		r.refused = append(r.refused, req.URL.Path+": bad signature")
	case json.Unmarshal(body, &event) != nil || event.ID == uuid.Nil:
		r.refused = append(r.refused, req.URL.Path+": no event id in "+string(body))
	default:
		r.got[req.URL.Path][event.ID]++
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.WriteHeader(http.StatusBadRequest)
}

// received is a copy of the counts, per endpoint path.
func (r *receiver) received() (map[string]map[uuid.UUID]int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]map[uuid.UUID]int{}
	for path, got := range r.got {
		out[path] = maps.Clone(got)
	}
	return out, slices.Clone(r.refused)
}
