package accounts_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/access"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// audits counts the operator's entries for one operation on one record.
func audits(t *testing.T, db *gorm.DB, operation string, recordID uuid.UUID) int {
	t.Helper()
	var n int
	require.NoError(t, db.Raw(`SELECT count(*) FROM audit_log WHERE operation = ? AND record_id = ? AND actor_kind = 'operator'`,
		operation, recordID).Scan(&n).Error)
	return n
}

// A policy change touches only the policies given, is a new revision and
// is audited; no change is neither.
func TestOperatorSetPolicy(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	org, err := accounts.OperatorCreateOrganization(ctx, db, "Policy", "policy-"+uuid.NewString()[:8])
	require.NoError(t, err)
	yes := true

	got, err := accounts.OperatorSetPolicy(ctx, db, org.ID, accounts.PolicyChange{IPAllowList: []string{"10.0.0.0/8", " 192.168.1.1"}, RequireMFA: &yes})
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.0/8", "192.168.1.1/32"}, []string(got.IPAllowList))
	assert.True(t, got.RequireMFA)
	assert.False(t, got.DualControl)

	got, err = accounts.OperatorSetPolicy(ctx, db, org.ID, accounts.PolicyChange{DualControl: &yes})
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.0/8", "192.168.1.1/32"}, []string(got.IPAllowList), "left as it was")
	assert.True(t, got.RequireMFA, "left as it was")
	assert.True(t, got.DualControl)

	_, err = accounts.OperatorSetPolicy(ctx, db, org.ID, accounts.PolicyChange{})
	require.NoError(t, err)
	_, err = accounts.OperatorSetPolicy(ctx, db, org.ID, accounts.PolicyChange{IPAllowList: []string{"not-an-address"}})
	assert.ErrorContains(t, err, `invalid address "not-an-address"`)

	var stored accounts.Organization
	require.NoError(t, db.First(&stored, "id = ?", org.ID).Error)
	assert.Equal(t, 3, stored.Revision, "two changes, two revisions")
	assert.Equal(t, 2, audits(t, db, "admin.org.policy", org.ID))

	got, err = accounts.OperatorSetPolicy(ctx, db, org.ID, accounts.PolicyChange{IPAllowList: []string{""}})
	require.NoError(t, err)
	assert.Empty(t, got.IPAllowList, "an empty list clears the allow-list")
}

// The operator is told what a failed command means: a record that
// exists already, one it refers to that does not, an organization that
// does not exist.
func TestOperatorErrors(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	slug := "errors-" + uuid.NewString()[:8]
	org, err := accounts.OperatorCreateOrganization(ctx, db, "Errors", slug)
	require.NoError(t, err)

	_, err = accounts.OperatorCreateOrganization(ctx, db, "Again", slug)
	assert.ErrorIs(t, err, accounts.ErrAlreadyExists)
	_, err = accounts.OperatorAddMember(ctx, db, accounts.Membership{OrganizationID: org.ID, UserID: uuid.New(), Role: access.Member})
	assert.ErrorIs(t, err, accounts.ErrReferenceMissing)

	missing := uuid.New()
	_, _, err = accounts.OperatorCreateKey(ctx, db, accounts.NewKey{OrganizationID: missing, UserID: uuid.New()})
	assert.ErrorIs(t, err, domain.ErrNotFound)
	assert.EqualError(t, err, "organization "+missing.String()+" does not exist")
	_, err = accounts.ListMembers(ctx, db, missing)
	assert.ErrorIs(t, err, domain.ErrNotFound)
	_, err = accounts.ListAPIKeys(ctx, db, missing)
	assert.ErrorIs(t, err, domain.ErrNotFound)
}

// Bootstrap leaves a key of a verified owner with every ability; the
// listing of keys never reads their hashes.
func TestBootstrapAndListAPIKeys(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	b, err := accounts.Bootstrap(ctx, db, accounts.BootstrapInput{Name: "Boot"})
	require.NoError(t, err)
	cred, err := accounts.LookupCredential(ctx, db, accounts.HashToken(b.APIKey))
	require.NoError(t, err)
	assert.Equal(t, b.OrganizationID, cred.OrganizationID)
	assert.Equal(t, b.UserID, cred.UserID)
	assert.True(t, cred.EmailVerified)
	assert.Equal(t, access.Owner, cred.Role)
	all, _ := access.ParseAbilities("all")
	assert.ElementsMatch(t, all, cred.Abilities)
	assert.Equal(t, 1, audits(t, db, "admin.bootstrap", cred.KeyID))

	second, _, err := accounts.OperatorCreateKey(ctx, db, accounts.NewKey{OrganizationID: b.OrganizationID, UserID: b.UserID, Name: "ci"})
	require.NoError(t, err)
	keys, err := accounts.ListAPIKeys(ctx, db, b.OrganizationID)
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Equal(t, []uuid.UUID{cred.KeyID, second.ID}, []uuid.UUID{keys[0].ID, keys[1].ID}, "oldest first")
	for _, k := range keys {
		assert.Empty(t, k.TokenHash)
	}

	revoked, err := accounts.OperatorRevokeKey(ctx, db, second.ID)
	require.NoError(t, err)
	assert.NotNil(t, revoked.RevokedAt)
	_, err = accounts.OperatorRevokeKey(ctx, db, uuid.New())
	assert.ErrorIs(t, err, accounts.ErrKeyNotFound)
}
