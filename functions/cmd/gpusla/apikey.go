package main

import (
	"fmt"
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
	cmd := &cobra.Command{Use: "apikey", Short: "Create, list and revoke keys for the ticket API (local store)"}
	var data string
	cmd.PersistentFlags().StringVar(&data, "data", "./data", "data folder of the local backend (stop `gpusla serve` first: the store is locked while it runs)")

	var name string
	create := &cobra.Command{
		Use:   "create --name NAME",
		Short: "Create an API key; prints the token once",
		Long: `Creates a key for the ticket API (POST /v1/tickets …; docs/tickets.md) and prints
its token — "gsk_<id>_<secret>" — this once. Only a SHA-256 hash of the secret is
stored, so a lost token cannot be recovered: revoke it and create another.
Callers send it as "Authorization: Bearer <token>".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, _, _, err := wiring.FromEnv().OpenStore(cmd.Context(), data) // $GPUSLA_TABLE: DynamoDB
			if err != nil {
				return err
			}
			defer store.Close()
			k, token, err := app.CreateAPIKey(cmd.Context(), store, name, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "created API key %s (%s); the token below is shown only this once:\n", k.ID, k.Name)
			fmt.Fprintln(cmd.OutOrStdout(), token)
			return nil
		},
	}
	create.Flags().StringVar(&name, "name", "", "who or what uses the key (required)")
	_ = create.MarkFlagRequired("name")

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
