package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/wiring"
)

// `apikey create --scope tickets --scope read` keeps both scopes, as does
// "--scope tickets,read"; an unknown one is refused by name; --help shows
// --data's default, not words of its usage as the flag's value.
func TestAPIKeyScopes(t *testing.T) {
	t.Setenv(wiring.EnvTable, "")
	for _, args := range [][]string{{"--scope", "tickets", "--scope", "read"}, {"--scope", "tickets,read"}} {
		root := newRoot()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetArgs(append([]string{"apikey", "create", "--data", t.TempDir(), "--name", "me"}, args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !strings.Contains(errb.String(), "scopes read,tickets)") || !strings.HasPrefix(out.String(), "gsk_") {
			t.Errorf("%v: %q / %q", args, errb.String(), out.String())
		}
	}
	root := newRoot()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"apikey", "create", "--data", t.TempDir(), "--name", "me", "--scope", "read", "--scope", "wirte"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), `scope "wirte": not one of read, tickets, claims, admin`) {
		t.Errorf("unknown scope: %v", err)
	}
	root = newRoot()
	var help bytes.Buffer
	root.SetOut(&help)
	root.SetArgs([]string{"apikey", "create", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help.String(), "--data string") || strings.Contains(help.String(), "--data gpusla") {
		t.Errorf("help:\n%s", help.String())
	}
}
