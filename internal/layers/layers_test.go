package layers

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/gpusla/gpusla"

// rule forbids every package under from to depend, directly or through
// others, on any package of the project under one of the prefixes in not
// ("" is all of them) but those under from itself and under a prefix in
// but.
type rule struct {
	from string
	not  []string
	why  string
	but  []string
}

var rules = []rule{
	{"infra/", []string{"functions/"}, "infra/ must not import functions/: adapters serve the application, never call up", nil},
	{"sla/", []string{""}, "sla/ must not import anything of the project's outside sla/: the domain is pure", nil},
	{"probe/", []string{"functions/", "infra/"}, "probe/ must not import functions/ or infra/: the probe runs on rented nodes with none of the backend in it", nil},
	{"probe/stress/result", []string{"probe/stress", "probe/cuda", "probe/kernels", "probe/nccl", "probe/gpu/nvmlread"},
		"probe/stress/result must import neither the stress runner nor its judging, CUDA, the kernels, NCCL or NVML: it is the plain data of a stress run", nil},
	{"probe/stress/judge", []string{"probe/stress", "probe/cuda", "probe/kernels", "probe/nccl", "probe/gpu/nvmlread"},
		"probe/stress/judge must not import the stress runner, CUDA, the kernels, NCCL or NVML: a stress report is judged with no GPU", []string{"probe/stress/result"}},
}

// forbidden reports whether rule r forbids a dependency on path.
func (r rule) forbidden(path string) bool {
	rel := strings.TrimPrefix(path, module+"/")
	if strings.HasPrefix(rel, r.from) {
		return false
	}
	for _, p := range r.but {
		if strings.HasPrefix(rel, p) {
			return false
		}
	}
	for _, p := range r.not {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

type pkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// graph lists, with `go list -deps`, every package of the module that a
// package of the module depends on, with its direct imports (test files
// excluded: a test may import a helper from anywhere).
func graph(t *testing.T) map[string][]string {
	t.Helper()
	g := map[string][]string{}
	for _, p := range goListDeps(t, module+"/...") {
		if p.Module != nil && p.Module.Path == module {
			g[p.ImportPath] = p.Imports
		}
	}
	if len(g) < 10 {
		t.Fatalf("go list -deps found only %d packages of %s; is the test running inside the module?", len(g), module)
	}
	return g
}

// goListDeps is `go list -deps` of pattern: every package it needs, with
// its direct imports.
func goListDeps(t *testing.T, pattern string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-e", "-json=ImportPath,Imports,Module", pattern)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v: %s", pattern, err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatalf("go list -deps output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// chain returns the shortest import chain from start to a project package
// that r forbids, or nil.
func chain(g map[string][]string, start string, r rule) []string {
	prev := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range g[p] {
			if _, ours := g[q]; !ours {
				continue // standard library or another module
			}
			if _, seen := prev[q]; seen {
				continue
			}
			prev[q] = p
			if r.forbidden(q) {
				var c []string
				for at := q; at != ""; at = prev[at] {
					c = append([]string{strings.TrimPrefix(at, module+"/")}, c...)
				}
				return c
			}
			queue = append(queue, q)
		}
	}
	return nil
}

func TestImportsPointTheRightWay(t *testing.T) {
	g := graph(t)
	for _, r := range rules {
		checked := 0
		for _, p := range slices.Sorted(maps.Keys(g)) {
			if !strings.HasPrefix(strings.TrimPrefix(p, module+"/"), r.from) {
				continue
			}
			checked++
			if c := chain(g, p, r); c != nil {
				t.Errorf("%s: %s", r.why, strings.Join(c, " → "))
			}
		}
		if checked == 0 {
			t.Errorf("no package under %s: the rule checks nothing", r.from)
		}
	}
}

// The check itself must be able to fail: a graph with a forbidden edge
// two steps away is caught, with the chain.
func TestChainFindsIndirectImports(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	g := map[string][]string{
		m("sla/report"):        {"fmt", m("sla/incident")},
		m("sla/incident"):      {m("internal/ctxsleep")},
		m("internal/ctxsleep"): {"context"},
		m("infra/slack"):       {m("infra/notify")},
		m("infra/notify"):      {m("sla/events")},
		m("sla/events"):        nil,
	}
	sla, infra := rules[1], rules[0]
	if c := chain(g, m("sla/report"), sla); strings.Join(c, " ") != "sla/report sla/incident internal/ctxsleep" {
		t.Errorf("sla/report: chain %v", c)
	}
	if c := chain(g, m("sla/events"), sla); c != nil {
		t.Errorf("sla/events: chain %v, want none", c)
	}
	if c := chain(g, m("infra/slack"), infra); c != nil {
		t.Errorf("infra/slack: chain %v, want none (sla/ is allowed)", c)
	}
	g[m("sla/events")] = []string{m("functions/app")}
	g[m("functions/app")] = nil
	if c := chain(g, m("infra/slack"), infra); strings.Join(c, " ") != "infra/slack infra/notify sla/events functions/app" {
		t.Errorf("infra/slack: chain %v", c)
	}
	// An exception (but) is allowed, and only it: the stress judging may
	// read the results, not reach the runner through them.
	judging := rules[4]
	g[m("probe/stress/judge")] = []string{m("probe/stress/result"), m("probe/specdb")}
	g[m("probe/stress/result")] = []string{m("probe/wire")}
	g[m("probe/specdb")], g[m("probe/wire")] = nil, nil
	if c := chain(g, m("probe/stress/judge"), judging); c != nil {
		t.Errorf("probe/stress/judge: chain %v, want none (probe/stress/result is allowed)", c)
	}
	g[m("probe/stress/result")] = []string{m("probe/stress")}
	g[m("probe/stress")] = []string{m("probe/cuda")}
	if c := chain(g, m("probe/stress/judge"), judging); strings.Join(c, " ") != "probe/stress/judge probe/stress/result probe/stress" {
		t.Errorf("probe/stress/judge: chain %v", c)
	}
}

// TestBackendBuildsWithoutCgo: the backend (functions/, infra/, sla/) must
// build with CGO_ENABLED=0 — the Lambdas are built so, and `go run
// ./functions/cmd/gpusla serve` on a machine without a C compiler (a fresh
// Debian with Go) builds so by default. Only the probe's NVML reader
// (probe/gpu/nvmlread, through go-nvml) needs cgo, so nothing of the
// backend may depend on it.
func TestBackendBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the backend")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, "./functions/...", "./infra/...", "./sla/...")
	cmd.Dir = "../.." // the module root, from this package's folder
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build of the backend: %v\n%s", err, out)
	}
}
