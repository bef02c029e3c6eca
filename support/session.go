package support

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"ppwr/domain"
	"ppwr/domain/operators"
)

// sessionCookie holds the session id; the database holds its hash.
const sessionCookie = "ppwr_support_session"

// csrfField is the form field that carries the session's CSRF token.
const csrfField = "csrf"

// maxFormBytes bounds a form: the console's forms are a few fields.
const maxFormBytes = 64 << 10

type sessionKey struct{}

// SignedIn is the session of a request a Page handler serves: Name is
// the person signed in.
func SignedIn(r *http.Request) *operators.Session {
	sess, _ := r.Context().Value(sessionKey{}).(*operators.Session)
	return sess
}

// signedIn lets through requests of a live session, with a CSRF token
// on every write, and sends the others to sign in.
func (s *Server) signedIn(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, err := s.session(w, r)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		if sess == nil {
			s.clearCookie(w, sessionCookie)
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			s.renderError(w, r, http.StatusUnauthorized, "support.error.signed_out")
			return
		}
		ctx := context.WithValue(domain.WithOperator(r.Context(), sess.Name), sessionKey{}, sess)
		r = r.WithContext(ctx)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			sent := r.PostFormValue(csrfField)
			if sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(sess.CSRF)) != 1 {
				s.renderError(w, r, http.StatusForbidden, "support.error.csrf")
				return
			}
		}
		h(w, r)
	})
}

// session is the request's live session, or nil. With a trusted header,
// a request that carries it is the proxy's person: their session is
// reused, or opened for them. A session the proxy opened is live only
// while the header names the same person, so a request that goes round
// the proxy cannot use it.
func (s *Server) session(w http.ResponseWriter, r *http.Request) (*operators.Session, error) {
	var sess *operators.Session
	if c, err := r.Cookie(sessionCookie); err == nil {
		sess, err = operators.LookupSession(r.Context(), s.db, c.Value)
		if err != nil && !errors.Is(err, operators.ErrNoSession) {
			return nil, err
		}
	}
	vouched := s.vouchedFor(r)
	if vouched == "" {
		if sess != nil && sess.TokenID == nil {
			return nil, nil
		}
		return sess, nil
	}
	if sess != nil && sess.TokenID == nil && sess.Name == vouched {
		return sess, nil
	}
	id, sess, err := operators.SignInTrusted(r.Context(), s.db, vouched)
	if err != nil {
		return nil, err
	}
	s.setSessionCookie(w, id, sess.ExpiresAt)
	return sess, nil
}

// vouchedFor is the person the trusted header names, or empty when no
// header is trusted or the request carries none.
func (s *Server) vouchedFor(r *http.Request) string {
	if s.trustedHeader == "" {
		return ""
	}
	return strings.TrimSpace(r.Header.Get(s.trustedHeader))
}

func (s *Server) setSessionCookie(w http.ResponseWriter, id string, expires time.Time) {
	http.SetCookie(w, s.cookie(sessionCookie, id, expires))
}

// cookie is a cookie of the console: never readable by script, never
// sent with a request another site starts, and Secure unless the
// console listens on loopback.
func (s *Server) cookie(name, value string, expires time.Time) *http.Cookie {
	return &http.Cookie{
		Name: name, Value: value, Path: "/", Expires: expires,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	}
}

func (s *Server) clearCookie(w http.ResponseWriter, name string) {
	c := s.cookie(name, "", time.Unix(0, 0))
	c.MaxAge = -1
	http.SetCookie(w, c)
}

// signInPage is what the sign-in template shows.
type signInPage struct {
	Next  string
	Error string
}

// signInForm asks for a support token, unless the request is signed in
// already (by its cookie or the SSO proxy).
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	sess, err := s.session(w, r)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if sess != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.Render(w, r, http.StatusOK, "signin", signInPage{Next: next})
}

// signIn opens a session with the form's support token. A refused token
// is told in one message whatever the reason.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	next := localPath(r.PostFormValue("next"))
	id, sess, err := operators.SignIn(r.Context(), s.db, strings.TrimSpace(r.PostFormValue("token")))
	if errors.Is(err, operators.ErrSignInRefused) {
		slog.Info("support sign-in refused", "remote", r.RemoteAddr)
		s.Render(w, r, http.StatusUnauthorized, "signin", signInPage{Next: next, Error: "support.signin.refused"})
		return
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	slog.Info("support sign-in", "name", sess.Name, "token_id", sess.TokenID)
	s.setSessionCookie(w, id, sess.ExpiresAt)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut ends the session and forgets its cookie. Behind an SSO proxy
// the next request signs in again: signing out is the proxy's.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := operators.SignOut(r.Context(), s.db, c.Value); err != nil {
			s.Fail(w, r, err)
			return
		}
	}
	s.clearCookie(w, sessionCookie)
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

// localPath is p if it is a path of this site, else the home page: a
// link must not send a signed-in person to another site.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return homePath
	}
	return p
}
