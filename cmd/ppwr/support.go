package main

import (
	"context"

	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain/operators"
)

// supportCommand runs the support console (package support).
func supportCommand() *cobra.Command {
	return appCommand("support", "Run the support console, a web page for support staff (SUPPORT_ADDR; sign in with a token from 'ppwr admin support-token create')", "", (*app).serveSupport)
}

// supportTokenCommand groups the commands of the support console's
// tokens (see operators.CreateToken).
func supportTokenCommand() *cobra.Command {
	return groupCommand("support-token", "Manage the tokens support staff sign in to the support console (ppwr support) with",
		supportTokenCreateCommand(), supportTokenListCommand(), supportTokenRevokeCommand())
}

func supportTokenJSON(t *operators.Token) map[string]any {
	return map[string]any{
		"id": t.ID, "name": t.Name, "tokenPrefix": t.TokenPrefix,
		"createdAt": t.CreatedAt, "expiresAt": t.ExpiresAt, "revokedAt": t.RevokedAt,
	}
}

func supportTokenCreateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "create", Short: "Create a support token for a person (the token is shown once)", Args: cobra.NoArgs}
	name := cmd.Flags().String("name", "", "the person the token is for; the console's audit entries name them (required)")
	ttl := cmd.Flags().Duration("ttl", operators.DefaultTokenTTL, "how long the token is valid")
	_ = cmd.MarkFlagRequired("name")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		t, token, err := operators.CreateToken(ctx, db, *name, *ttl)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": t.ID, "name": t.Name, "token": token, "expiresAt": t.ExpiresAt}, nil
	})
	return cmd
}

func supportTokenListCommand() *cobra.Command {
	return listCommand("List the support tokens (tokens are never shown)", "tokens", operators.ListTokens, supportTokenJSON)
}

func supportTokenRevokeCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "revoke", Short: "Revoke a support token immediately: its sessions end at their next request", Args: cobra.NoArgs}
	cmd.Flags().String("id", "", "token id (required)")
	_ = cmd.MarkFlagRequired("id")
	cmd.RunE = adminRun(func(ctx context.Context, db *gorm.DB) (map[string]any, error) {
		id, err := parseUUIDFlag(cmd, "id")
		if err != nil {
			return nil, err
		}
		t, err := operators.RevokeToken(ctx, db, id)
		if err != nil {
			return nil, err
		}
		return supportTokenJSON(t), nil
	})
	return cmd
}
