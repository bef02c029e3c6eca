package access

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoleGrants(t *testing.T) {
	assert.True(t, Owner.Grants(nil, AuditView))
	assert.True(t, Admin.Grants(nil, DocumentsRevoke))
	assert.True(t, Owner.Grants(nil, WebhooksManagePerm), "owners and admins manage webhooks")
	assert.False(t, Member.Grants([]string{"catalog.view"}, WebhooksManagePerm), "members only when given it")
	assert.False(t, Member.Grants([]string{"catalog.view"}, CatalogCreate))
	assert.True(t, Member.Grants([]string{"catalog.view", "catalog.create"}, CatalogCreate))
}

func TestParseAbilities(t *testing.T) {
	all, err := ParseAbilities("all")
	require.NoError(t, err)
	assert.Len(t, all, len(AllAbilities))

	some, err := ParseAbilities("catalog:read, catalog:read,flows:write")
	require.NoError(t, err)
	assert.Equal(t, []string{"catalog:read", "flows:write"}, some)

	_, err = ParseAbilities("catalog:reed")
	assert.ErrorContains(t, err, `"catalog:reed"`)
}

func TestParsePermissionsAndRole(t *testing.T) {
	_, err := ParsePermissions("catalog.view,catalog:view")
	assert.Error(t, err)
	_, err = ParseRole("superuser")
	assert.Error(t, err)
	r, err := ParseRole("member")
	require.NoError(t, err)
	assert.Equal(t, Member, r)
}

func TestCredentialAllowsIP(t *testing.T) {
	open := &Credential{}
	assert.True(t, open.AllowsIP("203.0.113.9"), "no list: any address")
	listed := &Credential{IPAllowList: []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32"}}
	assert.True(t, listed.AllowsIP("10.1.2.3"))
	assert.True(t, listed.AllowsIP("192.0.2.7"))
	assert.True(t, listed.AllowsIP("::ffff:10.0.0.1"), "IPv4-mapped addresses match their IPv4 prefix")
	assert.True(t, listed.AllowsIP("2001:db8::1"))
	assert.False(t, listed.AllowsIP("192.0.2.8"))
	assert.False(t, listed.AllowsIP("not an ip"))
}
