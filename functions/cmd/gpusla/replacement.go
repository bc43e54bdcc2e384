package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/replacement"
)

// newRequestReplacementCmd is `gpusla ticket request-replacement`.
func newRequestReplacementCmd(data *string) *cobra.Command {
	var incident, lang, out string
	cmd := &cobra.Command{
		Use:   "request-replacement NODE [--incident ID] [--lang zh|en|both] [-o DIR]",
		Short: "Ask the provider to replace a node's physical machine: ticket text, signed evidence pack, hardware ticket",
		Long: `Builds, from the node's stored evidence, a ticket text to paste into the provider's
ticket system (Chinese and English by default) and a signed evidence pack (zip:
the text, the failing checks, stress results, the first checks, the raw batches,
a manifest signed with ed25519; ` + "`gpusla verify PACK`" + ` checks it), and opens
the hardware ticket for the incident on the local desk so the contract's
replacement clock runs. Running it again for the same incident opens no second
ticket. Without --incident it takes the newest open gpu_lost, gpu_degraded or
inventory_mismatch incident. The signing key is <data>/` + replacement.KeyFile + `,
created on first use. Stop ` + "`gpusla serve`" + ` first (the store is locked).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := replacement.ParseLang(lang)
			if err != nil {
				return err
			}
			o, desk, err := openDesk(cmd, *data)
			if err != nil {
				return err
			}
			defer o.Close()
			key, err := replacement.LoadOrCreateKey(*data)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join(*data, replacement.PacksDir)
			}
			q := &replacement.Requester{Desk: desk, Key: key, Dir: out}
			res, err := q.Request(cmd.Context(), replacement.Request{Node: args[0], IncidentID: incident, Lang: l, By: cliActor()})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprint(w, res.Text)
			state := "opened"
			if !res.Created {
				state = "already open"
			}
			fmt.Fprintf(w, "\nticket %s %s (hardware, incident %s)\n", res.Ticket.ID, state, res.Ticket.IncidentID)
			if res.Warning != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", res.Warning)
			}
			fmt.Fprintf(w, "text %s\npack %s (key %s, chain head %s)\n", res.TextPath, res.Pack, res.Manifest.KeyID, res.Manifest.ChainHead)
			return nil
		},
	}
	cmd.Flags().StringVar(&incident, "incident", "", "incident id (default: the newest open hardware incident)")
	cmd.Flags().StringVar(&lang, "lang", "both", "language of the ticket text: zh, en or both")
	cmd.Flags().StringVarP(&out, "output", "o", "", "folder for the pack and the text (default <data>/replacements)")
	return cmd
}
