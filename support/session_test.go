package support_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/operators"
	"ppwr/internal/testenv"
	"ppwr/support"
)

func TestSignInWithToken(t *testing.T) {
	db := testenv.DB(t)
	b := newBrowser(t, console(t, support.Deps{}))
	name := uniqueName("Ada")
	_, secret := token(t, db, name)

	res := b.get("/organizations?x=1")
	redirectsToSignIn(t, res)
	assert.Equal(t, "/signin?next=%2Forganizations%3Fx%3D1", res.Header.Get("Location"), "back to the page asked for after signing in")
	assert.Contains(t, b.page("/signin?next=%2Forganizations"), `<input type="hidden" name="next" value="/organizations">`)

	res = b.signIn(secret)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body(t, res))
	assert.Equal(t, "/organizations", res.Header.Get("Location"))
	cookies := res.Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	assert.Equal(t, "ppwr_support_session", c.Name)
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/", c.Path)
	assert.False(t, c.Secure, "plain http on loopback keeps working in a browser")
	assert.WithinDuration(t, time.Now().Add(time.Hour), c.Expires, time.Minute, "a session ends with its token")

	var stored int64
	require.NoError(t, db.Table("support_sessions").Where("id_hash = ?", accounts.HashToken(c.Value)).Count(&stored).Error)
	assert.EqualValues(t, 1, stored, "the session is in PostgreSQL, under the hash of its id")
	require.NoError(t, db.Table("support_sessions").Where("encode(id_hash, 'escape') LIKE ?", "%"+c.Value+"%").Count(&stored).Error)
	assert.Zero(t, stored, "the id itself is not stored")

	page := b.page("/organizations")
	assert.Contains(t, page, "Signed in as "+name)

	// Another console, as another replica would be, knows the session.
	other := newBrowser(t, console(t, support.Deps{}))
	other.cookies = b.cookies
	assert.Contains(t, other.page("/attention"), "Signed in as "+name)

	// Signed in already, the sign-in page moves on.
	res = b.get("/signin")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/attention", res.Header.Get("Location"))
}

func TestSignInRefusesBadTokens(t *testing.T) {
	db := testenv.DB(t)
	s := console(t, support.Deps{})
	expired, expiredSecret := token(t, db, uniqueName("Expired"))
	require.NoError(t, db.Model(&operators.Token{}).Where("id = ?", expired.ID).Update("expires_at", time.Now().Add(-time.Minute)).Error)
	revoked, revokedSecret := token(t, db, uniqueName("Revoked"))
	_, err := operators.RevokeToken(t.Context(), db, revoked.ID)
	require.NoError(t, err)
	apiKey, err := accounts.NewToken()
	require.NoError(t, err)

	for what, secret := range map[string]string{
		"expired": expiredSecret, "revoked": revokedSecret, "unknown": apiKey, "malformed": "let me in", "empty": "",
	} {
		t.Run(what, func(t *testing.T) {
			b := newBrowser(t, s)
			res := b.signIn(secret)
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
			assert.Empty(t, res.Cookies(), "no session")
			assert.Contains(t, body(t, res), "This token is unknown, expired or revoked.")
			redirectsToSignIn(t, b.get("/attention"))
		})
	}
}

// A session lives only as long as its token: revoking or expiring the
// token ends it at the next request.
func TestSessionEndsWithItsToken(t *testing.T) {
	db := testenv.DB(t)
	s := console(t, support.Deps{})
	for what, end := range map[string]func(id uuid.UUID){
		"revoked": func(id uuid.UUID) {
			_, err := operators.RevokeToken(t.Context(), db, id)
			require.NoError(t, err)
		},
		"expired": func(id uuid.UUID) {
			require.NoError(t, db.Model(&operators.Token{}).Where("id = ?", id).Update("expires_at", time.Now().Add(-time.Second)).Error)
		},
	} {
		t.Run(what, func(t *testing.T) {
			b := newBrowser(t, s)
			tok, secret := token(t, db, uniqueName("Grace"))
			require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)
			b.page("/organizations")
			csrf := b.csrf()
			end(tok.ID)
			redirectsToSignIn(t, b.get("/organizations"))
			b.cookies["ppwr_support_session"] = "ppwr_" + strings.Repeat("x", 43)
			res := b.post("/signout", url.Values{"csrf": {csrf}})
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "a write without a live session is refused")
		})
	}
}

func TestCookieIsSecureOutsideLoopback(t *testing.T) {
	db := testenv.DB(t)
	_, secret := token(t, db, uniqueName("Lin"))
	for addr, secure := range map[string]bool{
		"127.0.0.1:8090": false, "localhost:8090": false, "[::1]:8090": false,
		"0.0.0.0:8090": true, ":8090": true, "10.1.2.3:8090": true, "support.example.com:443": true,
	} {
		res := newBrowser(t, console(t, support.Deps{Addr: addr})).signIn(secret)
		require.Len(t, res.Cookies(), 1, addr)
		assert.Equal(t, secure, res.Cookies()[0].Secure, addr)
	}
}

// writeProbe is a page of a later issue: a form that writes, and reports
// whom the console says it acts for.
type writeProbe struct {
	calls    int
	signedIn string
	operator string
}

func (p *writeProbe) serve(w http.ResponseWriter, r *http.Request) {
	p.calls++
	p.signedIn = support.SignedIn(r).Name
	p.operator = domain.OperatorName(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

func TestFormsNeedTheSessionsCSRFToken(t *testing.T) {
	db := testenv.DB(t)
	s := console(t, support.Deps{})
	probe := &writeProbe{}
	s.Page("POST /probe", probe.serve)
	name := uniqueName("Kit")
	_, secret := token(t, db, name)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)
	csrf := b.csrf()

	other := newBrowser(t, s)
	_, otherSecret := token(t, db, uniqueName("Other"))
	require.Equal(t, http.StatusSeeOther, other.signIn(otherSecret).StatusCode)

	for what, form := range map[string]url.Values{
		"missing":           {},
		"wrong":             {"csrf": {csrf + "x"}},
		"another session's": {"csrf": {other.csrf()}},
	} {
		res := b.post("/probe", form)
		assert.Equal(t, http.StatusForbidden, res.StatusCode, what)
		assert.Contains(t, body(t, res), "nothing was changed", what)
		res = b.post("/signout", form)
		assert.Equal(t, http.StatusForbidden, res.StatusCode, what)
	}
	assert.Zero(t, probe.calls, "a refused form reaches no handler")
	b.page("/attention") // still signed in

	res := b.post("/probe", url.Values{"csrf": {csrf}})
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
	assert.Equal(t, 1, probe.calls)
	assert.Equal(t, name, probe.signedIn)
	assert.Equal(t, name, probe.operator, "domain commands given the request's context audit the person")

	// A form posted from another site is refused before its token is read.
	b.header.Set("Sec-Fetch-Site", "cross-site")
	assert.Equal(t, http.StatusForbidden, b.post("/probe", url.Values{"csrf": {csrf}}).StatusCode)
	assert.Equal(t, 1, probe.calls)
}

func TestSignOut(t *testing.T) {
	db := testenv.DB(t)
	s := console(t, support.Deps{})
	_, secret := token(t, db, uniqueName("Mo"))
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)
	session := b.cookies["ppwr_support_session"]
	res := b.post("/signout", url.Values{"csrf": {b.csrf()}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	assert.NotContains(t, b.cookies, "ppwr_support_session", "the cookie is cleared")
	var left int64
	require.NoError(t, db.Table("support_sessions").Where("id_hash = ?", accounts.HashToken(session)).Count(&left).Error)
	assert.Zero(t, left, "the session is deleted")

	b.cookies["ppwr_support_session"] = session
	redirectsToSignIn(t, b.get("/attention"))
}

func TestTrustedHeaderIsOffByDefault(t *testing.T) {
	b := newBrowser(t, console(t, support.Deps{}))
	b.header.Set("X-Forwarded-User", "mallory")
	redirectsToSignIn(t, b.get("/attention"))
	assert.Empty(t, b.cookies)
}

func TestTrustedHeaderSignsIn(t *testing.T) {
	db := testenv.DB(t)
	s := console(t, support.Deps{TrustedHeader: "x-forwarded-user"})
	probe := &writeProbe{}
	s.Page("POST /probe", probe.serve)
	name := uniqueName("Sso")
	b := newBrowser(t, s)
	b.header.Set("X-Forwarded-User", name)
	assert.Contains(t, b.page("/attention"), "Signed in as "+name)
	session := b.cookies["ppwr_support_session"]
	require.NotEmpty(t, session, "the proxy's person gets a session, for their forms' CSRF token")
	assert.Contains(t, b.page("/organizations"), "Signed in as "+name)
	assert.Equal(t, session, b.cookies["ppwr_support_session"], "one session while the header names the same person")

	res := b.post("/probe", url.Values{"csrf": {b.csrf()}})
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
	assert.Equal(t, name, probe.operator)

	// The session is the proxy's: without the header, as from a request
	// that went round the proxy, it is no session at all.
	b.header.Del("X-Forwarded-User")
	redirectsToSignIn(t, b.get("/attention"))

	// Another name is another person.
	b.cookies["ppwr_support_session"] = session
	b.header.Set("X-Forwarded-User", "someone else")
	assert.Contains(t, b.page("/attention"), "Signed in as someone else")
	assert.NotEqual(t, session, b.cookies["ppwr_support_session"])

	// Tokens keep working beside the proxy.
	_, secret := token(t, db, uniqueName("Tok"))
	plain := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, plain.signIn(secret).StatusCode)
	plain.page("/attention")
}

// Pages load nothing but the console's stylesheet, are never framed nor
// cached, and the root leads to the start page.
func TestConsoleHeadersAndStylesheet(t *testing.T) {
	b := newBrowser(t, console(t, support.Deps{}))
	res := b.get("/signin")
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Contains(t, body(t, res), `<link rel="stylesheet" href="/static/support.css">`)

	res = b.get("/static/support.css")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Header.Get("Content-Type"), "text/css")
	assert.Contains(t, body(t, res), ":focus-visible", "focus stays visible")

	res = b.get("/")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/attention", res.Header.Get("Location"))
	assert.Equal(t, http.StatusNotFound, b.get("/nowhere").StatusCode)
}
