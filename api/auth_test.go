package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/access"
	"ppwr/models"
)

// concretePath fills the organization and every other id of an operation.
func concretePath(op *Operation, orgID uuid.UUID) string {
	path := strings.Replace(op.Path, "{organizationId}", orgID.String(), 1)
	return pathParam.ReplaceAllStringFunc(path, func(string) string { return uuid.NewString() })
}

// requestFor builds a request that passes every check before
// authentication, so that only the key decides the answer.
func requestFor(op *Operation, path, token string) req {
	r := req{method: op.Method, path: path, token: token, headers: map[string]string{}}
	if op.IsWrite() {
		r.body = "{}"
	}
	if op.Idempotent {
		r.headers["Idempotency-Key"] = idemKey()
	}
	if len(op.Headers) > 0 {
		r.headers["If-Match"] = `"1"`
	}
	return r
}

func without[T ~string](all []T, drop T) []string {
	out := []string{}
	for _, v := range all {
		if v != drop {
			out = append(out, string(v))
		}
	}
	return out
}

// TestAuthorizationMatrix walks the whole operation table: every operation
// refuses a missing key, a key without its ability, a member without its
// permission and another organization's path, and admits a key that holds
// everything.
func TestAuthorizationMatrix(t *testing.T) {
	a := newTestAPI(t)
	full := a.newTenant(tenantSpec{})
	other := a.newTenant(tenantSpec{})
	require.GreaterOrEqual(t, len(a.server.operations), 180, "every operation of the spec is in the table")

	for i := range a.server.operations {
		op := &a.server.operations[i]
		t.Run(op.ID, func(t *testing.T) {
			path := concretePath(op, full.org)

			res := a.do(requestFor(op, path, ""))
			assert.Equal(t, http.StatusUnauthorized, res.Code, "without a key")
			assert.Equal(t, CodeUnauthenticated, res.errorCode())

			res = a.do(requestFor(op, path, full.token))
			refused := []int{401, 403, 405}
			if op.Handler == nil || len(op.PathParams()) == 1 {
				// Only a handler looking up a (random, so missing) record
				// may answer 404 past authorization.
				refused = append(refused, 404)
			}
			assert.NotContains(t, refused, res.Code, "a key holding everything passes authorization: %s", res.Body)
			if op.Handler == nil {
				assert.Equal(t, http.StatusNotImplemented, res.Code)
				assert.Equal(t, CodeNotImplemented, res.errorCode())
			}

			if op.Ability != "" {
				weak := a.addUser(full.org, tenantSpec{abilities: without(access.AllAbilities, op.Ability)})
				res = a.do(requestFor(op, path, weak.token))
				assert.Equal(t, http.StatusForbidden, res.Code, "without ability %s", op.Ability)
				assert.Equal(t, CodeMissingAbility, res.errorCode())
			}
			if op.Permission != "" {
				member := a.addUser(full.org, tenantSpec{role: access.Member, permissions: without(access.AllPermissions, op.Permission)})
				res = a.do(requestFor(op, path, member.token))
				assert.Equal(t, http.StatusForbidden, res.Code, "without permission %s", op.Permission)
				assert.Equal(t, CodeMissingPermission, res.errorCode())
			}
			if op.OrgScoped() {
				res = a.do(requestFor(op, concretePath(op, other.org), full.token))
				assert.Equal(t, http.StatusNotFound, res.Code, "another organization's path")
				assert.Equal(t, CodeNotFound, res.errorCode())
			}
		})
	}
}

// Each condition of the spec's rule 3 is checked on its own: all must hold
// at once, and an owner role does not bypass a missing ability.
func TestAuthorizationPolicies(t *testing.T) {
	a := newTestAPI(t)
	dictionaries := func(tn tenant) *response {
		return a.do(req{method: http.MethodGet, path: tn.orgPath("/dictionaries"), token: tn.token})
	}

	owner := a.newTenant(tenantSpec{})
	assert.Equal(t, http.StatusOK, dictionaries(owner).Code)

	ownerWithoutAbility := a.addUser(owner.org, tenantSpec{role: access.Owner, abilities: []string{"flows:read"}})
	assert.Equal(t, CodeMissingAbility, dictionaries(ownerWithoutAbility).errorCode(), "the owner role does not bypass abilities")

	memberWithPermission := a.addUser(owner.org, tenantSpec{role: access.Member, permissions: []string{"catalog.view"}})
	assert.Equal(t, http.StatusOK, dictionaries(memberWithPermission).Code, "a member holds what it is given")

	assert.Equal(t, CodeEmailUnverified, dictionaries(a.addUser(owner.org, tenantSpec{unverified: true})).errorCode())
	assert.Equal(t, CodeMembershipInactive, dictionaries(a.addUser(owner.org, tenantSpec{inactive: true})).errorCode())

	// A key of a user without any membership of its organization.
	user, err := models.CreateUser(t.Context(), a.server.DB, uuid.NewString()+"@example.test", "", true, false)
	require.NoError(t, err)
	_, stray, err := models.CreateAPIKey(t.Context(), a.server.DB, owner.org, user.ID, "", []string{"catalog:read"})
	require.NoError(t, err)
	assert.Equal(t, CodeMembershipInactive, dictionaries(tenant{org: owner.org, token: stray}).errorCode())

	// MFA policy: refused until the organization's rule is met by the user.
	withMFA := a.addUser(owner.org, tenantSpec{userMFA: true})
	require.NoError(t, a.server.DB.Model(&models.Organization{}).Where("id = ?", owner.org).Update("require_mfa", true).Error)
	assert.Equal(t, CodeMFARequired, dictionaries(owner).errorCode())
	assert.Equal(t, http.StatusOK, dictionaries(withMFA).Code)

	// IP allow-list: httptest requests come from 192.0.2.1.
	require.NoError(t, a.server.DB.Exec(`UPDATE organizations SET ip_allow_list = '{10.0.0.0/8}' WHERE id = ?`, owner.org).Error)
	assert.Equal(t, CodeIPNotAllowed, dictionaries(withMFA).errorCode())
	require.NoError(t, a.server.DB.Exec(`UPDATE organizations SET ip_allow_list = '{10.0.0.0/8,192.0.2.0/24}' WHERE id = ?`, owner.org).Error)
	assert.Equal(t, http.StatusOK, dictionaries(withMFA).Code)

	require.NoError(t, a.server.DB.Model(&models.Organization{}).Where("id = ?", owner.org).Update("status", models.OrganizationSuspended).Error)
	assert.Equal(t, CodeOrganizationSuspended, dictionaries(withMFA).errorCode())
}

func TestAuthenticationFailures(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	path := "/organizations"
	for name, header := range map[string]string{
		"missing":   "",
		"no scheme": tn.token,
		"basic":     "Basic " + tn.token,
		"malformed": "Bearer not-a-ppwr-key",
		"unknown":   "Bearer ppwr_" + strings.Repeat("A", 43),
	} {
		res := a.do(req{method: http.MethodGet, path: path, headers: map[string]string{"Authorization": header}})
		assert.Equal(t, http.StatusUnauthorized, res.Code, name)
		assert.Equal(t, CodeUnauthenticated, res.errorCode(), name)
		assert.Equal(t, `Bearer realm="ppwr"`, res.Header().Get("WWW-Authenticate"), name)
	}

	assert.Equal(t, http.StatusOK, a.do(req{method: http.MethodGet, path: path, token: tn.token}).Code)
	_, err := models.RevokeAPIKey(t.Context(), a.server.DB, tn.keyID)
	require.NoError(t, err)
	res := a.do(req{method: http.MethodGet, path: path, token: tn.token})
	assert.Equal(t, http.StatusUnauthorized, res.Code, "a revoked key is refused at once")
}

func TestOrganizationsListsTheKeysOrganization(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{abilities: []string{}}) // no ability is needed
	a.newTenant(tenantSpec{})

	res := a.do(req{method: http.MethodGet, path: "/organizations", token: tn.token})
	require.Equal(t, http.StatusOK, res.Code)
	data := res.body["data"].([]any)
	require.Len(t, data, 1)
	org := data[0].(map[string]any)
	assert.Equal(t, tn.org.String(), org["id"])
	assert.Equal(t, "active", org["status"])
	assert.NotEmpty(t, org["slug"])
	assert.Equal(t, res.Header().Get("X-Request-ID"), res.body["requestId"])
	assert.NotContains(t, res.body, "links", "the organization list is not paginated")
}

func TestUnknownPathsAndMethods(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})

	res := a.do(req{method: http.MethodDelete, path: tn.orgPath("/catalog-items"), token: tn.token, undocumented: true})
	assert.Equal(t, http.StatusMethodNotAllowed, res.Code)
	assert.Equal(t, CodeMethodNotAllowed, res.errorCode())
	allowed := strings.Split(res.Header().Get("Allow"), ", ")
	assert.True(t, slices.Contains(allowed, "GET") && slices.Contains(allowed, "POST"), "Allow lists the spec's methods: %v", allowed)

	res = a.do(req{method: http.MethodGet, path: "/no-such-thing", token: tn.token, undocumented: true})
	assert.Equal(t, http.StatusNotFound, res.Code)
	assert.Equal(t, CodeNotFound, res.errorCode())
}
