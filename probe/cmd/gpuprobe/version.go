package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func init() {
	commands = append(commands, func() *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print the probe's version",
			Args:  cobra.NoArgs,
			Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), version) },
		}
	})
}
