package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/internal/flaghint"
)

// commands holds constructors for the subcommands, appended by each file's init.
var commands []func() *cobra.Command

// exitError carries a specific exit code (documented per command) out of RunE.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "gpuprobe",
		Short:         "Check that a rented GPU node is what was ordered, and keep watching it",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, c := range commands {
		root.AddCommand(c())
	}
	flaghint.Set(root)
	return root
}

func main() {
	err := newRoot().Execute()
	if err == nil {
		return
	}
	if e, ok := err.(exitError); ok {
		os.Exit(e.code)
	}
	fmt.Fprintln(os.Stderr, "gpuprobe:", err)
	os.Exit(1)
}
