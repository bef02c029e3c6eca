package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain/accounts"
	"ppwr/internal/access"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// runAdmin runs `ppwr admin <args>` and returns its stdout and its stderr,
// which holds the slog records (GORM's log among them) too, as main sends
// them there.
func runAdmin(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	t.Setenv("DATABASE_URL", testenv.DatabaseURL(t))
	var out, errOut bytes.Buffer
	// Restoring slog's default does not restore the log package's output,
	// which SetDefault redirected.
	prevSlog, prevLog, prevFlags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&errOut, nil)))
	defer func() { slog.SetDefault(prevSlog); log.SetOutput(prevLog); log.SetFlags(prevFlags) }()
	root := rootCommand()
	root.SetArgs(append([]string{"admin"}, args...))
	root.SetOut(&out)
	root.SetErr(&errOut)
	err = root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// admin runs `ppwr admin <args> --json` the way a script would and returns
// the single JSON object the contract promises on stdout.
func admin(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	out, _, err := runAdmin(t, append(args, "--json")...)
	return oneObject(t, out), err
}

func oneObject(t *testing.T, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var obj map[string]any
	require.NoError(t, dec.Decode(&obj), "stdout is not a JSON object: %q", out)
	rest, _ := io.ReadAll(dec.Buffered())
	require.Empty(t, strings.TrimSpace(string(rest)), "stdout holds more than one JSON value: %q", out)
	return obj
}

// mustAdmin is admin for commands that must succeed.
func mustAdmin(t *testing.T, args ...string) map[string]any {
	t.Helper()
	obj, err := admin(t, args...)
	require.NoError(t, err, "output: %v", obj)
	require.NotContains(t, obj, "error")
	return obj
}

func str(t *testing.T, obj map[string]any, key string) string {
	t.Helper()
	v, ok := obj[key].(string)
	require.True(t, ok, "%q is not a string in %v", key, obj)
	return v
}

// operatorAudits counts the operator's audit entries for one operation on
// one record, each naming the login that ran the command.
func operatorAudits(t *testing.T, db *gorm.DB, orgID, operation, recordID string) int {
	t.Helper()
	login := operatorLogin()
	require.NotEmpty(t, login, "the test runs as a user with a name")
	var n int
	require.NoError(t, db.Raw(`SELECT count(*) FROM audit_log
WHERE organization_id = ? AND operation = ? AND record_id = ? AND actor_kind = 'operator' AND actor_name = ?`,
		orgID, operation, recordID, login).Scan(&n).Error)
	return n
}

func TestAdminBootstrap(t *testing.T) {
	db := testenv.DB(t)
	obj := mustAdmin(t, "bootstrap")

	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"organizationId", "userId", "apiKey"}, keys)
	orgID, userID, token := str(t, obj, "organizationId"), str(t, obj, "userId"), str(t, obj, "apiKey")
	assert.True(t, accounts.WellFormedToken(token), "token %q", token)

	// The key works for the owner: verified e-mail, active owner membership
	// and every ability.
	cred, err := accounts.LookupCredential(context.Background(), db, accounts.HashToken(token))
	require.NoError(t, err)
	assert.Equal(t, orgID, cred.OrganizationID.String())
	assert.Equal(t, userID, cred.UserID.String())
	assert.True(t, cred.EmailVerified)
	assert.True(t, cred.MembershipActive)
	assert.EqualValues(t, "owner", cred.Role)
	assert.Len(t, cred.Abilities, len(access.AllAbilities), "every ability, the extensions' among them")
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.bootstrap", cred.KeyID.String()))
}

func TestAdminOrgCreateAndPolicy(t *testing.T) {
	db := testenv.DB(t)
	slug := "acme-" + uuid.NewString()[:8]
	org := mustAdmin(t, "org", "create", "--name", "Acme Sp. z o.o.", "--slug", slug)
	orgID := str(t, org, "id")
	assert.Equal(t, slug, org["slug"])
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.org.create", orgID))

	pol := mustAdmin(t, "org", "policy", "--org", orgID, "--ip-allow", "10.0.0.0/8,192.168.1.1", "--require-mfa=true")
	assert.Equal(t, []any{"10.0.0.0/8", "192.168.1.1/32"}, pol["ipAllowList"])
	assert.Equal(t, true, pol["requireMfa"])
	assert.Equal(t, false, pol["dualControl"])

	// Only the flag given changes; the allow-list and MFA stay as set.
	pol = mustAdmin(t, "org", "policy", "--org", orgID, "--dual-control=true")
	assert.Equal(t, []any{"10.0.0.0/8", "192.168.1.1/32"}, pol["ipAllowList"])
	assert.Equal(t, true, pol["requireMfa"])
	assert.Equal(t, true, pol["dualControl"])

	var stored accounts.Organization
	require.NoError(t, db.First(&stored, "id = ?", orgID).Error)
	assert.Equal(t, []string{"10.0.0.0/8", "192.168.1.1/32"}, []string(stored.IPAllowList))
	assert.True(t, stored.RequireMFA)
	assert.True(t, stored.DualControl)
	assert.Equal(t, 3, stored.Revision, "each policy change is a new revision")
	assert.Equal(t, 2, operatorAudits(t, db, orgID, "admin.org.policy", orgID))

	pol = mustAdmin(t, "org", "policy", "--org", orgID, "--ip-allow", "")
	assert.Equal(t, []any{}, pol["ipAllowList"], "an empty list clears the allow-list")
}

func TestAdminUserMemberAndKey(t *testing.T) {
	db := testenv.DB(t)
	suffix := uuid.NewString()[:8]
	orgID := str(t, mustAdmin(t, "org", "create", "--name", "Members Test", "--slug", "members-"+suffix), "id")

	user := mustAdmin(t, "user", "create", "--email", "member-"+suffix+"@example.test", "--verified=false", "--mfa=true")
	userID := str(t, user, "id")
	assert.Equal(t, false, user["emailVerified"])
	assert.Equal(t, true, user["mfa"])
	var stored accounts.User
	require.NoError(t, db.First(&stored, "id = ?", userID).Error)
	assert.Nil(t, stored.EmailVerifiedAt)
	assert.True(t, stored.MFAEnabled)

	m := mustAdmin(t, "member", "add", "--org", orgID, "--user", userID, "--role", "member", "--permissions", "catalog.view,catalog.create")
	memberID := str(t, m, "id")
	assert.Equal(t, "member", m["role"])
	assert.Equal(t, []any{"catalog.view", "catalog.create"}, m["permissions"])
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.member.add", memberID))

	for _, bad := range [][]string{
		{"member", "add", "--org", orgID, "--user", userID, "--role", "member", "--permissions", "catalog.view,catalog.fly"},
		{"member", "add", "--org", orgID, "--user", userID, "--role", "superuser"},
		{"key", "create", "--org", orgID, "--user", userID, "--abilities", "catalog:fly"},
	} {
		obj, err := admin(t, bad...)
		assert.Error(t, err, "%v", bad)
		e, ok := obj["error"].(map[string]any)
		require.True(t, ok, "error object for %v: %v", bad, obj)
		assert.NotEmpty(t, e["message"])
		assert.Len(t, obj, 1)
	}
	// The rejected change left the membership as it was.
	var perms []string
	require.NoError(t, db.Raw(`SELECT unnest(permissions) FROM memberships WHERE id = ?`, memberID).Scan(&perms).Error)
	assert.Equal(t, []string{"catalog.view", "catalog.create"}, perms)

	key := mustAdmin(t, "key", "create", "--org", orgID, "--user", userID, "--abilities", "catalog:read")
	keyID, token := str(t, key, "id"), str(t, key, "token")
	assert.True(t, strings.HasPrefix(token, "ppwr_"), "token %q", token)
	assert.Equal(t, []any{"catalog:read"}, key["abilities"])
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.key.create", keyID))

	// Keys are stored only as a hash: no column of the row, in any
	// representation, holds the token.
	var row map[string]any
	require.NoError(t, db.Raw(`SELECT * FROM api_keys WHERE id = ?`, keyID).Take(&row).Error)
	require.NotEmpty(t, row)
	for col, v := range row {
		var text string
		switch v := v.(type) {
		case []byte:
			text = string(v)
		case string:
			text = v
		default:
			continue
		}
		assert.NotContains(t, text, token, "column %s", col)
		assert.NotContains(t, text, strings.TrimPrefix(token, "ppwr_"), "column %s", col)
	}
	var matches int
	require.NoError(t, db.Raw(`SELECT count(*) FROM api_keys WHERE id = ? AND token_hash = ?`, keyID, accounts.HashToken(token)).Scan(&matches).Error)
	assert.Equal(t, 1, matches, "the hash identifies the key")

	revoked := mustAdmin(t, "key", "revoke", "--key", keyID)
	assert.Equal(t, keyID, revoked["id"])
	assert.NotEmpty(t, revoked["revokedAt"])
	cred, err := accounts.LookupCredential(context.Background(), db, accounts.HashToken(token))
	require.NoError(t, err)
	assert.True(t, cred.Revoked)
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.key.revoke", keyID))
}

// Scripts rely on one JSON object even when cobra itself rejects the
// command line, before any admin code runs.
func TestAdminCommandLineErrorsAreJSON(t *testing.T) {
	for name, args := range map[string][]string{
		"missing required flag": {"org", "policy"},
		"malformed flag value":  {"--json", "org", "policy", "--org", "x", "--require-mfa=maybe"},
		"unexpected argument":   {"org", "create", "--name", "N", "surplus"},
		"unknown organization":  {"org", "policy", "--org", "0190f6b4-0000-7000-8000-000000000000", "--require-mfa=true"},
		"malformed id":          {"key", "revoke", "--key", "not-a-uuid"},
	} {
		t.Run(name, func(t *testing.T) {
			obj, err := admin(t, args...)
			assert.Error(t, err)
			e, ok := obj["error"].(map[string]any)
			require.True(t, ok, "%v", obj)
			assert.NotEmpty(t, e["message"])
		})
	}
}

// A missing or mistyped subcommand fails: help with exit status 0 would
// look like success to a script.
func TestAdminUnknownCommand(t *testing.T) {
	for _, group := range [][]string{{}, {"org"}, {"user"}, {"member"}, {"key"}, {"webhook"}, {"imports"}, {"support-token"}} {
		path := strings.Join(append([]string{"ppwr admin"}, group...), " ")
		t.Run(path, func(t *testing.T) {
			msg := requireAdminError(t, append(group, "frobnicate")...)
			assert.True(t, strings.HasPrefix(msg, `unknown command "frobnicate" for "`+path+`"`), msg)
			msg = requireAdminError(t, group...)
			assert.True(t, strings.HasPrefix(msg, `missing command for "`+path+`"`), msg)

			out, _, err := runAdmin(t, append(group, "--help")...)
			require.NoError(t, err)
			assert.Contains(t, out, "Available Commands:")
		})
	}
}

// A failure is reported once, as the command's error: GORM's log of the
// failed statement would repeat it on stderr with the SQL.
func TestAdminFailureReportedOnce(t *testing.T) {
	suffix := uuid.NewString()[:8]
	orgID := str(t, mustAdmin(t, "org", "create", "--name", "Failures", "--slug", "failures-"+suffix), "id")
	email := "twice-" + suffix + "@example.test"
	mustAdmin(t, "user", "create", "--email", email)

	for name, args := range map[string][]string{
		"unique violation":      {"user", "create", "--email", email},
		"foreign-key violation": {"member", "add", "--org", orgID, "--user", uuid.NewString(), "--role", "member"},
		"unknown organization":  {"member", "add", "--org", uuid.NewString(), "--user", uuid.NewString(), "--role", "member"},
		"unknown key":           {"key", "revoke", "--key", uuid.NewString()},
	} {
		t.Run(name, func(t *testing.T) {
			out, stderr, err := runAdmin(t, append(args, "--json")...)
			require.Error(t, err)
			assert.Empty(t, stderr)
			assert.Equal(t, map[string]any{"error": map[string]any{"message": err.Error()}}, oneObject(t, out))

			// Without --json cobra prints the error, once.
			out, stderr, err = runAdmin(t, args...)
			require.Error(t, err)
			assert.Empty(t, out)
			assert.Equal(t, "Error: "+err.Error()+"\n", stderr)
		})
	}
}

// ids picks the "id" of each record of a list.
func ids(t *testing.T, obj map[string]any, key string) []string {
	t.Helper()
	list, ok := obj[key].([]any)
	require.True(t, ok, "%q is not a list in %v", key, obj)
	out := make([]string, 0, len(list))
	for _, item := range list {
		out = append(out, str(t, item.(map[string]any), "id"))
	}
	return out
}

func TestAdminLists(t *testing.T) {
	suffix := uuid.NewString()[:8]
	orgA := mustAdmin(t, "org", "create", "--name", "List A", "--slug", "list-a-"+suffix)
	orgB := mustAdmin(t, "org", "create", "--name", "List B", "--slug", "list-b-"+suffix)
	a, b := str(t, orgA, "id"), str(t, orgB, "id")
	orgs := mustAdmin(t, "org", "list")
	all := ids(t, orgs, "organizations")
	// The package's other tests add organizations too; ours are the last two.
	require.GreaterOrEqual(t, len(all), 2)
	assert.Equal(t, []string{a, b}, all[len(all)-2:], "oldest first")
	assert.Equal(t, orgA, orgs["organizations"].([]any)[len(all)-2], "as org create shows it")

	var users []string
	for _, n := range []string{"1", "2", "3"} {
		users = append(users, str(t, mustAdmin(t, "user", "create", "--email", "list-"+n+"-"+suffix+"@example.test"), "id"))
	}
	// Added out of order: members are listed in user order.
	mustAdmin(t, "member", "add", "--org", a, "--user", users[2], "--role", "admin")
	mustAdmin(t, "member", "add", "--org", a, "--user", users[0], "--role", "member", "--permissions", "catalog.view", "--active=false")

	all = ids(t, mustAdmin(t, "user", "list"), "users")
	require.GreaterOrEqual(t, len(all), 3)
	assert.Equal(t, users, all[len(all)-3:])
	members := mustAdmin(t, "user", "list", "--org", a)
	assert.Equal(t, []string{users[0], users[2]}, ids(t, members, "users"))
	assert.Equal(t, map[string]any{
		"id": users[0], "email": "list-1-" + suffix + "@example.test", "name": "", "emailVerified": true, "mfa": false,
		"role": "member", "permissions": []any{"catalog.view"}, "active": false,
	}, members["users"].([]any)[0])
	assert.Equal(t, []string{}, ids(t, mustAdmin(t, "user", "list", "--org", b), "users"))
	assert.Contains(t, requireAdminError(t, "user", "list", "--org", uuid.NewString()), "does not exist")

	first := mustAdmin(t, "key", "create", "--org", a, "--user", users[2], "--name", "ci", "--abilities", "catalog:read")
	second := mustAdmin(t, "key", "create", "--org", a, "--user", users[0])
	mustAdmin(t, "key", "create", "--org", b, "--user", users[1])
	mustAdmin(t, "key", "revoke", "--key", str(t, first, "id"))
	keys := mustAdmin(t, "key", "list", "--org", a)
	assert.Equal(t, []string{str(t, first, "id"), str(t, second, "id")}, ids(t, keys, "keys"))
	k := keys["keys"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"id", "name", "userId", "abilities", "tokenPrefix", "createdAt", "revokedAt"}, slices.Collect(maps.Keys(k)))
	assert.Equal(t, "ci", k["name"])
	assert.Equal(t, users[2], k["userId"])
	assert.Equal(t, []any{"catalog:read"}, k["abilities"])
	assert.True(t, strings.HasPrefix(str(t, first, "token"), str(t, k, "tokenPrefix")))
	assert.NotEmpty(t, k["createdAt"])
	assert.NotEmpty(t, k["revokedAt"])
	assert.Nil(t, keys["keys"].([]any)[1].(map[string]any)["revokedAt"])
	requireAdminError(t, "key", "list")
	assert.Contains(t, requireAdminError(t, "key", "list", "--org", uuid.NewString()), "does not exist")

	// Neither output shows a token.
	human, _, err := runAdmin(t, "key", "list", "--org", a)
	require.NoError(t, err)
	assert.Contains(t, human, "keys: 2\n")
	listed, err := json.Marshal(keys)
	require.NoError(t, err)
	for _, key := range []map[string]any{first, second} {
		secret := strings.TrimPrefix(str(t, key, "token"), "ppwr_")
		assert.NotContains(t, string(listed), secret)
		assert.NotContains(t, human, secret)
	}
}
