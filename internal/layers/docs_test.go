package layers

import (
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"
)

// TestArchitectureIsTheMap holds docs/architecture.md to the code it maps:
// every package of the module is named there (by its path in backquotes,
// or by its last element beside a sibling's path on the same line, as in
// "`infra/provstatus/atlassian`, `rss`"), and each import rule this
// package enforces is stated in its "Which way imports point".
func TestArchitectureIsTheMap(t *testing.T) {
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	out, err := exec.Command("go", "list", "-e", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		if rel := strings.TrimPrefix(p, module+"/"); rel != p && !named(doc, rel) {
			t.Errorf("docs/architecture.md does not name package %s: add it to the packages table", rel)
		}
	}
	i := strings.Index(doc, "## Which way imports point")
	j := strings.Index(doc[i+1:], "\n## ")
	if i < 0 || j < 0 {
		t.Fatal(`docs/architecture.md has no "## Which way imports point" section`)
	}
	section := doc[i : i+1+j]
	for _, r := range rules {
		if !strings.Contains(section, "`"+r.from+"`") {
			t.Errorf("the rule for %s (%s) is not stated in docs/architecture.md, \"Which way imports point\"", r.from, r.why)
		}
	}
}

// named reports whether doc names the package at rel (a path in the
// module).
func named(doc, rel string) bool {
	if strings.Contains(doc, "`"+rel+"`") {
		return true
	}
	dir, base := path.Split(rel)
	for line := range strings.Lines(doc) {
		if strings.Contains(line, "`"+base+"`") && strings.Contains(line, "`"+dir) {
			return true
		}
	}
	return false
}

// The check must be able to fail.
func TestNamedNeedsThePathOrASibling(t *testing.T) {
	doc := "| `infra/provstatus/atlassian`, `rss` | parsers |\n| `rss` | elsewhere |\n"
	for rel, want := range map[string]bool{
		"infra/provstatus/atlassian": true, "infra/provstatus/rss": true,
		"infra/provstatus/atom": false, "sla/rss": false,
	} {
		if got := named(doc, rel); got != want {
			t.Errorf("named(%s) = %v, want %v", rel, got, want)
		}
	}
}
