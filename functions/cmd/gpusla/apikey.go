package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/tables"
	"github.com/gpusla/gpusla/functions/wiring"
)

func init() {
	commands = append(commands, newAPIKeyCmd)
}

func newAPIKeyCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "apikey", Short: "Create, list and revoke keys for the HTTP API (local store)"}
	var data string
	// No backquotes in a flag's usage: pflag would print the quoted words
	// as the flag's value name (--data gpusla serve).
	cmd.PersistentFlags().StringVar(&data, "data", "./data", "data folder of the local backend (stop gpusla serve first: the store is locked while it runs)")

	var name string
	var scopeList []string
	create := &cobra.Command{
		Use:   "create --name NAME [--scope read --scope tickets | --scope read,tickets]",
		Short: "Create an API key; prints the token once",
		Long: `Creates a key for the HTTP API and prints its token — "gsk_<id>_<secret>" — this
once. Only a SHA-256 hash of the secret is stored, so a lost token cannot be
recovered: revoke it and create another. Callers send it as
"Authorization: Bearer <token>".

Scopes (--scope, repeated or comma-separated; every one given is kept): read —
GET /v1/nodes and /v1/incidents; tickets — the ticket API (/v1/tickets…;
docs/tickets.md); admin — everything. Keys created before scopes existed keep
the ticket API alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scopes, err := app.ParseScopes(strings.Join(scopeList, ",")) // before the store is opened
			if err != nil {
				return fmt.Errorf("--scope: %w", err)
			}
			store, _, _, err := wiring.FromEnv().OpenStore(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer store.Close()
			k, token, err := app.CreateAPIKey(cmd.Context(), store, name, scopes, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "created API key %s (%s, scopes %s); the token below is shown only this once:\n", k.ID, k.Name, strings.Join(k.Scopes, ","))
			fmt.Fprintln(cmd.OutOrStdout(), token)
			return nil
		},
	}
	create.Flags().StringVar(&name, "name", "", "who or what uses the key (required)")
	_ = create.MarkFlagRequired("name")
	create.Flags().StringArrayVar(&scopeList, "scope", []string{string(app.ScopeTickets)}, "what the key may do: read, tickets, claims, admin (repeat the flag or separate with commas)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List API keys (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, _, err := wiring.FromEnv().OpenExisting(cmd.Context(), data)
			if err != nil {
				return err
			}
			defer store.Close()
			keys, err := store.ListAPIKeys(cmd.Context())
			if err != nil {
				return err
			}
			return tables.APIKeys(cmd.OutOrStdout(), keys)
		},
	}

	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke an API key (it stops working at once)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, _, err := wiring.FromEnv().OpenExisting(cmd.Context(), data)
			if err != nil {
				return err
			}
			defer store.Close()
			k, err := app.RevokeAPIKey(cmd.Context(), store, args[0], time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s (%s) at %s\n", k.ID, k.Name, k.RevokedAt.Format(time.RFC3339))
			return nil
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
