package layers

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// gpuCode is what a package that judges without a GPU must not depend on:
// the CUDA driver and NCCL bindings (purego), the kernels, NVML (go-nvml,
// cgo) and the stress runner that uses them.
var gpuCode = []string{
	module + "/probe/cuda",
	module + "/probe/kernels",
	module + "/probe/nccl",
	module + "/probe/gpu/nvmlread",
	"github.com/NVIDIA/go-nvml",
	"github.com/ebitengine/purego",
}

// needsGPU lists the packages of p's dependency graph (p included) that are
// GPU code, the stress runner, or outside the standard library and built
// with cgo. The standard library's cgo is left out: net and os/user have
// pure Go fallbacks and build with CGO_ENABLED=0.
func needsGPU(t *testing.T, p string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,CgoFiles", p)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v: %s", p, err, stderr.String())
	}
	var bad []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var d struct {
			ImportPath string
			Standard   bool
			CgoFiles   []string
		}
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			return bad
		} else if err != nil {
			t.Fatalf("go list -deps output: %v", err)
		}
		switch {
		case d.ImportPath == module+"/probe/stress":
			bad = append(bad, d.ImportPath+" (the stress runner)")
		case len(d.CgoFiles) > 0 && !d.Standard:
			bad = append(bad, d.ImportPath+" (cgo)")
		default:
			for _, g := range gpuCode {
				if d.ImportPath == g || strings.HasPrefix(d.ImportPath, g+"/") {
					bad = append(bad, d.ImportPath)
				}
			}
		}
	}
}

// TestStressJudgingNeedsNoGPU: the stress results and their judging
// (probe/stress/result, probe/stress/judge) depend on no CUDA, NCCL, NVML
// or cgo package, and build with CGO_ENABLED=0, so a recorded report is
// judged on any machine; the runner, which the same check must catch,
// does.
func TestStressJudgingNeedsNoGPU(t *testing.T) {
	for _, p := range []string{module + "/probe/stress/result", module + "/probe/stress/judge"} {
		if bad := needsGPU(t, p); len(bad) > 0 {
			t.Errorf("%s depends on GPU code: %s", p, strings.Join(bad, ", "))
		}
	}
	runner := strings.Join(needsGPU(t, module+"/probe/stress"), " ")
	for _, want := range []string{"probe/stress (the stress runner)", "probe/cuda", "go-nvml/pkg/nvml (cgo)"} {
		if !strings.Contains(runner, want) {
			t.Errorf("the check misses %s in the runner's graph: %s", want, runner)
		}
	}
	if testing.Short() {
		return
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, "./probe/stress/result", "./probe/stress/judge")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build of the stress judging: %v\n%s", err, out)
	}
}
