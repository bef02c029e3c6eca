package support

import (
	"net/http"
	"net/url"

	"github.com/google/uuid"

	"ppwr/domain/accounts"
	"ppwr/domain/attention"
	"ppwr/internal/i18n"
)

// The Attention page lists the work that needs a person across
// organizations, newest first (attention.List), a page at a time, with a
// filter by organization and kind; each item links to its record's page
// (record.go).

// attentionPage is what the attention template shows.
type attentionPage struct {
	// Filters are the selects of the filter: organization, then kind.
	Filters []filterSelect
	Items   []attention.Item
	// Filtered is whether the list is narrowed to an organization or a
	// kind, to word an empty list.
	Filtered bool
	// Older links to the next page, Newest back to the first; each empty
	// where there is none.
	Older, Newest string
}

// filterSelect is a select of the filter, in the page's language.
type filterSelect struct {
	// Name is the query parameter's, and the select's id.
	Name  string
	Label string
	// All is the label of the first option, which filters nothing.
	All     string
	Options []option
}

// option is an option of a filter's select.
type option struct {
	Value, Label string
	Selected     bool
}

func (s *Server) attention(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := attentionFilter(q)
	if err != nil {
		s.renderError(w, r, http.StatusBadRequest, "support.attention.bad_filter")
		return
	}
	ctx := r.Context()
	list, err := attention.List(ctx, s.db, f)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	orgs, err := accounts.ListOrganizations(ctx, s.db)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	lang := Locale(r)
	byOrg := filterSelect{Name: "org", Label: i18n.T(lang, "support.attention.organization"), All: i18n.T(lang, "support.attention.all_organizations")}
	for _, o := range orgs {
		byOrg.Options = append(byOrg.Options, option{Value: o.ID.String(), Label: o.Name, Selected: o.ID == f.Organization})
	}
	byKind := filterSelect{Name: "kind", Label: i18n.T(lang, "support.attention.kind"), All: i18n.T(lang, "support.attention.all_kinds")}
	for _, k := range attention.Kinds {
		byKind.Options = append(byKind.Options, option{Value: string(k), Label: i18n.T(lang, k.Label()), Selected: q.Get("kind") == string(k)})
	}
	page := attentionPage{Filters: []filterSelect{byOrg, byKind}, Items: list.Items, Filtered: q.Get("org") != "" || q.Get("kind") != ""}
	// The links keep the filter as it was asked for.
	link := url.Values{}
	for _, name := range []string{"org", "kind"} {
		if v := q.Get(name); v != "" {
			link.Set(name, v)
		}
	}
	if f.After != nil {
		page.Newest = attentionLink(link)
	}
	if list.Next != nil {
		link.Set("after", list.Next.String())
		page.Older = attentionLink(link)
	}
	s.Render(w, r, http.StatusOK, "attention", page)
}

// attentionLink is the attention page with the query q.
func attentionLink(q url.Values) string {
	if len(q) == 0 {
		return "/attention"
	}
	return "/attention?" + q.Encode()
}

// attentionFilter reads the filter of the query: org (an organization's
// id), kind and after (the cursor of the page before), each optional.
func attentionFilter(q url.Values) (attention.Filter, error) {
	var f attention.Filter
	if v := q.Get("org"); v != "" {
		id, err := uuid.Parse(v)
		if err != nil {
			return f, err
		}
		f.Organization = id
	}
	if v := q.Get("kind"); v != "" {
		k, err := attention.ParseKind(v)
		if err != nil {
			return f, err
		}
		f.Kinds = []attention.Kind{k}
	}
	if v := q.Get("after"); v != "" {
		c, err := attention.ParseCursor(v)
		if err != nil {
			return f, err
		}
		f.After = &c
	}
	return f, nil
}
