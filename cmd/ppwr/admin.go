package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/access"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

// adminCommand is the operator's administration panel: organizations,
// users, memberships and keys are managed here, never through the API.
func adminCommand() *cobra.Command {
	admin := &cobra.Command{
		Use:   "admin",
		Short: "Operator commands (organizations, users, members, API keys, webhooks, imports, reports, BDO exports, assessments, authority requests, support tokens); every command accepts --json",
	}
	admin.PersistentFlags().Bool("json", false, "print exactly one JSON object on stdout (with --wait: JSON lines, the progress then that object)")
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
		webhookCommand(), importsCommand(), reportsCommand(), bdoCommand(), assessmentsCommand(), authorityRequestsCommand(), supportTokenCommand())
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

// adminRun opens the database and runs fn on it, then prints its result:
// as one JSON object with --json, else as "key: value" lines. Errors are
// printed as {"error": {"message": ...}} with --json too, so a script
// always gets one object.
func adminRun(fn func(ctx context.Context, db *gorm.DB) (map[string]any, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		asJSON, _ := cmd.Flags().GetBool("json")
		out, err := func() (map[string]any, error) {
			_, db, err := openDB(cmd.Context())
			if err != nil {
				return nil, err
			}
			defer closeDB(db)
			ctx := domain.WithOperator(cmd.Context(), operatorLogin())
			db = db.Session(&gorm.Session{Context: ctx, Logger: failuresUnlogged{db.Logger}})
			return fn(ctx, db)
		}()
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

// operatorLogin names the operator in the audit entries of admin
// commands: the login that runs them, as the support console names its
// signed-in person. Empty when the system knows no name for the user.
func operatorLogin() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
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

// showAll answers a list command: rows, each shown by show, as
// {name: [...]}. No rows is an empty list, not null.
func showAll[T any](name string, rows []T, show func(*T) map[string]any) map[string]any {
	items := make([]map[string]any, 0, len(rows))
	for i := range rows {
		items = append(items, show(&rows[i]))
	}
	return map[string]any{name: items}
}

// listCommand is a `list` command: the records list reads, shown by
// show, as {name: [...]}.
func listCommand[T any](short, name string, list func(context.Context, *gorm.DB) ([]T, error), show func(*T) map[string]any) *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: short, Args: cobra.NoArgs}
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		rows, err := list(ctx, db)
		if err != nil {
			return nil, err
		}
		return showAll(name, rows, show), nil
	})
	return cmd
}

// listInOrgCommand is a `list --org ORG` command: the organization's
// records list reads, shown by show, as {name: [...]}.
func listInOrgCommand[T any](short, name string, list func(context.Context, *gorm.DB, uuid.UUID) ([]T, error), show func(*T) map[string]any) *cobra.Command {
	cmd := &cobra.Command{Use: "list", Short: short, Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id (required)")
	_ = cmd.MarkFlagRequired("org")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		rows, err := list(ctx, db, orgID)
		if err != nil {
			return nil, err
		}
		return showAll(name, rows, show), nil
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
	err = spelledOut(err)
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
		cmd.SilenceErrors = true
		printJSON(cmd, map[string]any{"error": map[string]any{"message": err.Error()}})
	}
	return err
}

// spelledOut gives the field errors of a command shared with the API
// (an *input.Invalid names only its fields) their English messages, as
// the API's 422 does.
func spelledOut(err error) error {
	var invalid *input.Invalid
	if !errors.As(err, &invalid) {
		return err
	}
	parts := make([]string, len(invalid.Fields))
	for i, f := range invalid.Fields {
		parts[i] = f.Field + ": " + i18n.T(i18n.EN, f.Key, f.Args...)
	}
	return errors.New(strings.Join(parts, "; "))
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

// addMembershipFlags adds the required --org and --user flags: the pair a
// membership or an API key belongs to.
func addMembershipFlags(cmd *cobra.Command) {
	cmd.Flags().String("org", "", "organization id (required)")
	cmd.Flags().String("user", "", "user id (required)")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("user")
}

// parseMembershipFlags returns the ids addMembershipFlags asks for.
func parseMembershipFlags(cmd *cobra.Command) (orgID, userID uuid.UUID, err error) {
	if orgID, err = parseUUIDFlag(cmd, "org"); err != nil {
		return uuid.Nil, uuid.Nil, err
	}
	userID, err = parseUUIDFlag(cmd, "user")
	return orgID, userID, err
}

func bootstrapCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bootstrap",
		Short: "Create an organization with a verified owner and a key holding every ability",
		Args:  cobra.NoArgs,
	}
	name := cmd.Flags().String("name", "Local development", "organization name")
	email := cmd.Flags().String("email", "", "owner e-mail (default: a generated example.test address)")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		b, err := accounts.Bootstrap(ctx, db, accounts.BootstrapInput{Name: *name, Email: *email})
		if err != nil {
			return nil, err
		}
		return map[string]any{"organizationId": b.OrganizationID, "userId": b.UserID, "apiKey": b.APIKey}, nil
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
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		org, err := accounts.OperatorCreateOrganization(ctx, db, *name, *slug)
		if err != nil {
			return nil, err
		}
		return organizationJSON(org), nil
	})
	return cmd
}

func orgListCommand() *cobra.Command {
	return listCommand("List all organizations", "organizations", accounts.ListOrganizations, organizationJSON)
}

// changedFlag is the flag's value if it was given, else nil.
func changedFlag[T any](cmd *cobra.Command, name string, value *T) *T {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return value
}

func orgPolicyCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Change an organization's access policies (only the flags given)", Args: cobra.NoArgs}
	cmd.Flags().String("org", "", "organization id (required)")
	ipAllow := cmd.Flags().String("ip-allow", "", "comma-separated CIDRs or addresses; empty clears the allow-list")
	mfa := cmd.Flags().Bool("require-mfa", false, "require members to have MFA")
	dual := cmd.Flags().Bool("dual-control", false, "require a second reviewer for own documents")
	_ = cmd.MarkFlagRequired("org")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		change := accounts.PolicyChange{RequireMFA: changedFlag(cmd, "require-mfa", mfa), DualControl: changedFlag(cmd, "dual-control", dual)}
		if cmd.Flags().Changed("ip-allow") {
			change.IPAllowList = strings.Split(*ipAllow, ",")
		}
		org, err := accounts.OperatorSetPolicy(ctx, db, id, change)
		if err != nil {
			return nil, err
		}
		return organizationJSON(org), nil
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
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		u, err := accounts.OperatorCreateUser(ctx, db, accounts.NewUser{Email: *email, Name: *name, EmailVerified: *verified, MFA: *mfa})
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
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		if !cmd.Flags().Changed("org") {
			users, err := accounts.ListUsers(ctx, db)
			if err != nil {
				return nil, err
			}
			return showAll("users", users, userJSON), nil
		}
		orgID, err := parseUUIDFlag(cmd, "org")
		if err != nil {
			return nil, err
		}
		members, err := accounts.ListMembers(ctx, db, orgID)
		if err != nil {
			return nil, err
		}
		return showAll("users", members, func(m *accounts.Member) map[string]any {
			out := userJSON(&m.User)
			out["role"], out["permissions"], out["active"] = m.Role, []string(m.Permissions), m.Active
			return out
		}), nil
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
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, userID, err := parseMembershipFlags(cmd)
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
		m, err := accounts.OperatorAddMember(ctx, db, accounts.Membership{OrganizationID: orgID, UserID: userID, Role: r, Permissions: p, Active: *active})
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": m.ID, "organizationId": m.OrganizationID, "userId": m.UserID, "role": m.Role, "permissions": []string(m.Permissions), "active": m.Active}, nil
	})
	return cmd
}

func keyCreateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "create", Short: "Create an API key (the token is shown once)", Args: cobra.NoArgs}
	addMembershipFlags(cmd)
	abilities := cmd.Flags().String("abilities", "all", "comma-separated abilities, or all")
	name := cmd.Flags().String("name", "", "label shown to operators")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		orgID, userID, err := parseMembershipFlags(cmd)
		if err != nil {
			return nil, err
		}
		list, err := access.ParseAbilities(*abilities)
		if err != nil {
			return nil, err
		}
		key, token, err := accounts.OperatorCreateKey(ctx, db, accounts.NewKey{OrganizationID: orgID, UserID: userID, Name: *name, Abilities: list})
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": key.ID, "token": token, "organizationId": orgID, "userId": userID, "abilities": list, "name": key.Name}, nil
	})
	return cmd
}

func keyListCommand() *cobra.Command {
	return listInOrgCommand("List an organization's API keys (tokens are never shown)", "keys", accounts.ListAPIKeys, func(k *accounts.APIKey) map[string]any {
		return map[string]any{
			"id": k.ID, "name": k.Name, "userId": k.UserID, "abilities": []string(k.Abilities),
			"tokenPrefix": k.TokenPrefix, "createdAt": k.CreatedAt, "revokedAt": k.RevokedAt,
		}
	})
}

func keyRevokeCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "revoke", Short: "Revoke an API key immediately", Args: cobra.NoArgs}
	cmd.Flags().String("key", "", "key id (required)")
	_ = cmd.MarkFlagRequired("key")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "key")
		if err != nil {
			return nil, err
		}
		key, err := accounts.OperatorRevokeKey(ctx, db, id)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": key.ID, "revokedAt": key.RevokedAt}, nil
	})
	return cmd
}
