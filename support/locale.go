package support

import (
	"net/http"
	"time"

	"golang.org/x/text/language"

	"ppwr/internal/i18n"
)

// languageCookie keeps the language a person chose over their browser's.
const languageCookie = "ppwr_support_lang"

// matcher picks a supported locale from Accept-Language; the first tag
// is what a browser asking for neither gets.
var matcher = func() language.Matcher {
	tags := make([]language.Tag, len(i18n.Locales))
	for i, l := range i18n.Locales {
		tags[i] = language.MustParse(string(l))
	}
	return language.NewMatcher(tags)
}()

// Locale is the language of the request's pages: the one chosen with the
// language switch, else the best the browser's Accept-Language allows.
func Locale(r *http.Request) i18n.Locale {
	if c, err := r.Cookie(languageCookie); err == nil && supported(c.Value) {
		return i18n.Locale(c.Value)
	}
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, index, confidence := matcher.Match(tags...)
	if confidence == language.No {
		return i18n.Default
	}
	return i18n.Locales[index]
}

func supported(value string) bool {
	for _, l := range i18n.Locales {
		if value == string(l) {
			return true
		}
	}
	return false
}

// switchLanguage keeps the language ?to= names for a year and goes back
// to the page ?back= names.
func (s *Server) switchLanguage(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	if !supported(to) {
		http.Error(w, "unsupported language", http.StatusBadRequest)
		return
	}
	http.SetCookie(w, s.cookie(languageCookie, to, time.Now().AddDate(1, 0, 0)))
	http.Redirect(w, r, localPath(r.URL.Query().Get("back")), http.StatusSeeOther)
}
