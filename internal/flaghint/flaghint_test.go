package flaghint

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestFlagMistakesSayWhatToDo: a mistyped flag names the one meant and the
// --help that lists them; a bad value keeps pflag's words (the flag and the
// value) and gets the --help.
func TestFlagMistakesSayWhatToDo(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "gpusla", SilenceUsage: true, SilenceErrors: true}
		serve := &cobra.Command{Use: "serve", RunE: func(*cobra.Command, []string) error { return nil }}
		serve.Flags().String("listen", "127.0.0.1:8080", "")
		serve.Flags().String("data", "./data", "")
		serve.Flags().Int("gpus", 0, "")
		root.AddCommand(serve)
		Set(root)
		return root
	}
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"serve", "--listn", "x"}, []string{"unknown flag: --listn", "did you mean --listen?", "`gpusla serve --help` lists its flags"}, ""},
		{[]string{"serve", "--dat", "x"}, []string{"did you mean --data?"}, ""},
		{[]string{"serve", "--colour"}, []string{"unknown flag: --colour", "`gpusla serve --help`"}, "did you mean"},
		{[]string{"serve", "--gpus", "eight"}, []string{`invalid argument "eight" for "--gpus"`, "`gpusla serve --help` lists its flags"}, "did you mean"},
	} {
		root := newRoot()
		root.SetArgs(c.args)
		err := root.Execute()
		if err == nil {
			t.Fatalf("%v: no error", c.args)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q lacks %q", c.args, err, w)
			}
		}
		if c.not != "" && strings.Contains(err.Error(), c.not) {
			t.Errorf("%v: %q has %q", c.args, err, c.not)
		}
	}
}
