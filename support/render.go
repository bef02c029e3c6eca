package support

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"ppwr/domain"
	"ppwr/internal/i18n"
)

// The pages: templates/layout.html defines "layout", the frame of every
// page (skip link, navigation, language switch, sign-out); each other
// file templates/<page>.html defines "title" and "content" and is
// rendered inside it by Render(w, r, status, "<page>", data).
//
//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var static embed.FS

// pages are the parsed pages by name, each with the layout. They are
// never executed themselves: Render clones one per request to bind the
// functions to the request's language and session, and html/template
// allows no clone of a template once executed.
type pages map[string]*template.Template

// funcStubs declare the functions the templates call (Render binds them
// per request):
//
//	t KEY ARGS...   the message KEY in the page's language (internal/i18n)
//	csrfField       the hidden field every form of the session must carry
//	when TIME       a time (or *time.Time, "—" when nil), in UTC
//	here PREFIX     whether the page's path starts with PREFIX (navigation)
var funcStubs = template.FuncMap{
	"t":         func(string, ...any) string { return "" },
	"csrfField": func() template.HTML { return "" },
	"when":      when,
	"here":      func(string) bool { return false },
}

func parsePages() (pages, error) {
	layout, err := template.New("layout").Funcs(funcStubs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := pages{}
	for _, file := range files {
		name := strings.TrimSuffix(path.Base(file), ".html")
		if name == "layout" {
			continue
		}
		page, err := layout.Clone()
		if err == nil {
			_, err = page.ParseFS(templateFiles, file)
		}
		if err != nil {
			return nil, err
		}
		out[name] = page
	}
	return out, nil
}

// view is what the layout renders; the page's own data is .Page.
type view struct {
	Lang i18n.Locale
	// Operator is the person signed in, empty on the sign-in page.
	Operator  string
	Languages []languageLink
	Page      any
}

// languageLink switches the console to another language.
type languageLink struct {
	Lang i18n.Locale
	// Name is the language's name in itself.
	Name string
	Href string
}

// Render writes the page (templates/<page>.html) with data as .Page,
// inside the layout, in the request's language, with status. The page is
// rendered whole before anything is sent, so a template error is a 500,
// not half a page.
func (s *Server) Render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	lang := Locale(r)
	v := view{Lang: lang, Page: data}
	sess := SignedIn(r)
	if sess != nil {
		v.Operator = sess.Name
	}
	for _, l := range i18n.Locales {
		if l != lang {
			href := "/language?to=" + string(l) + "&back=" + url.QueryEscape(r.URL.RequestURI())
			v.Languages = append(v.Languages, languageLink{Lang: l, Name: i18n.T(l, "support.language.name"), Href: href})
		}
	}
	err := func() error {
		tmpl, ok := s.pages[page]
		if !ok {
			return fmt.Errorf("no page template %q", page)
		}
		bound, err := tmpl.Clone()
		if err != nil {
			return err
		}
		bound.Funcs(template.FuncMap{
			"t": func(key string, args ...any) string { return i18n.T(lang, key, args...) },
			"csrfField": func() template.HTML {
				if sess == nil {
					return ""
				}
				return template.HTML(`<input type="hidden" name="` + csrfField + `" value="` + template.HTMLEscapeString(sess.CSRF) + `">`)
			},
			"here": func(prefix string) bool { return strings.HasPrefix(r.URL.Path, prefix) },
		})
		var buf bytes.Buffer
		if err := bound.ExecuteTemplate(&buf, "layout", v); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_, _ = buf.WriteTo(w)
		return nil
	}()
	if err != nil {
		slog.ErrorContext(r.Context(), "support console: rendering", "page", page, "error", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
	}
}

// errorPage is what the error template shows: a message key.
type errorPage struct {
	Message string
}

func (s *Server) renderError(w http.ResponseWriter, r *http.Request, status int, key string) {
	s.Render(w, r, status, "error", errorPage{Message: key})
}

// Fail answers a request whose work failed with err: a record that does
// not exist is a 404 page; anything else is logged and a 500 page.
func (s *Server) Fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, domain.ErrNotFound) {
		s.renderError(w, r, http.StatusNotFound, "support.error.not_found")
		return
	}
	slog.ErrorContext(r.Context(), "support console", "method", r.Method, "path", r.URL.Path, "error", err)
	s.renderError(w, r, http.StatusInternalServerError, "support.error.internal")
}

// when shows a time to the minute in UTC, as support compares it with
// logs and the Temporal UI; a missing time is a dash.
func when(v any) string {
	switch t := v.(type) {
	case time.Time:
		return t.UTC().Format("2006-01-02 15:04 UTC")
	case *time.Time:
		if t != nil {
			return when(*t)
		}
	}
	return "—"
}
