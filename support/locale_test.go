package support_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/internal/i18n"
	"ppwr/internal/temporalclient"
	"ppwr/support"
)

func TestLanguageFollowsTheBrowser(t *testing.T) {
	s := console(t, support.Deps{})
	for accept, want := range map[string]string{
		"":                          `<html lang="en">`,
		"pl":                        `<html lang="pl">`,
		"pl-PL,pl;q=0.9,en;q=0.8":   `<html lang="pl">`,
		"en-GB,en;q=0.9":            `<html lang="en">`,
		"de-DE,de;q=0.9":            `<html lang="en">`,
		"de-DE,pl;q=0.5,en;q=0.4":   `<html lang="pl">`,
		"en;q=0.2,pl;q=0.8":         `<html lang="pl">`,
		"not a language header ;;;": `<html lang="en">`,
	} {
		b := newBrowser(t, s)
		b.header.Set("Accept-Language", accept)
		assert.Contains(t, b.page("/signin"), want, "Accept-Language: %q", accept)
	}

	b := newBrowser(t, s)
	b.header.Set("Accept-Language", "pl")
	page := b.page("/signin")
	assert.Contains(t, page, "<h1>Logowanie</h1>")
	assert.Contains(t, page, `<label for="token">Token wsparcia</label>`)
	assert.Contains(t, page, `<a href="/language?to=en&amp;back=%2Fsignin" lang="en" hreflang="en">English</a>`, "the switch names each language in itself")
}

func TestLanguageSwitch(t *testing.T) {
	s := console(t, support.Deps{})
	b := newBrowser(t, s)
	b.header.Set("Accept-Language", "en")
	res := b.get("/language?to=pl&back=%2Fsignin%3Fnext%3D%252Forganizations")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin?next=%2Forganizations", res.Header.Get("Location"))
	require.Len(t, res.Cookies(), 1)
	c := res.Cookies()[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	page := b.page("/signin")
	assert.Contains(t, page, `<html lang="pl">`, "the choice wins over the browser's language")
	assert.Contains(t, page, "Logowanie")

	assert.Equal(t, "/attention", b.get("/language?to=en&back=//evil.example/").Header.Get("Location"), "never to another site")
	assert.Equal(t, "/attention", b.get("/language?to=en&back=https://evil.example/").Header.Get("Location"))
	assert.Contains(t, b.page("/signin"), `<html lang="en">`)
	assert.Equal(t, http.StatusBadRequest, b.get("/language?to=de&back=/signin").StatusCode)
	assert.Contains(t, b.page("/signin"), `<html lang="en">`, "an unsupported language changes nothing")
}

var messageKey = regexp.MustCompile(`\{\{-?\s*t\s+"([^"]+)"`)

// Every message a template names, and every one it makes of a status or
// an actor type, is in both catalogues: T would show the bare key.
func TestTemplatesNameKnownMessages(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("templates", "*.html"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var keys []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range messageKey.FindAllStringSubmatch(string(raw), -1) {
			keys = append(keys, m[1])
		}
	}
	require.Contains(t, keys, "support.record.runs")
	for _, s := range []temporalclient.RunStatus{
		temporalclient.RunRunning, temporalclient.RunCompleted, temporalclient.RunFailed, temporalclient.RunTerminated,
		temporalclient.RunTimedOut, temporalclient.RunCanceled, temporalclient.RunContinuedAsNew,
	} {
		keys = append(keys, "support.run_status."+string(s))
	}
	for _, a := range []string{domain.ActorOperator, domain.ActorSystem, domain.ActorAPIKey} {
		keys = append(keys, "support.actor."+a)
	}
	for _, k := range keys {
		assert.True(t, i18n.Has(i18n.EN, k) && i18n.Has(i18n.PL, k), k)
	}
}
