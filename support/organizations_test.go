package support_test

import (
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/accounts"
	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/imports"
	"ppwr/domain/webhooks"
	"ppwr/internal/access"
	"ppwr/internal/testenv"
	"ppwr/support"
)

func TestOrganizationsPages(t *testing.T) {
	db := testenv.DB(t)
	ctx := t.Context()
	orgName := uniqueName("Acme & Sons")
	boot, err := accounts.Bootstrap(ctx, db, accounts.BootstrapInput{Name: orgName})
	require.NoError(t, err)
	suffix := uuid.NewString()[:8]
	clerk, err := accounts.OperatorCreateUser(ctx, db, accounts.NewUser{Email: "clerk-" + suffix + "@example.test", Name: "Clerk " + suffix})
	require.NoError(t, err)
	_, err = accounts.OperatorAddMember(ctx, db, accounts.Membership{
		OrganizationID: boot.OrganizationID, UserID: clerk.ID, Role: access.Member, Permissions: []string{"catalog.view"}, Active: true,
	})
	require.NoError(t, err)
	revokedKey, revokedToken, err := accounts.OperatorCreateKey(ctx, db, accounts.NewKey{
		OrganizationID: boot.OrganizationID, UserID: clerk.ID, Name: "old-erp-" + suffix, Abilities: []string{"catalog:read"},
	})
	require.NoError(t, err)
	_, err = accounts.OperatorRevokeKey(ctx, db, revokedKey.ID)
	require.NoError(t, err)
	hook, err := webhooks.OperatorAddEndpoint(ctx, db, webhooks.NewEndpoint{
		OrganizationID: boot.OrganizationID, URL: "https://hook:pa55word@hooks.example.test/ppwr-" + suffix, Events: []string{"import.failed", "import.ready"},
	})
	require.NoError(t, err)
	all, err := webhooks.OperatorAddEndpoint(ctx, db, webhooks.NewEndpoint{
		OrganizationID: boot.OrganizationID, URL: "https://hooks.example.test/all-" + suffix, Events: []string{webhooks.AllEvents},
	})
	require.NoError(t, err)
	_, err = webhooks.OperatorDisableEndpoint(ctx, db, all.ID)
	require.NoError(t, err)
	deliveries := &attentiontest.Org{DB: db, ID: boot.OrganizationID}
	deliveries.Delivery(t, hook.ID, webhooks.DeliverySucceeded, "")
	for _, status := range []string{webhooks.DeliveryFailed, webhooks.DeliveryPending} {
		deliveries.Delivery(t, hook.ID, status, "receiver answered <503>")
	}

	b := newBrowser(t, console(t, support.Deps{}))
	_, secret := token(t, db, uniqueName("Support"))
	require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)

	list := b.page("/organizations")
	assert.Contains(t, list, `<a href="/organizations/`+boot.OrganizationID.String()+`">Acme &amp; Sons`, "names are escaped")
	assert.Contains(t, list, `<a href="/organizations" aria-current="page">Organizations</a>`)

	page := b.page("/organizations/" + boot.OrganizationID.String())
	assert.Contains(t, page, "<h1>Acme &amp; Sons")
	for _, want := range []string{
		"<td>owner</td>", "<td>all, by role</td>", "Clerk " + suffix, "clerk-" + suffix + "@example.test", "<code>catalog.view</code>",
		"bootstrap", "old-erp-" + suffix, "<code>catalog:read</code>",
		"https://hook:xxxxx@hooks.example.test/ppwr-" + suffix, "<code>import.failed</code>, <code>import.ready</code>",
		"https://hooks.example.test/all-" + suffix, "all, present and future", "disabled", "enabled",
	} {
		assert.Contains(t, page, want)
	}
	hookRow := regexp.MustCompile(`(?s)<th scope="row"><code>https://hook:xxxxx@hooks.example.test/ppwr-` + suffix + `</code></th>.*?</tr>`).FindString(page)
	assert.Regexp(t, `2 failed in a row; last success \d{4}-\d\d-\d\d \d\d:\d\d UTC<br>Last error: <code>receiver answered &lt;503&gt;</code>`, hookRow,
		"the failures since the latest success, with the newest error, escaped")
	allRow := regexp.MustCompile(`(?s)<th scope="row"><code>https://hooks.example.test/all-` + suffix + `</code></th>.*?</tr>`).FindString(page)
	assert.Contains(t, allRow, "none attempted yet")

	keyRow := regexp.MustCompile(`(?s)<th scope="row">old-erp-` + suffix + `</th>.*?</tr>`).FindString(page)
	assert.Contains(t, keyRow, "clerk-"+suffix+"@example.test", "a key names its user")
	assert.Regexp(t, `UTC</td>\s*</tr>$`, keyRow, "when it was revoked")

	for what, secret := range map[string]string{
		"bootstrap key": boot.APIKey, "revoked key": revokedToken,
		"token prefix": revokedKey.TokenPrefix, "key hash": hex.EncodeToString(accounts.HashToken(boot.APIKey)),
		"webhook secret": hook.Secret, "webhook URL password": "pa55word",
	} {
		assert.NotContains(t, page, secret, what)
		assert.NotContains(t, page, strings.TrimPrefix(secret, "ppwr_"), what)
	}

	assert.Equal(t, http.StatusNotFound, b.get("/organizations/"+uuid.NewString()).StatusCode)
	res := b.get("/organizations/not-an-id")
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Contains(t, body(t, res), "There is no such record.")

	b.header.Set("Accept-Language", "pl")
	page = b.page("/organizations/" + boot.OrganizationID.String())
	assert.Contains(t, page, "Klucze API")
	assert.Contains(t, page, "właściciel")
	assert.Contains(t, page, "nieudane z rzędu: 2; ostatni sukces")
}

var (
	inputTag = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idAttr   = regexp.MustCompile(`\bid="([^"]+)"`)
	heading  = regexp.MustCompile(`<h([1-6])\b`)
)

// Every page is a document a screen reader and a keyboard can use: its
// language, a skip link to its main content, one h1 and no skipped
// heading level, a label for every field, and headers on every table.
func TestPagesAreAccessible(t *testing.T) {
	db := testenv.DB(t)
	boot, err := accounts.Bootstrap(t.Context(), db, accounts.BootstrapInput{Name: uniqueName("A11y")})
	require.NoError(t, err)
	stuck := attentiontest.NewOrg(t, db).StuckImport(t, imports.ImportQueued)
	s := console(t, support.Deps{})
	anonymous := newBrowser(t, s)
	b := newBrowser(t, s)
	_, secret := token(t, db, uniqueName("Reader"))
	require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)
	pages := map[string]string{
		"/signin":         anonymous.page("/signin"),
		"/attention":      b.page("/attention"),
		"/organizations":  b.page("/organizations"),
		"/organizations/": b.page("/organizations/" + boot.OrganizationID.String()),
		"/attention/…":    b.page("/attention/import_stuck/" + stuck.ID.String()),
		"refused sign-in": body(t, anonymous.signIn("wrong")),
		"not found":       body(t, b.get("/organizations/"+uuid.NewString())),
	}
	for name, html := range pages {
		assert.Regexp(t, `<html lang="(en|pl)">`, html, name)
		assert.Contains(t, html, `<a class="skip" href="#main">`, name)
		assert.Contains(t, html, `<main id="main"`, name)
		levels := heading.FindAllStringSubmatch(html, -1)
		require.NotEmpty(t, levels, name)
		assert.Equal(t, "1", levels[0][1], "%s starts with its h1", name)
		for i := 1; i < len(levels); i++ {
			assert.LessOrEqual(t, int(levels[i][1][0])-int(levels[i-1][1][0]), 1, "%s skips a heading level", name)
			assert.NotEqual(t, "1", levels[i][1], "%s has one h1", name)
		}
		for _, field := range inputTag.FindAllString(html, -1) {
			if strings.Contains(field, `type="hidden"`) {
				continue
			}
			id := idAttr.FindStringSubmatch(field)
			if assert.NotNil(t, id, "%s: %s has no id for a label", name, field) {
				assert.Contains(t, html, `<label for="`+id[1]+`">`, "%s: %s has no label", name, field)
			}
		}
		assert.Equal(t, strings.Count(html, "<table"), strings.Count(html, "<thead>"), "%s: every table has headers", name)
		assert.NotContains(t, html, "<td scope", name)
	}
}
