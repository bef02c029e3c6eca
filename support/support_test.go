package support_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain/operators"
	"ppwr/internal/testenv"
	"ppwr/support"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// loopbackAddr is where the console listens in most tests: plain http
// on loopback, so its cookies are not Secure.
const loopbackAddr = "127.0.0.1:8090"

// temporalUI is the Temporal UI the tests' consoles link runs into.
const temporalUI = "http://temporal-ui.test"

// console builds a console on the test database, unless deps names
// another, and the Temporal dev server, unless deps names another client;
// its actions start their runs on a task queue no worker polls, so that
// they stay open, unless deps names the queue.
func console(t *testing.T, deps support.Deps) *support.Server {
	t.Helper()
	if deps.DB == nil {
		deps.DB = testenv.DB(t)
	}
	if deps.Addr == "" {
		deps.Addr = loopbackAddr
	}
	if deps.Temporal == nil {
		deps.Temporal = testenv.Temporal(t)
	}
	if deps.TaskQueue == "" {
		deps.TaskQueue = "nobody-" + uuid.NewString()
	}
	if deps.Namespace == "" {
		deps.Namespace, deps.TemporalUIURL = "default", temporalUI
	}
	s, err := support.New(deps)
	require.NoError(t, err)
	return s
}

// browser sends requests to a console the way a browser would: it keeps
// the cookies the console sets and sends them back, and sends its own
// headers (a language, a proxy's header) with every request.
type browser struct {
	t       *testing.T
	h       http.Handler
	cookies map[string]string
	header  http.Header
}

func newBrowser(t *testing.T, h http.Handler) *browser {
	return &browser{t: t, h: h, cookies: map[string]string{}, header: http.Header{}}
}

func (b *browser) do(method, target string, form url.Values) *http.Response {
	b.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	for name, value := range b.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	res := rec.Result()
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return res
}

func (b *browser) get(target string) *http.Response { return b.do(http.MethodGet, target, nil) }

func (b *browser) post(target string, form url.Values) *http.Response {
	return b.do(http.MethodPost, target, form)
}

// page gets target, which must answer 200, and returns its HTML.
func (b *browser) page(target string) string {
	b.t.Helper()
	res := b.get(target)
	html := body(b.t, res)
	require.Equal(b.t, http.StatusOK, res.StatusCode, "GET %s: %s", target, html)
	return html
}

// signIn signs in with token through the form.
func (b *browser) signIn(token string) *http.Response {
	return b.post("/signin", url.Values{"token": {token}, "next": {"/organizations"}})
}

var csrfInput = regexp.MustCompile(`<input type="hidden" name="csrf" value="([^"]+)">`)

// csrf is the CSRF token of the forms of a page of the session.
func (b *browser) csrf() string {
	b.t.Helper()
	m := csrfInput.FindStringSubmatch(b.page("/attention"))
	require.NotNil(b.t, m, "the layout's sign-out form carries the CSRF token")
	return m[1]
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(raw)
}

// token creates a support token for name.
func token(t *testing.T, db *gorm.DB, name string) (*operators.Token, string) {
	t.Helper()
	tok, secret, err := operators.CreateToken(t.Context(), db, name, time.Hour)
	require.NoError(t, err)
	return tok, secret
}

// uniqueName is a person's name no other test uses.
func uniqueName(who string) string { return who + " " + uuid.NewString()[:8] }

// redirectsToSignIn asserts that res sends the browser to sign in.
func redirectsToSignIn(t *testing.T, res *http.Response) {
	t.Helper()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin"), res.Header.Get("Location"))
}
