package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/wiring"
)

// `node add` checks --contract against the terms serve would load
// ($GPUSLA_TERMS here); an unknown one is refused with the known ones.
func TestNodeAddChecksTheContract(t *testing.T) {
	t.Setenv(wiring.EnvTable, "")
	t.Setenv(wiring.EnvTerms, "../../../testdata/terms")
	for _, c := range []struct{ contract, err string }{
		{"us-example", ""},
		{"xyz", `--contract "xyz": unknown contract; known: cn-example, us-example`},
	} {
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs([]string{"node", "add", "--data", t.TempDir(), "--id", "n-1", "--contract", c.contract,
			"--gpu-model", "H200", "--gpus", "8", "--gpu-memory-gb", "141"})
		err := root.Execute()
		if c.err == "" && (err != nil || strings.Contains(out.String(), "warning")) {
			t.Errorf("%s: %v\n%s", c.contract, err, out.String())
		}
		if c.err != "" && (err == nil || err.Error() != c.err) {
			t.Errorf("%s: got %v, want %q", c.contract, err, c.err)
		}
	}
}
