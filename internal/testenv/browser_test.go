package testenv_test

import (
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// accessiblePage has what axe-core asks of a form: a language, a title, a
// main landmark, a heading and a label for every field.
const accessiblePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title></head>
<body><main><h1>%[1]s</h1>%s</main></body></html>`

// inaccessiblePage breaks two rules axe-core rates serious or worse: a
// field without a label and grey text on white.
const inaccessiblePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bad</title></head>
<body><main><h1>Bad</h1>
<input type="text" name="q">
<p style="color:#bbb;background:#fff">This grey text is too faint to read.</p>
</main></body></html>`

// pages serves a sign-in form, the page its POST answers and a page that
// breaks accessibility rules, under the strict Content-Security-Policy a
// server-rendered console sends (no scripts at all).
func pages(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
		_, _ = w.Write([]byte(body))
	}
	mux.HandleFunc("GET /sign-in", func(w http.ResponseWriter, r *http.Request) {
		page(w, fmt.Sprintf(accessiblePage, "Sign in", `<form method="post" action="/sign-in">
<label for="token">Token</label> <input id="token" name="token" type="password" autocomplete="off">
<button type="submit">Sign in</button></form>`))
	})
	mux.HandleFunc("POST /sign-in", func(w http.ResponseWriter, r *http.Request) {
		page(w, fmt.Sprintf(accessiblePage, "Signed in", `<p id="result">Signed in with `+html.EscapeString(r.PostFormValue("token"))+`</p>`))
	})
	mux.HandleFunc("GET /bad", func(w http.ResponseWriter, r *http.Request) { page(w, inaccessiblePage) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestBrowserFillsAFormAndTakesAScreenshot(t *testing.T) {
	srv := pages(t)
	ctx := testenv.Browser(t)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/sign-in"),
		chromedp.SendKeys(chromedp.ID("token"), "sup_secret"),
		chromedp.Click(chromedp.CSS("button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("result")),
	))
	// The text came back from the server, so the keys reached the field
	// and the click submitted the form.
	result, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("result")))
	require.NoError(t, err)
	assert.Equal(t, "Signed in with sup_secret", result)
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	assert.Equal(t, "Signed in", title)

	path := filepath.Join(t.TempDir(), "shots", "signed-in.png")
	testenv.Screenshot(t, ctx, path)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, testenv.ViewportWidth, img.Bounds().Dx())
	assert.Equal(t, testenv.ViewportHeight, img.Bounds().Dy())
}

func TestBrowserTabsShareNoCookies(t *testing.T) {
	srv := pages(t)
	first := testenv.Browser(t)
	require.NoError(t, chromedp.Do(first,
		chromedp.Navigate(srv.URL+"/sign-in"),
		chromedp.Evaluate[chromedp.Void](`document.cookie = "session=first"`),
	))
	cookie, err := chromedp.Run(first, chromedp.Evaluate[string](`document.cookie`))
	require.NoError(t, err)
	require.Equal(t, "session=first", cookie)

	// Another test's tab: a session one test signs in must not sign in
	// the next.
	second := testenv.Browser(t)
	require.NoError(t, chromedp.Do(second, chromedp.Navigate(srv.URL+"/sign-in")))
	cookie, err = chromedp.Run(second, chromedp.Evaluate[string](`document.cookie`))
	require.NoError(t, err)
	assert.Empty(t, cookie)
}

func TestAxeFindsNoSeriousViolationOnAnAccessiblePage(t *testing.T) {
	srv := pages(t)
	ctx := testenv.Browser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/sign-in")))

	for _, v := range testenv.Axe(t, ctx) {
		assert.False(t, v.Serious(), "%s", v)
	}
	testenv.AssertAccessible(t, ctx)
}

func TestAxeReportsTheViolationsOfAnInaccessiblePage(t *testing.T) {
	srv := pages(t)
	ctx := testenv.Browser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/bad")))

	serious := map[string]testenv.AxeViolation{}
	for _, v := range testenv.Axe(t, ctx) {
		if v.Serious() {
			serious[v.ID] = v
		}
	}
	require.Contains(t, serious, "label")
	require.Contains(t, serious, "color-contrast")
	require.Len(t, serious["label"].Nodes, 1)
	assert.Equal(t, "input", serious["label"].Nodes[0].Target)
	assert.Equal(t, `<input type="text" name="q">`, serious["label"].Nodes[0].HTML)

	// AssertAccessible fails the test and says what to fix where.
	rec := &recorder{TB: t}
	testenv.AssertAccessible(rec, ctx)
	require.Len(t, rec.errors, 1)
	msg := rec.errors[0]
	assert.Contains(t, msg, srv.URL+"/bad")
	assert.Contains(t, msg, "label (critical)")
	assert.Contains(t, msg, "color-contrast (serious)")
	assert.Contains(t, msg, `<input type="text" name="q">`)
	assert.Contains(t, msg, "Element has insufficient color contrast")
	assert.Contains(t, msg, "https://dequeuniversity.com/rules/axe/")
}

// recorder is a testing.TB whose Errorf is noted instead of failing the
// test, to check what a helper reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
