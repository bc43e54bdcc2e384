package checkrun

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu/gputest"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

type recordedLog struct{ l *kmsg.Log }

func (r recordedLog) Read(context.Context) (*kmsg.Log, error) { return r.l, nil }

// Every recorded snapshot, served by go-nvml's mock, reads back through
// the live NVML reader to the same readings, and the daemon's CollectGPU
// reaches the same verdicts as judging the file.
func TestSnapshotsThroughNVMLMock(t *testing.T) {
	for _, file := range []string{"h200x2-real.json", "h200x1-real.json", "rtx4090d-relabelled.json", "h20-as-h100.json",
		"h200-power-capped.json", "h200-pcie-x8.json", "h200-remap-pending-xid79.json", "h200-vgpu-slice.json"} {
		t.Run(file, func(t *testing.T) {
			s, err := ReadSnapshot("testdata/snapshots/" + file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := (&nvmlread.NVML{Lib: gputest.Library(s.GPU)}).Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got.DriverVersion != s.GPU.DriverVersion || got.CUDAVersion != s.GPU.CUDAVersion || len(got.Devices) != len(s.GPU.Devices) {
				t.Fatalf("system readings: %+v", got)
			}
			for i := range got.Devices {
				g, w := got.Devices[i], s.GPU.Devices[i]
				g.ReadMillis, w.ReadMillis = 0, 0
				sort.Strings(g.Unsupported)
				w.Unsupported = append([]string(nil), w.Unsupported...)
				sort.Strings(w.Unsupported)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("GPU %d read back differently\n got %+v\nwant %+v", i, g, w)
				}
			}

			exp := expect.Expected{}
			if s.Expected != nil {
				exp = *s.Expected
			}
			live := CollectGPU(context.Background(), &nvmlread.NVML{Lib: gputest.Library(s.GPU)}, recordedLog{s.Kernel}, specdb.Default(), exp)
			recorded := JudgeGPU(s, specdb.Default(), exp)
			if v, w := verdicts(live), verdicts(recorded); !reflect.DeepEqual(v, w) {
				t.Errorf("live verdicts differ from recorded ones\n live %v\n file %v", v, w)
			}
		})
	}
}

func verdicts(cs []wire.Check) []string {
	var out []string
	for _, c := range cs {
		g := "-"
		if c.GPU != nil {
			g = string(rune('0' + *c.GPU))
		}
		out = append(out, c.Name+"/"+g+"="+c.Verdict)
	}
	return out
}
