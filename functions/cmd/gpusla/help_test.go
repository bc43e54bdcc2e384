package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholder is what --help may show after a flag's name: a word such
// as FILE, string or duration (pflag takes a `quoted` word of the usage as
// the value's name, so a quoted phrase in a usage shows as
// "--config expected:").
var placeholder = regexp.MustCompile(`^([A-Z][A-Z0-9_]*(=[A-Z][A-Z0-9_]*)?|[a-z][a-zA-Z0-9]*)?$`)

// TestHelpFlagNames: every flag of every command shows in --help as
// "--name PLACEHOLDER usage", its usage with no stray backquote.
func TestHelpFlagNames(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			name, usage := pflag.UnquoteUsage(f)
			if !placeholder.MatchString(name) || strings.Contains(usage, "`") {
				t.Errorf("%s --%s shows in --help as %q %q: a backquoted phrase in its usage became the value's name", c.CommandPath(), f.Name, name, usage)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.PersistentFlags().VisitAll(check)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot())
}
