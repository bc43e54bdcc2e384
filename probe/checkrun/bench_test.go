package checkrun

import (
	"testing"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/specdb"
)

// BenchmarkJudgeRecordedH200 measures judging the real 2×H200 snapshot
// (every GPU, kernel-log and host check): the part of `gpuprobe check`
// that is not waiting on NVML or the steal window.
func BenchmarkJudgeRecordedH200(b *testing.B) {
	s, err := ReadSnapshot(realSnapshot)
	if err != nil {
		b.Fatal(err)
	}
	exp := expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141}
	r := &Runner{Groups: []Group{GPUGroup(nil, nil, specdb.Default(), &exp), HostGroup(host.Reader{}, &exp)}}
	b.ReportAllocs()
	for b.Loop() {
		if rep := r.Recorded(s, "bench"); rep.ExitCode != ExitPass {
			b.Fatalf("exit %d", rep.ExitCode)
		}
	}
}
