package support

import (
	"net/http"
	"time"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/webhooks"
)

// The Organizations pages are read-only, through the queries of `ppwr
// admin org list`, `user list --org`, `key list` and `webhook list`.

func (s *Server) organizations(w http.ResponseWriter, r *http.Request) {
	orgs, err := accounts.ListOrganizations(r.Context(), s.db)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.Render(w, r, http.StatusOK, "organizations", orgs)
}

// organizationPage is one organization with its members, keys and
// webhook endpoints. Keys and endpoints are copied into rows that hold no
// secret, so no template can show a token, a hash or a signing secret.
type organizationPage struct {
	Organization *accounts.Organization
	Members      []accounts.Member
	Keys         []keyRow
	Endpoints    []endpointRow
}

type keyRow struct {
	Name string
	// User is the e-mail of the key's user, or their id if they are no
	// longer a member.
	User      string
	Abilities []string
	CreatedAt time.Time
	RevokedAt *time.Time
}

type endpointRow struct {
	// URL is without its password.
	URL       string
	Events    []string
	AllEvents bool
	Status    string
	CreatedAt time.Time
	// Delivered says a delivery to it was attempted, so Streak means
	// something.
	Delivered bool
	Streak    webhooks.Streak
}

func (s *Server) organization(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.Fail(w, r, domain.ErrNotFound)
		return
	}
	ctx := r.Context()
	page := organizationPage{}
	if page.Organization, err = accounts.FindOrganization(ctx, s.db, id); err != nil {
		s.Fail(w, r, err)
		return
	}
	if page.Members, err = accounts.ListMembers(ctx, s.db, id); err != nil {
		s.Fail(w, r, err)
		return
	}
	keys, err := accounts.ListAPIKeys(ctx, s.db, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	emails := map[uuid.UUID]string{}
	for _, m := range page.Members {
		emails[m.ID] = m.Email
	}
	for _, k := range keys {
		user, ok := emails[k.UserID]
		if !ok {
			user = k.UserID.String()
		}
		page.Keys = append(page.Keys, keyRow{Name: k.Name, User: user, Abilities: k.Abilities, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt})
	}
	endpoints, err := webhooks.ListEndpoints(ctx, s.db, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	streaks, err := webhooks.Streaks(ctx, s.db, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	for _, e := range endpoints {
		all := len(e.Events) == 1 && e.Events[0] == webhooks.AllEvents
		streak, delivered := streaks[e.ID]
		page.Endpoints = append(page.Endpoints, endpointRow{URL: webhooks.RedactedURL(e.URL), Events: e.Events, AllEvents: all,
			Status: e.Status, CreatedAt: e.CreatedAt, Delivered: delivered, Streak: streak})
	}
	s.Render(w, r, http.StatusOK, "organization", page)
}
