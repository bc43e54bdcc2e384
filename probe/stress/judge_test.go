package stress

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// judgingFiles are the files of the judge step (the package doc names
// them): pure functions of a Report and the spec database.
var judgingFiles = []string{"judge.go", "verdict.go", "power_verdict.go", "allreduce_verdict.go", "spec.go"}

// TestJudgingNeedsNoGPU keeps the judge step apart from the running one:
// no judging file imports the CUDA driver, the kernels, NCCL or NVML, so a
// report rebuilt from recorded figures is judged on any machine.
func TestJudgingNeedsNoGPU(t *testing.T) {
	for _, name := range judgingFiles {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			for _, gpu := range []string{"/probe/cuda", "/probe/kernels", "/probe/nccl", "go-nvml", "/probe/gpu/nvmlread"} {
				if strings.Contains(imp.Path.Value, gpu) {
					t.Errorf("%s imports %s: judging must not need a GPU", name, imp.Path.Value)
				}
			}
		}
	}
}
