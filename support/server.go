// Package support is the support console (`ppwr support`): a small web
// application, rendered on the server with html/template, where support
// staff look across organizations and act on their work through the same
// domain commands as `ppwr admin`. It is built on net/http alone. Its
// pages sit behind a sign-in (a support token, or a trusted SSO proxy's
// header), every form carries the session's CSRF token, and the request
// context of a signed-in page names the person for the audit log.
package support

import (
	"errors"
	"net"
	"net/http"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain/attention"
	"ppwr/domain/webhooks"
	"ppwr/ops"
)

// Deps are what the console works with.
type Deps struct {
	DB *gorm.DB
	// Addr is where the console listens (SUPPORT_ADDR): its cookies are
	// Secure unless it is a loopback address, where browsers may use
	// plain http.
	Addr string
	// TrustedHeader is SUPPORT_TRUSTED_HEADER: empty, no header is
	// trusted.
	TrustedHeader string
	// Temporal is where a record's page reads its runs and its actions
	// start theirs, on TaskQueue (TEMPORAL_TASK_QUEUE), as `ppwr admin`
	// starts them.
	Temporal  client.Client
	TaskQueue string
	// Namespace (TEMPORAL_NAMESPACE) and TemporalUIURL (TEMPORAL_UI_URL)
	// make the link of each run into the Temporal UI; no URL, no link.
	Namespace     string
	TemporalUIURL string
	// WebhookRetry is WEBHOOK_RETRY_*, which a resent delivery's run is
	// given, as `ppwr admin webhook resend` gives it.
	WebhookRetry webhooks.Retry
}

// Server is the console: an http.Handler. Pages are added with Page.
type Server struct {
	db            *gorm.DB
	secure        bool
	trustedHeader string
	mux           *http.ServeMux
	handler       http.Handler
	pages         pages
	temporal      client.Client
	namespace     string
	temporalUI    string
	// actions are what the record pages' actions run with.
	actions attention.Deps
}

// New builds the console with its own pages: sign-in and sign-out,
// language, attention and organizations.
func New(deps Deps) (*Server, error) {
	if deps.Temporal == nil {
		return nil, errors.New("support: no Temporal client")
	}
	tmpl, err := parsePages()
	if err != nil {
		return nil, err
	}
	redriver := &ops.Redriver{DB: deps.DB, Temporal: deps.Temporal, TaskQueue: deps.TaskQueue}
	s := &Server{
		db: deps.DB, secure: !loopback(deps.Addr), trustedHeader: deps.TrustedHeader,
		mux: http.NewServeMux(), pages: tmpl,
		temporal: deps.Temporal, namespace: deps.Namespace, temporalUI: deps.TemporalUIURL,
		actions: attention.Deps{Redrive: redriver.Start, Retry: deps.WebhookRetry},
	}
	// Cross-origin writes are refused before any handler runs (by the
	// browser's Sec-Fetch-Site or Origin), the sign-in form included,
	// which has no session and so no CSRF token yet.
	s.handler = securityHeaders(http.NewCrossOriginProtection().Handler(s.mux))
	s.mux.Handle("GET /static/", http.FileServerFS(static))
	s.mux.HandleFunc("GET /language", s.switchLanguage)
	s.mux.HandleFunc("GET /signin", s.signInForm)
	s.mux.HandleFunc("POST /signin", s.signIn)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, homePath, http.StatusSeeOther)
	})
	s.Page("POST /signout", s.signOut)
	s.Page("GET /attention", s.attention)
	s.Page("GET /attention/{kind}/{id}", s.record)
	s.Page("POST /attention/{kind}/{id}/{action}", s.perform)
	s.Page("GET /organizations", s.organizations)
	s.Page("GET /organizations/{id}", s.organization)
	return s, nil
}

// homePath is where a signed-in person starts.
const homePath = "/attention"

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Page registers h for pattern (a ServeMux pattern with its method, such
// as "POST /imports/{id}/redrive") behind the sign-in: a request without
// a live session is sent to the sign-in page, and one of a method other
// than GET or HEAD is refused with 403 unless its form carries the
// session's CSRF token (the layout's csrfField). h gets a request whose
// context names the signed-in person (SignedIn) and attributes the audit
// entries of operator commands to them (domain.WithOperator).
func (s *Server) Page(pattern string, h http.HandlerFunc) {
	s.mux.Handle(pattern, s.signedIn(h))
}

// loopback reports whether addr (host:port) listens on a loopback
// address only; a host name other than localhost, or none, does not.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// securityHeaders keeps pages out of frames and caches, and lets them
// load nothing but the console's own stylesheet: there is no script.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
