package layers

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// What a Lambda function must never carry (a package or, with or
// without a trailing slash, anything below it): the probe's GPU and host code
// (it runs on rented nodes; only its wire protocol is shared), the command
// line and what only the local process and offline commands use. Each of
// these would grow every bootstrap and its cold start for nothing.
var lambdaForbidden = []string{
	"github.com/spf13/cobra",
	"github.com/NVIDIA/go-nvml",
	module + "/probe/",
	module + "/functions/cmd/",
	module + "/functions/serve",
	module + "/functions/demo",
	module + "/functions/loadgen",
	module + "/functions/monthreport",
	module + "/functions/eventexport",
	module + "/functions/nodeadd",
	module + "/functions/tables",
}

// lambdaAllowed are exceptions under a forbidden prefix.
var lambdaAllowed = []string{module + "/probe/wire"}

func lambdaForbids(path string) bool {
	for _, a := range lambdaAllowed {
		if path == a || strings.HasPrefix(path, a+"/") {
			return false
		}
	}
	for _, f := range lambdaForbidden {
		f = strings.TrimSuffix(f, "/")
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

// lambdaMains are the packages the Makefile builds as bootstraps.
func lambdaMains(t *testing.T) []string {
	t.Helper()
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, m := range regexp.MustCompile(`\$\(LAMBDA_BUILD\) (\./functions/\S+)`).FindAllSubmatch(mk, -1) {
		mains = append(mains, string(m[1]))
	}
	if len(mains) < 5 {
		t.Fatalf("found %d Lambda targets in the Makefile (%v); the pattern no longer matches it", len(mains), mains)
	}
	return mains
}

// TestLambdaMainsStayLean: no Lambda main depends, directly or through
// others, on the probe's GPU code, cobra or the local-only packages.
func TestLambdaMainsStayLean(t *testing.T) {
	for _, main := range lambdaMains(t) {
		g := map[string][]string{}
		for _, p := range goListDeps(t, module+strings.TrimPrefix(main, ".")) {
			g[p.ImportPath] = p.Imports
		}
		root := module + strings.TrimPrefix(main, ".")
		if c := pathTo(g, root, lambdaForbids); c != nil {
			t.Errorf("Lambda %s carries %s: %s", main, c[len(c)-1], strings.Join(c, " → "))
		}
	}
}

// pathTo is the shortest import chain from start to a package bad says
// yes to, or nil.
func pathTo(g map[string][]string, start string, bad func(string) bool) []string {
	prev := map[string]string{start: ""}
	for queue := []string{start}; len(queue) > 0; queue = queue[1:] {
		for _, q := range g[queue[0]] {
			if _, seen := prev[q]; seen {
				continue
			}
			prev[q] = queue[0]
			if bad(q) {
				var c []string
				for at := q; at != ""; at = prev[at] {
					c = append([]string{at}, c...)
				}
				return c
			}
			queue = append(queue, q)
		}
	}
	return nil
}

func TestLambdaForbids(t *testing.T) {
	for p, want := range map[string]bool{
		module + "/probe/wire":               false,
		module + "/probe/gpu":                true,
		"github.com/spf13/cobra":             true,
		"github.com/spf13/pflag":             false,
		module + "/functions/serve":          true,
		module + "/functions/servex":         false,
		module + "/functions/app":            false,
		"github.com/NVIDIA/go-nvml/pkg/nvml": true,
	} {
		if got := lambdaForbids(p); got != want {
			t.Errorf("lambdaForbids(%s) = %v, want %v", p, got, want)
		}
	}
	g := map[string][]string{"a": {"b", "c"}, "c": {module + "/probe/gpu"}}
	if c := pathTo(g, "a", lambdaForbids); strings.Join(c, " ") != "a c "+module+"/probe/gpu" {
		t.Errorf("chain %v", c)
	}
}
