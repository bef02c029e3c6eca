package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/spf13/cobra"
	"gorm.io/datatypes"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/access"
)

// adminCommand is the operator's administration panel: organizations,
// users, memberships and keys are managed here, never through the API.
func adminCommand() *cobra.Command {
	admin := &cobra.Command{
		Use:   "admin",
		Short: "Operator commands (organizations, users, members, API keys, webhooks, imports, assessments, authority requests); every command accepts --json",
	}
	admin.PersistentFlags().Bool("json", false, "print exactly one JSON object on stdout")
	// Cobra rejects bad flags and missing required flags before RunE, so
	// adminRun never sees those errors; report them here so that a script
	// using --json still gets its one object. A flag after the malformed one
	// is not parsed, so --json must come first for that case.
	admin.SetFlagErrorFunc(reportError)
	admin.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := cmd.ValidateRequiredFlags(); err != nil {
			return reportError(cmd, err)
		}
		return nil
	}

	// admin is a group too: "ppwr admin" alone or with a mistyped command
	// must fail like any other group.
	admin.RunE = groupRun

	admin.AddCommand(bootstrapCommand(),
		groupCommand("org", "Manage organizations", orgCreateCommand(), orgListCommand(), orgPolicyCommand()),
		groupCommand("user", "Manage users", userCreateCommand(), userListCommand()),
		groupCommand("member", "Manage memberships", memberAddCommand()),
		groupCommand("key", "Manage API keys", keyCreateCommand(), keyListCommand(), keyRevokeCommand()),
		webhookCommand(), importsCommand(), assessmentsCommand(), authorityRequestsCommand())
	reportArgErrors(admin)
	return admin
}

// groupCommand holds subcommands only; run without a known one, it fails
// (groupRun).
func groupCommand(use, short string, children ...*cobra.Command) *cobra.Command {
	group := &cobra.Command{Use: use, Short: short, RunE: groupRun}
	group.AddCommand(children...)
	return group
}

// groupRun runs when a group is given no known subcommand. Cobra would
// print the help and exit 0 for a group that cannot run, which a script
// takes for success.
func groupRun(cmd *cobra.Command, args []string) error {
	what := "missing command"
	if len(args) > 0 {
		what = fmt.Sprintf("unknown command %q", args[0])
	}
	return reportError(cmd, fmt.Errorf("%s for %q; run '%s --help' for the list", what, cmd.CommandPath(), cmd.CommandPath()))
}

// reportArgErrors makes positional-argument errors of c and its children go
// through reportError too (cobra checks them before any hook runs).
func reportArgErrors(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return reportError(cmd, err)
			}
			return nil
		}
	}
	for _, child := range c.Commands() {
		reportArgErrors(child)
	}
}

// adminRun opens the database and runs fn in one transaction, then prints
// its result as adminOpen does.
func adminRun(fn func(ctx context.Context, tx *gorm.DB) (map[string]any, error)) func(*cobra.Command, []string) error {
	return adminOpen(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		var out map[string]any
		err := db.Transaction(func(tx *gorm.DB) error {
			var ferr error
			out, ferr = fn(ctx, tx)
			return ferr
		})
		return out, err
	})
}

// adminOpen opens the database and runs fn on it, then prints its result:
// as one JSON object with --json, else as "key: value" lines. Errors are
// printed as {"error": {"message": ...}} with --json too, so a script
// always gets one object. A command that runs a domain command on a unit
// of work (work.Unit, which begins its own transaction) uses it directly.
func adminOpen(fn func(ctx context.Context, db *gorm.DB) (map[string]any, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		asJSON, _ := cmd.Flags().GetBool("json")
		out, err := func() (map[string]any, error) {
			_, db, err := openDB(cmd.Context())
			if err != nil {
				return nil, err
			}
			defer closeDB(db)
			db = db.Session(&gorm.Session{Context: cmd.Context(), Logger: failuresUnlogged{db.Logger}})
			return fn(cmd.Context(), db)
		}()
		switch {
		case errors.Is(err, gorm.ErrDuplicatedKey):
			err = errors.New("a record with these unique values (slug, e-mail or membership) already exists")
		case errors.Is(err, gorm.ErrForeignKeyViolated):
			err = errors.New("a record the command refers to (organization or user) does not exist")
		}
		if err != nil {
			return reportError(cmd, err)
		}
		if asJSON {
			printJSON(cmd, out)
			return nil
		}
		printHuman(cmd.OutOrStdout(), out, "")
		return nil
	}
}

// failuresUnlogged keeps GORM from logging failed statements: an admin
// command reports its failure once, as its error, and GORM's trace would
// repeat it on stderr with the SQL and its values. Slow statements are
// still logged.
type failuresUnlogged struct{ logger.Interface }

func (l failuresUnlogged) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if err == nil {
		l.Interface.Trace(ctx, begin, fc, err)
	}
}

// listRecords answers a list command: the records q selects, oldest first
// (ids are UUIDv7), each shown by show, as {name: [...]}. No records is an
// empty list, not null.
func listRecords[T any](q *gorm.DB, name string, show func(*T) map[string]any) (map[string]any, error) {
	var rows []T
	// Qualified: q may join a table with an id of its own.
	byID := clause.OrderByColumn{Column: clause.Column{Table: clause.CurrentTable, Name: "id"}}
	if err := q.Order(byID).Find(&rows).Error; err != nil {
		return nil, err
	}
	items := make([]map[string]any, 0, len(rows))
	for i := range rows {
		items = append(items, show(&rows[i]))
	}
	return map[string]any{name: items}, nil
}

// listInOrgCommand is a `list --org ORG` command: the organization's
// records of T, shown by show, as {name: [...]}. The hidden columns are not
// even read, so no later change to show can leak them.
func listInOrgCommand[T any](short, name string, show func(*T) map[string]any, hidden ...string) *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: short, Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id (required)")
	_ = cmd.MarkFlagRequired("org")
	cmd.RunE = adminRun(func(_ context.Context, tx *gorm.DB) (map[string]any, error) {
		orgID, err := parseOrgFlag(cmd, tx)
		if err != nil {
			return nil, err
		}
		return listRecords(tx.Scopes(domain.InOrganization(orgID)).Omit(hidden...), name, show)
	})
	return cmd
}

// printHuman writes "key: value" lines. Lists of records get one line per
// record (nested lists indented below it) because %v of a slice of maps is
// unreadable.
func printHuman(w io.Writer, out map[string]any, indent string) {
	for _, k := range sortedKeys(out) {
		items, ok := out[k].([]map[string]any)
		if !ok {
			fmt.Fprintf(w, "%s%s: %s\n", indent, k, humanValue(out[k]))
			continue
		}
		fmt.Fprintf(w, "%s%s: %d\n", indent, k, len(items))
		for _, item := range items {
			var fields []string
			nested := map[string]any{}
			for _, ik := range sortedKeys(item) {
				if _, isList := item[ik].([]map[string]any); isList {
					nested[ik] = item[ik]
					continue
				}
				fields = append(fields, ik+"="+humanValue(item[ik]))
			}
			fmt.Fprintf(w, "%s  - %s\n", indent, strings.Join(fields, " "))
			printHuman(w, nested, indent+"    ")
		}
	}
}

// humanValue formats times as RFC 3339 and dereferences pointers; %v alone
// would print a *time.Time as an address.
func humanValue(v any) string {
	switch v := v.(type) {
	case time.Time:
		return v.Format(time.RFC3339)
	case *time.Time:
		if v == nil {
			return "-"
		}
		return v.Format(time.RFC3339)
	case nil:
		return "-"
	}
	return fmt.Sprintf("%v", v)
}

// reportError prints err as {"error": {"message": ...}} when --json was
// given (and then keeps cobra from printing it again) and returns it.
func reportError(cmd *cobra.Command, err error) error {
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
		cmd.SilenceErrors = true
		printJSON(cmd, map[string]any{"error": map[string]any{"message": err.Error()}})
	}
	return err
}

func printJSON(cmd *cobra.Command, v any) {
	enc := json.NewEncoder(cmd.OutOrStdout())
	_ = enc.Encode(v)
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func parseUUIDFlag(cmd *cobra.Command, name string) (uuid.UUID, error) {
	raw, _ := cmd.Flags().GetString(name)
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, fmt.Errorf("--%s must be a UUID, got %q", name, raw)
	}
	return id, nil
}

// parseOrgFlag returns the organization --org names. One that does not
// exist is reported as such instead of as a foreign-key violation or an
// empty list.
func parseOrgFlag(cmd *cobra.Command, tx *gorm.DB) (uuid.UUID, error) {
	id, err := parseUUIDFlag(cmd, "org")
	if err != nil {
		return uuid.Nil, err
	}
	var n int64
	if err := tx.Model(&accounts.Organization{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return uuid.Nil, err
	}
	if n == 0 {
		return uuid.Nil, fmt.Errorf("organization %s does not exist", id)
	}
	return id, nil
}

// addMembershipFlags adds the required --org and --user flags: the pair a
// membership or an API key belongs to.
func addMembershipFlags(cmd *cobra.Command) {
	cmd.Flags().String("org", "", "organization id (required)")
	cmd.Flags().String("user", "", "user id (required)")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("user")
}

// parseMembershipFlags returns the ids addMembershipFlags asks for, the
// organization checked as parseOrgFlag does.
func parseMembershipFlags(cmd *cobra.Command, tx *gorm.DB) (orgID, userID uuid.UUID, err error) {
	if orgID, err = parseOrgFlag(cmd, tx); err != nil {
		return uuid.Nil, uuid.Nil, err
	}
	userID, err = parseUUIDFlag(cmd, "user")
	return orgID, userID, err
}

// auditOperator records an administration change in the organization's
// audit log, in the same transaction as the change.
func auditOperator(ctx context.Context, tx *gorm.DB, orgID uuid.UUID, operation, recordType string, recordID uuid.UUID, summary map[string]any) error {
	raw, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	return domain.AppendAudit(ctx, tx, &domain.AuditEntry{
		OrganizationID: orgID, ActorKind: domain.ActorOperator, Operation: operation,
		RecordType: recordType, RecordID: &recordID, Summary: datatypes.JSON(raw),
	})
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func bootstrapCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bootstrap",
		Short: "Create an organization with a verified owner and a key holding every ability",
		Args:  cobra.NoArgs,
	}
	name := cmd.Flags().String("name", "Local development", "organization name")
	email := cmd.Flags().String("email", "", "owner e-mail (default: a generated example.test address)")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		suffix := randomSuffix()
		org, err := accounts.CreateOrganization(ctx, tx, *name, accounts.Slugify(*name)+"-"+suffix)
		if err != nil {
			return nil, err
		}
		addr := *email
		if addr == "" {
			addr = "owner-" + suffix + "@example.test"
		}
		user, err := accounts.CreateUser(ctx, tx, addr, "Owner", true, false)
		if err != nil {
			return nil, err
		}
		if err := accounts.UpsertMembership(ctx, tx, &accounts.Membership{OrganizationID: org.ID, UserID: user.ID, Role: access.Owner, Active: true}); err != nil {
			return nil, err
		}
		all, _ := access.ParseAbilities("all")
		key, token, err := accounts.CreateAPIKey(ctx, tx, org.ID, user.ID, "bootstrap", all)
		if err != nil {
			return nil, err
		}
		if err := auditOperator(ctx, tx, org.ID, "admin.bootstrap", "api_key", key.ID, map[string]any{"user_id": user.ID}); err != nil {
			return nil, err
		}
		return map[string]any{"organizationId": org.ID, "userId": user.ID, "apiKey": token}, nil
	})
	return cmd
}

func organizationJSON(o *accounts.Organization) map[string]any {
	return map[string]any{
		"id": o.ID, "name": o.Name, "slug": o.Slug, "status": o.Status,
		"requireMfa": o.RequireMFA, "dualControl": o.DualControl, "ipAllowList": []string(o.IPAllowList),
	}
}

func orgCreateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "create", Short: "Create an organization", Args: cobra.NoArgs}
	name := cmd.Flags().String("name", "", "organization name (required)")
	slug := cmd.Flags().String("slug", "", "URL slug (default: derived from the name)")
	_ = cmd.MarkFlagRequired("name")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		org, err := accounts.CreateOrganization(ctx, tx, *name, *slug)
		if err != nil {
			return nil, err
		}
		return organizationJSON(org), auditOperator(ctx, tx, org.ID, "admin.org.create", "organization", org.ID, map[string]any{"name": org.Name})
	})
	return cmd
}

func orgListCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: "List all organizations", Args: cobra.NoArgs}
	cmd.RunE = adminRun(func(_ context.Context, tx *gorm.DB) (map[string]any, error) {
		return listRecords(tx, "organizations", organizationJSON)
	})
	return cmd
}

func orgPolicyCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Change an organization's access policies (only the flags given)", Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id (required)")
	ipAllow := cmd.Flags().String("ip-allow", "", "comma-separated CIDRs or addresses; empty clears the allow-list")
	mfa := cmd.Flags().Bool("require-mfa", false, "require members to have MFA")
	dual := cmd.Flags().Bool("dual-control", false, "require a second reviewer for own documents")
	_ = cmd.MarkFlagRequired("org")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		var org accounts.Organization
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&org, "id = ?", id).Error; err != nil {
			return nil, fmt.Errorf("organization %s: %w", id, err)
		}
		changes := map[string]any{}
		if cmd.Flags().Changed("ip-allow") {
			cidrs, err := accounts.ParseCIDRs(strings.Split(*ipAllow, ","))
			if err != nil {
				return nil, err
			}
			org.IPAllowList, changes["ip_allow_list"] = cidrs, cidrs
		}
		if cmd.Flags().Changed("require-mfa") {
			org.RequireMFA, changes["require_mfa"] = *mfa, *mfa
		}
		if cmd.Flags().Changed("dual-control") {
			org.DualControl, changes["dual_control"] = *dual, *dual
		}
		if len(changes) > 0 {
			changes["revision"] = gorm.Expr("revision + 1")
			changes["updated_at"] = time.Now().UTC()
			if err := tx.Model(&org).Updates(changes).Error; err != nil {
				return nil, err
			}
			delete(changes, "revision")
			if err := auditOperator(ctx, tx, org.ID, "admin.org.policy", "organization", org.ID, changes); err != nil {
				return nil, err
			}
		}
		return organizationJSON(&org), nil
	})
	return cmd
}

func userCreateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "create", Short: "Create a user", Args: cobra.NoArgs}
	email := cmd.Flags().String("email", "", "e-mail address (required)")
	name := cmd.Flags().String("name", "", "display name")
	verified := cmd.Flags().Bool("verified", true, "e-mail address is verified")
	mfa := cmd.Flags().Bool("mfa", false, "user has MFA enabled")
	_ = cmd.MarkFlagRequired("email")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		u, err := accounts.CreateUser(ctx, tx, *email, *name, *verified, *mfa)
		if err != nil {
			return nil, err
		}
		return userJSON(u), nil
	})
	return cmd
}

func userJSON(u *accounts.User) map[string]any {
	return map[string]any{"id": u.ID, "email": u.Email, "name": u.Name, "emailVerified": u.EmailVerifiedAt != nil, "mfa": u.MFAEnabled}
}

func userListCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: "List all users, or an organization's members with their membership", Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id: only its members")
	cmd.RunE = adminRun(func(_ context.Context, tx *gorm.DB) (map[string]any, error) {
		if !cmd.Flags().Changed("org") {
			return listRecords(tx, "users", userJSON)
		}
		orgID, err := parseOrgFlag(cmd, tx)
		if err != nil {
			return nil, err
		}
		type member struct {
			accounts.User
			Role        access.Role
			Permissions pq.StringArray `gorm:"type:text[]"`
			Active      bool
		}
		q := tx.Table("users").Select("users.*, memberships.role, memberships.permissions, memberships.active").
			Joins("JOIN memberships ON memberships.user_id = users.id AND memberships.organization_id = ?", orgID)
		return listRecords(q, "users", func(m *member) map[string]any {
			out := userJSON(&m.User)
			out["role"], out["permissions"], out["active"] = m.Role, []string(m.Permissions), m.Active
			return out
		})
	})
	return cmd
}

func memberAddCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "add", Short: "Add a user to an organization, or change the membership", Args: cobra.NoArgs}
	addMembershipFlags(cmd)
	role := cmd.Flags().String("role", "", "owner, admin or member (required)")
	perms := cmd.Flags().String("permissions", "", "comma-separated permissions (members hold exactly these)")
	active := cmd.Flags().Bool("active", true, "membership is active")
	_ = cmd.MarkFlagRequired("role")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		orgID, userID, err := parseMembershipFlags(cmd, tx)
		if err != nil {
			return nil, err
		}
		r, err := access.ParseRole(*role)
		if err != nil {
			return nil, err
		}
		p, err := access.ParsePermissions(*perms)
		if err != nil {
			return nil, err
		}
		m := &accounts.Membership{OrganizationID: orgID, UserID: userID, Role: r, Permissions: p, Active: *active}
		if err := accounts.UpsertMembership(ctx, tx, m); err != nil {
			return nil, err
		}
		out := map[string]any{"id": m.ID, "organizationId": m.OrganizationID, "userId": m.UserID, "role": m.Role, "permissions": []string(m.Permissions), "active": m.Active}
		return out, auditOperator(ctx, tx, orgID, "admin.member.add", "membership", m.ID, out)
	})
	return cmd
}

func keyCreateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "create", Short: "Create an API key (the token is shown once)", Args: cobra.NoArgs}
	addMembershipFlags(cmd)
	abilities := cmd.Flags().String("abilities", "all", "comma-separated abilities, or all")
	name := cmd.Flags().String("name", "", "label shown to operators")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		orgID, userID, err := parseMembershipFlags(cmd, tx)
		if err != nil {
			return nil, err
		}
		list, err := access.ParseAbilities(*abilities)
		if err != nil {
			return nil, err
		}
		key, token, err := accounts.CreateAPIKey(ctx, tx, orgID, userID, *name, list)
		if err != nil {
			return nil, err
		}
		if err := auditOperator(ctx, tx, orgID, "admin.key.create", "api_key", key.ID, map[string]any{"user_id": userID, "abilities": list, "name": *name}); err != nil {
			return nil, err
		}
		return map[string]any{"id": key.ID, "token": token, "organizationId": orgID, "userId": userID, "abilities": list, "name": key.Name}, nil
	})
	return cmd
}

func keyListCommand() *cobra.Command {
	return listInOrgCommand("List an organization's API keys (tokens are never shown)", "keys", func(k *accounts.APIKey) map[string]any {
		return map[string]any{
			"id": k.ID, "name": k.Name, "userId": k.UserID, "abilities": []string(k.Abilities),
			"tokenPrefix": k.TokenPrefix, "createdAt": k.CreatedAt, "revokedAt": k.RevokedAt,
		}
	}, "token_hash")
}

func keyRevokeCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "revoke", Short: "Revoke an API key immediately", Args: cobra.NoArgs}
	cmd.Flags().String("key", "", "key id (required)")
	_ = cmd.MarkFlagRequired("key")
	cmd.RunE = adminRun(func(ctx context.Context, tx *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "key")
		if err != nil {
			return nil, err
		}
		key, err := accounts.RevokeAPIKey(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": key.ID, "revokedAt": key.RevokedAt}, auditOperator(ctx, tx, key.OrganizationID, "admin.key.revoke", "api_key", key.ID, map[string]any{})
	})
	return cmd
}
