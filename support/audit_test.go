package support_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
	"ppwr/support"
)

// A page's action runs the operator's domain command with the request's
// context, and its audit entry names the person signed in, whichever way
// the command writes it (domain.AuditOperator, or a unit of work of the
// operator).
func TestActionsAreAuditedUnderThePersonsName(t *testing.T) {
	db := testenv.DB(t)
	boot, err := accounts.Bootstrap(t.Context(), db, accounts.BootstrapInput{Name: uniqueName("Audited")})
	require.NoError(t, err)
	hook, err := webhooks.OperatorAddEndpoint(t.Context(), db, webhooks.NewEndpoint{
		OrganizationID: boot.OrganizationID, URL: "https://hooks.example.test/audited", Events: []string{webhooks.AllEvents},
	})
	require.NoError(t, err)

	s := console(t, support.Deps{})
	s.Page("POST /probe/actions", func(w http.ResponseWriter, r *http.Request) {
		mfa := true
		if _, err := accounts.OperatorSetPolicy(r.Context(), db, boot.OrganizationID, accounts.PolicyChange{RequireMFA: &mfa}); err != nil {
			s.Fail(w, r, err)
			return
		}
		if _, err := webhooks.OperatorDisableEndpoint(r.Context(), db, hook.ID); err != nil {
			s.Fail(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	name := uniqueName("Ines")
	_, secret := token(t, db, name)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.signIn(secret).StatusCode)
	require.Equal(t, http.StatusNoContent, b.post("/probe/actions", url.Values{"csrf": {b.csrf()}}).StatusCode)

	var entries []domain.AuditEntry
	require.NoError(t, db.Where("organization_id = ? AND operation IN ?", boot.OrganizationID, []string{"admin.org.policy", "admin.webhook.disable"}).
		Order("id").Find(&entries).Error)
	require.Len(t, entries, 2)
	for _, e := range entries {
		assert.Equal(t, domain.ActorOperator, e.ActorKind, e.Operation)
		assert.Equal(t, name, e.ActorName, e.Operation)
	}
	var bootstrap domain.AuditEntry
	require.NoError(t, db.Take(&bootstrap, "organization_id = ? AND operation = ?", boot.OrganizationID, "admin.bootstrap").Error)
	assert.Empty(t, bootstrap.ActorName, "a command run without a name records none")
}
