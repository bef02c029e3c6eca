package api_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain/accounts"
	"ppwr/internal/access"
)

// concretePath fills the organization and every other id of an operation.
func concretePath(op *kit.Operation, orgID uuid.UUID) string {
	path := strings.Replace(op.Path, "{organizationId}", orgID.String(), 1)
	return regexp.MustCompile(`\{[A-Za-z]+\}`).ReplaceAllStringFunc(path, func(string) string { return uuid.NewString() })
}

// requestFor builds a request that passes every check before
// authentication, so that only the key decides the answer.
func requestFor(op *kit.Operation, path, token string) apitest.Req {
	r := apitest.Req{Method: op.Method, Path: path, Token: token, Headers: map[string]string{}}
	if op.IsWrite() {
		r.Body = "{}"
	}
	if op.Idempotent {
		r.Headers["Idempotency-Key"] = apitest.IdemKey()
	}
	if len(op.Headers) > 0 {
		r.Headers["If-Match"] = `"1"`
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
	a := apitest.New(t)
	full := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	require.GreaterOrEqual(t, len(a.Server.Operations()), 180, "every operation of the spec is in the table")

	ops := a.Server.Operations()
	for i := range ops {
		op := &ops[i]
		t.Run(op.ID, func(t *testing.T) {
			path := concretePath(op, full.Org)

			res := a.Do(requestFor(op, path, ""))
			assert.Equal(t, http.StatusUnauthorized, res.Code, "without a key")
			assert.Equal(t, kit.CodeUnauthenticated, res.ErrorCode())

			res = a.Do(requestFor(op, path, full.Token))
			refused := []int{401, 403, 405}
			if len(op.PathParams()) == 1 {
				// Only a handler looking up a (random, so missing) record
				// may answer 404 past authorization.
				refused = append(refused, 404)
			}
			assert.NotContains(t, refused, res.Code, "a key holding everything passes authorization: %s", res.Body)

			if op.Ability != "" {
				weak := a.AddUser(full.Org, apitest.TenantSpec{Abilities: without(access.AllAbilities, op.Ability)})
				res = a.Do(requestFor(op, path, weak.Token))
				assert.Equal(t, http.StatusForbidden, res.Code, "without ability %s", op.Ability)
				assert.Equal(t, kit.CodeMissingAbility, res.ErrorCode())
			}
			if op.Permission != "" {
				member := a.AddUser(full.Org, apitest.TenantSpec{Role: access.Member, Permissions: without(access.AllPermissions, op.Permission)})
				res = a.Do(requestFor(op, path, member.Token))
				assert.Equal(t, http.StatusForbidden, res.Code, "without permission %s", op.Permission)
				assert.Equal(t, kit.CodeMissingPermission, res.ErrorCode())
			}
			if op.OrgScoped() {
				res = a.Do(requestFor(op, concretePath(op, other.Org), full.Token))
				assert.Equal(t, http.StatusNotFound, res.Code, "another organization's path")
				assert.Equal(t, kit.CodeNotFound, res.ErrorCode())
			}
		})
	}
}

// Each condition of the spec's rule 3 is checked on its own: all must hold
// at once, and an owner role does not bypass a missing ability.
func TestAuthorizationPolicies(t *testing.T) {
	a := apitest.New(t)
	dictionaries := func(tn apitest.Tenant) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/dictionaries"), Token: tn.Token})
	}

	owner := a.NewTenant(apitest.TenantSpec{})
	assert.Equal(t, http.StatusOK, dictionaries(owner).Code)

	ownerWithoutAbility := a.AddUser(owner.Org, apitest.TenantSpec{Role: access.Owner, Abilities: []string{"flows:read"}})
	assert.Equal(t, kit.CodeMissingAbility, dictionaries(ownerWithoutAbility).ErrorCode(), "the owner role does not bypass abilities")

	memberWithPermission := a.AddUser(owner.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{"catalog.view"}})
	assert.Equal(t, http.StatusOK, dictionaries(memberWithPermission).Code, "a member holds what it is given")

	assert.Equal(t, kit.CodeEmailUnverified, dictionaries(a.AddUser(owner.Org, apitest.TenantSpec{Unverified: true})).ErrorCode())
	assert.Equal(t, kit.CodeMembershipInactive, dictionaries(a.AddUser(owner.Org, apitest.TenantSpec{Inactive: true})).ErrorCode())

	// A key of a user without any membership of its organization.
	user, err := accounts.CreateUser(t.Context(), a.DB, uuid.NewString()+"@example.test", "", true, false)
	require.NoError(t, err)
	_, stray, err := accounts.CreateAPIKey(t.Context(), a.DB, owner.Org, user.ID, "", []string{"catalog:read"})
	require.NoError(t, err)
	assert.Equal(t, kit.CodeMembershipInactive, dictionaries(apitest.Tenant{Org: owner.Org, Token: stray}).ErrorCode())

	// MFA policy: refused until the organization's rule is met by the user.
	withMFA := a.AddUser(owner.Org, apitest.TenantSpec{UserMFA: true})
	require.NoError(t, a.DB.Model(&accounts.Organization{}).Where("id = ?", owner.Org).Update("require_mfa", true).Error)
	assert.Equal(t, kit.CodeMFARequired, dictionaries(owner).ErrorCode())
	assert.Equal(t, http.StatusOK, dictionaries(withMFA).Code)

	// IP allow-list: httptest requests come from 192.0.2.1.
	require.NoError(t, a.DB.Exec(`UPDATE organizations SET ip_allow_list = '{10.0.0.0/8}' WHERE id = ?`, owner.Org).Error)
	assert.Equal(t, kit.CodeIPNotAllowed, dictionaries(withMFA).ErrorCode())
	require.NoError(t, a.DB.Exec(`UPDATE organizations SET ip_allow_list = '{10.0.0.0/8,192.0.2.0/24}' WHERE id = ?`, owner.Org).Error)
	assert.Equal(t, http.StatusOK, dictionaries(withMFA).Code)

	require.NoError(t, a.DB.Model(&accounts.Organization{}).Where("id = ?", owner.Org).Update("status", accounts.OrganizationSuspended).Error)
	assert.Equal(t, kit.CodeOrganizationSuspended, dictionaries(withMFA).ErrorCode())
}

func TestAuthenticationFailures(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	path := "/organizations"
	for name, header := range map[string]string{
		"missing":   "",
		"no scheme": tn.Token,
		"basic":     "Basic " + tn.Token,
		"malformed": "Bearer not-a-ppwr-key",
		"unknown":   "Bearer ppwr_" + strings.Repeat("A", 43),
	} {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: path, Headers: map[string]string{"Authorization": header}})
		assert.Equal(t, http.StatusUnauthorized, res.Code, name)
		assert.Equal(t, kit.CodeUnauthenticated, res.ErrorCode(), name)
		assert.Equal(t, `Bearer realm="ppwr"`, res.Header().Get("WWW-Authenticate"), name)
	}

	assert.Equal(t, http.StatusOK, a.Do(apitest.Req{Method: http.MethodGet, Path: path, Token: tn.Token}).Code)
	_, err := accounts.RevokeAPIKey(t.Context(), a.DB, tn.KeyID)
	require.NoError(t, err)
	res := a.Do(apitest.Req{Method: http.MethodGet, Path: path, Token: tn.Token})
	assert.Equal(t, http.StatusUnauthorized, res.Code, "a revoked key is refused at once")
}

func TestOrganizationsListsTheKeysOrganization(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{Abilities: []string{}}) // no ability is needed
	a.NewTenant(apitest.TenantSpec{})

	res := a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations", Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code)
	data := res.JSON["data"].([]any)
	require.Len(t, data, 1)
	org := data[0].(map[string]any)
	assert.Equal(t, tn.Org.String(), org["id"])
	assert.Equal(t, "active", org["status"])
	assert.NotEmpty(t, org["slug"])
	assert.Equal(t, res.Header().Get("X-Request-ID"), res.JSON["requestId"])
	assert.NotContains(t, res.JSON, "links", "the organization list is not paginated")
}

func TestUnknownPathsAndMethods(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})

	res := a.Do(apitest.Req{Method: http.MethodDelete, Path: tn.Path("/catalog-items"), Token: tn.Token, Undocumented: true})
	assert.Equal(t, http.StatusMethodNotAllowed, res.Code)
	assert.Equal(t, kit.CodeMethodNotAllowed, res.ErrorCode())
	allowed := strings.Split(res.Header().Get("Allow"), ", ")
	assert.True(t, slices.Contains(allowed, "GET") && slices.Contains(allowed, "POST"), "Allow lists the spec's methods: %v", allowed)

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: "/no-such-thing", Token: tn.Token, Undocumented: true})
	assert.Equal(t, http.StatusNotFound, res.Code)
	assert.Equal(t, kit.CodeNotFound, res.ErrorCode())
}
