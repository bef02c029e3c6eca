package access

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoleGrants(t *testing.T) {
	assert.True(t, Owner.Grants(nil, AuditView))
	assert.True(t, Admin.Grants(nil, DocumentsRevoke))
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
