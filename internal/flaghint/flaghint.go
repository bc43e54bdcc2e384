// Package flaghint makes a command line's flag mistakes say what to do: the
// flag meant, when one is close to a mistyped name, and the --help that
// lists them all.
package flaghint

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Set makes root and every command under it answer a flag error with
// Error's hint.
func Set(root *cobra.Command) {
	root.SetFlagErrorFunc(Error)
}

// Error is err, a flag error of command c, with the way on: the closest of
// c's flags to an unknown one, and the command's --help.
func Error(c *cobra.Command, err error) error {
	hint := fmt.Sprintf("`%s --help` lists its flags", c.CommandPath())
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := closest(c, name); s != "" {
			hint = fmt.Sprintf("did you mean --%s? %s", s, hint)
		}
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

// closest is the flag of c nearest name, within two edits, or a flag name
// starts with it; "" when none is.
func closest(c *cobra.Command, name string) string {
	best, bestD := "", 3
	visit := func(f *pflag.Flag) {
		d := distance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD || d == bestD && f.Name < best {
			best, bestD = f.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return best
}

// distance is the Levenshtein distance of a and b, in bytes (flag names
// are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
