package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/gpu"
)

// recorded replays a recorded GPU snapshot as the GPUs.
type recorded struct{ s *gpu.Snapshot }

func (r recorded) Read(context.Context) (*gpu.Snapshot, error) { return r.s, nil }

// On a cluster the renter runs, the stress job waits while one of its pods
// holds a GPU, however idle the GPU reads; outside Kubernetes (renter_pods
// false) the same process is judged by utilisation alone.
func TestStressWaitsForTheRentersPods(t *testing.T) {
	snap, err := checkrun.ReadSnapshot(filepath.Join("..", "..", "checkrun", "testdata", "snapshots", "h200x2-real.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := snap.GPU
	if g == nil || len(g.Devices) < 2 {
		t.Fatal("the recorded snapshot has no GPUs")
	}
	g.Devices[1].Processes = []gpu.Proc{{PID: 4242, UsedMemoryMiB: 1200, Kind: "compute"}}
	proc := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proc, "4242"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "4242", "cgroup"),
		[]byte("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod4a1f9c2e_7b3d_4e5f_9a8b_0c1d2e3f4a5b.slice/cri-containerd-1.scope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{HostRoot: t.TempDir()}
	if err := os.Rename(proc, filepath.Join(cfg.HostRoot, "proc")); err != nil {
		t.Fatal(err)
	}
	cfg.Kubernetes.Renter = true
	idle, why, err := gpusIdle(t.Context(), gpuSource(cfg, recorded{g}), 5)
	if err != nil || idle || !strings.Contains(why, "held by the renter's Kubernetes pods: GPU 1 (pod 4a1f9c2e-7b3d-4e5f-9a8b-0c1d2e3f4a5b") {
		t.Fatalf("a GPU a pod holds: idle %v, %q, %v", idle, why, err)
	}
	for i := range g.Devices[1].Processes {
		g.Devices[1].Processes[i].Pod = ""
	}
	cfg.Kubernetes.Renter = false
	if idle, why, err := gpusIdle(t.Context(), gpuSource(cfg, recorded{g}), 5); err != nil || !idle {
		t.Fatalf("outside Kubernetes, an idle GPU with a process: idle %v, %q, %v", idle, why, err)
	}
}
