// Command gpusla is the backend as one local process (serve) and the offline
// tools (report, verify, node, export). Each subcommand lives in its own file
// and registers itself in commands, so this file stays a thin main.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// commands holds constructors for the subcommands, appended by each file's init.
var commands []func() *cobra.Command

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "gpusla",
		Short:         "Keep rented GPU servers honest: SLA books, alerts and breach reports",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "gpusla:", err)
		os.Exit(1)
	}
}
