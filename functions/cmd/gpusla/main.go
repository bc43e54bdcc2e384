// Command gpusla is the backend as one local process (serve) and the offline
// tools (report, verify, node, export). Each subcommand lives in its own file
// and registers itself in commands, so this file stays a thin main.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/internal/flaghint"
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
	flaghint.Set(root)
	return root
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "gpusla:", err)
	if ee := (*exitError)(nil); errors.As(err, &ee) {
		return ee.code
	}
	return exitFailed
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
