package trialrun

import (
	"crypto/ed25519"
	"crypto/rand"
	"path/filepath"
	"testing"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/gputest"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/sla/trial"
)

// The trial's live path with the card behind go-nvml's mock: the
// battery's first step (the four steps after delivery) reads the GPUs
// through the probe's own NVML reader from a mock programmed with a
// recorded card, and the run judges and signs what it read. A card that
// calls itself an H100 but carries an H20's device id, an RTX 4090 D named
// a 4090 and a 4090 with 48 GB fail acceptance and the nvidia-smi row with
// the order and without one; an A100 40 GB reporting the 80 GB card's
// name fails without an order too, and under its own name only against
// an 80 GB order. The genuine H200 passes both held to
// its order, and without one is not measured, never a pass.
func TestTrialReadsTheCardThroughNVML(t *testing.T) {
	h200 := expect.Expected{Model: "H200", GPUs: 1, GPUMemoryGB: 141}
	a100named80 := func(d *gpu.Device) {
		// An A100 SXM4 40 GB (device id 0x20b0) whose VBIOS names it the
		// 80 GB card; its memory, bus and clocks are the 40 GB card's.
		d.Name, d.PCI.DeviceID = "NVIDIA A100-SXM4-80GB", 0x20b0<<16|0x10de
		d.MemoryTotalMiB, d.MemoryBusWidth, d.Cores = ptr(uint64(40960)), ptr(uint32(5120)), ptr(uint32(6912))
		d.MaxSMClockMHz, d.MaxMemClockMHz, d.PowerDefaultLimitW, d.PowerEnforcedLimitW = ptr(uint32(1410)), ptr(uint32(1215)), ptr(400.0), ptr(400.0)
		d.PCIeMaxGen, d.PCIeGPUMaxGen, d.PCIeCurrentGen = ptr(4), ptr(4), ptr(4)
		d.ComputeCapability = "8.0"
	}
	for _, c := range []struct {
		snapshot string
		edit     func(*gpu.Device)
		order    *expect.Expected // nil: the recording's
		acc, ord string
	}{
		{"h20-as-h100.json", nil, nil, trial.Fail, trial.Fail},
		{"h20-as-h100.json", nil, &expect.Expected{}, trial.Fail, trial.Fail},
		{"rtx4090d-relabelled.json", nil, nil, trial.Fail, trial.Fail},
		{"rtx4090d-relabelled.json", nil, &expect.Expected{}, trial.Fail, trial.Fail},
		{"rtx4090-48gb.json", nil, &expect.Expected{}, trial.Fail, trial.Fail},
		{"h200x1-real.json", a100named80, &expect.Expected{}, trial.Fail, trial.Fail},
		// The same card under its own name is a genuine A100 40 GB: held
		// to nothing, not measured; held to an 80 GB order, it fails.
		{"h200x1-real.json", func(d *gpu.Device) { a100named80(d); d.Name = "NVIDIA A100-SXM4-40GB" }, &expect.Expected{}, trial.NotMeasured, trial.NotMeasured},
		{"h200x1-real.json", func(d *gpu.Device) { a100named80(d); d.Name = "NVIDIA A100-SXM4-40GB" }, &expect.Expected{Model: "A100", GPUMemoryGB: 80}, trial.Fail, trial.Fail},
		{"h200x1-real.json", nil, &h200, trial.Pass, trial.Pass},
		{"h200x1-real.json", nil, &expect.Expected{}, trial.NotMeasured, trial.NotMeasured},
	} {
		s, err := checkrun.Recorded(c.snapshot)
		if err != nil {
			t.Fatal(err)
		}
		if c.edit != nil {
			for i := range s.GPU.Devices {
				c.edit(&s.GPU.Devices[i])
			}
		}
		order := c.order
		if order == nil {
			order = s.Expected
		}
		src := &nvmlread.NVML{Lib: gputest.Library(s.GPU)}
		b := BatteryOptions{Acceptance: []checkrun.Group{checkrun.GPUGroup(src, nil, specdb.Default(), order)}, Probe: "test"}
		_, key, _ := ed25519.GenerateKey(rand.Reader)
		res, err := Run(t.Context(), Options{Steps: Battery(b)[:1], Probe: "test", Order: *order, Out: filepath.Join(t.TempDir(), "out"), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Report.Steps[0].Checks); n < 10 {
			t.Fatalf("%s: the first step read %d checks through NVML", c.snapshot, n)
		}
		rows := verify(t, res.RecordPath).Manifest.Rows
		acc, ord := find(rows, trial.KeyAcceptance), find(rows, trial.KeyOrder)
		if acc.Verdict != c.acc || ord.Verdict != c.ord {
			t.Errorf("%s (order %+v): acceptance %s (%s), order %s (%s); want %s, %s", c.snapshot, *order, acc.Verdict, acc.Detail, ord.Verdict, ord.Detail, c.acc, c.ord)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func find(rows []trial.Row, key string) trial.Row {
	for _, r := range rows {
		if r.Key == key {
			return r
		}
	}
	return trial.Row{}
}
