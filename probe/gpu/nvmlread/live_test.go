package nvmlread

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/gpusla/gpusla/probe/gpu"
)

// TestLiveNVML reads the real GPUs where there are some; elsewhere it
// checks that a missing driver is reported plainly.
func TestLiveNVML(t *testing.T) {
	s, err := New().Read(context.Background())
	if err != nil {
		if !gpu.IsDriverError(err) {
			t.Fatalf("not a driver error: %v", err)
		}
		t.Skipf("no usable NVIDIA driver here: %v", err)
	}
	if len(s.Devices) == 0 {
		t.Fatal("NVML initialised but lists no GPU")
	}
	for _, d := range s.Devices {
		if d.Name == "" || d.UUID == "" || d.MemoryTotalMiB == nil || d.PCI.DeviceID == 0 {
			t.Errorf("GPU %d: basic readings missing: %+v", d.Index, d)
		}
	}
	if p := os.Getenv("GPUPROBE_LIVE_SNAPSHOT"); p != "" {
		b, _ := json.MarshalIndent(s, "", "  ")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMissingLibraryIsPlain(t *testing.T) {
	err := initError(nvml.ERROR_LIBRARY_NOT_FOUND)
	if !gpu.IsDriverError(err) || err.Error() != "NVML init: the NVIDIA driver library libnvidia-ml.so.1 was not found: no NVIDIA driver is installed on this machine (ERROR_LIBRARY_NOT_FOUND)" {
		t.Fatalf("got %v", err)
	}
}
