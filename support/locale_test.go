package support_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
