package support_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/attention"
	"ppwr/domain/attention/attentiontest"
	"ppwr/internal/i18n"
	"ppwr/internal/testenv"
	"ppwr/support"
)

// recordLink is the link of a row of the attention page to its record.
var recordLink = regexp.MustCompile(`<a href="/attention/([a-z_]+)/([0-9a-f-]{36})">`)

// listed are the records the attention page links to, in its order.
func listed(html string) []string {
	var out []string
	for _, m := range recordLink.FindAllStringSubmatch(html, -1) {
		out = append(out, m[1]+"/"+m[2])
	}
	return out
}

// keysOf are the items as the attention page links them.
func keysOf(items []attention.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it.Kind) + "/" + it.ID.String()
	}
	return out
}

// signedIn is a browser signed in to a console of deps.
func signedIn(t *testing.T, deps support.Deps, name string) *browser {
	t.Helper()
	s := console(t, deps)
	b := newBrowser(t, s)
	_, secret := token(t, testenv.DB(t), name)
	require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)
	return b
}

func TestAttentionListsEveryKindAndFilters(t *testing.T) {
	db := testenv.DB(t)
	one, two := attentiontest.Seed(t, db), attentiontest.Seed(t, db)
	b := signedIn(t, support.Deps{}, uniqueName("Lister"))

	page := b.page("/attention?org=" + one.ID.String())
	want, err := attention.List(t.Context(), db, attention.Filter{Organization: one.ID})
	require.NoError(t, err)
	require.Len(t, want.Items, len(attention.Kinds))
	assert.Equal(t, keysOf(want.Items), listed(page), "every kind of the organization's, newest first")
	for _, it := range want.Items {
		assert.Contains(t, page, it.Reason.Text(i18n.EN), it.Kind)
		assert.Contains(t, page, i18n.T(i18n.EN, it.Kind.Label()), it.Kind)
		assert.Contains(t, page, "<code>"+it.Status+"</code>", it.Kind)
	}
	assert.Contains(t, page, `<a href="/organizations/`+one.ID.String()+`">`+one.Name+`</a>`)
	assert.Contains(t, page, `<option value="`+one.ID.String()+`" selected>`+one.Name+`</option>`, "the filter shows what it keeps")
	assert.Contains(t, page, `<option value="`+two.ID.String()+`">`+two.Name+`</option>`)
	assert.Contains(t, page, `<option value="report_failed">Failed reports</option>`, "kinds by their labels")
	assert.Contains(t, page, `<label for="org">Organization</label>`)
	assert.Contains(t, page, `<option value="">All kinds</option>`)
	assert.Contains(t, page, "<caption>")
	assert.NotContains(t, page, `<a href="/organizations/`+two.ID.String(), "no other organization's item")
	assert.NotContains(t, page, `id="older"`, "one page")

	page = b.page("/attention?org=" + one.ID.String() + "&kind=report_failed")
	assert.Equal(t, []string{"report_failed/" + one.Listed[attention.ReportFailed].String()}, listed(page))
	assert.Contains(t, page, `<option value="report_failed" selected>Failed reports</option>`)

	page = b.page("/attention?kind=report_failed")
	assert.Subset(t, listed(page), []string{
		"report_failed/" + one.Listed[attention.ReportFailed].String(), "report_failed/" + two.Listed[attention.ReportFailed].String(),
	}, "every organization's")

	empty := attentiontest.NewOrg(t, db)
	assert.Contains(t, b.page("/attention?org="+empty.ID.String()), "Nothing that matches this filter needs a person now.")

	for _, bad := range []string{"org=acme", "kind=everything", "after=yesterday"} {
		res := b.get("/attention?" + bad)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, bad)
		assert.Contains(t, body(t, res), "This filter names no organization, kind or page", bad)
	}

	b.header.Set("Accept-Language", "pl")
	page = b.page("/attention?org=" + one.ID.String())
	assert.Contains(t, page, "Nieudane raporty")
	assert.Contains(t, page, `<option value="">Wszystkie organizacje</option>`)
	assert.Contains(t, page, "Czeka na podgląd")
}

// The list goes back a page at a time by its cursor: the older page
// starts after the last item of the one before, and links back to the
// newest, keeping the filter.
func TestAttentionPages(t *testing.T) {
	db := testenv.DB(t)
	for range attention.DefaultLimit/len(attention.Kinds) + 1 {
		attentiontest.Seed(t, db)
	}
	b := signedIn(t, support.Deps{}, uniqueName("Pager"))
	first, err := attention.List(t.Context(), db, attention.Filter{})
	require.NoError(t, err)
	require.NotNil(t, first.Next, "more than a page")

	page := b.page("/attention")
	assert.Equal(t, keysOf(first.Items), listed(page))
	older := regexp.MustCompile(`<a href="([^"]+)" rel="next" id="older">`).FindStringSubmatch(page)
	require.NotNil(t, older)
	assert.NotContains(t, page, ">Newest<", "the first page")
	next, err := url.Parse(older[1])
	require.NoError(t, err)
	assert.Equal(t, first.Next.String(), next.Query().Get("after"))

	second, err := attention.List(t.Context(), db, attention.Filter{After: first.Next})
	require.NoError(t, err)
	page = b.page(next.RequestURI())
	assert.Equal(t, keysOf(second.Items), listed(page))
	assert.Contains(t, page, `<a href="/attention">Newest</a>`)

	org := uuid.NewString()
	page = b.page("/attention?kind=report_failed&org=" + org + "&after=" + url.QueryEscape(first.Next.String()))
	assert.Contains(t, page, `<a href="/attention?kind=report_failed&amp;org=`+org+`">Newest</a>`, "the filter is kept")
}
