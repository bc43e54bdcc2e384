package checkrun

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
)

// The check results of every recorded snapshot (real H200 nodes, a
// relabelled H20, a 48 GB RTX 4090, a vGPU slice, a capped power limit, a
// pending row remap with XID 79, no driver …), held to an order, as the
// spool sends them: every value, criterion and detail reads in Chinese by
// the house style, the probe's data (names, paths, errors the system gave)
// excepted; each coded text's English is what the probe sends; no text
// goes as English only but the probe's data (dataText).
func TestRecordedChecksInChinese(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "snapshots", "*.json"))
	if err != nil || len(files) < 5 {
		t.Fatalf("snapshots %v: %v", files, err)
	}
	zh := i18n.New(i18n.ZH)
	coded, all := 0, 0
	for _, f := range files {
		s, err := ReadSnapshot(f)
		if err != nil {
			t.Fatal(err)
		}
		exp := expect.Expected{Model: "H200", GPUs: 8, GPUMemoryGB: 141, Driver: "570", CPUs: 64, RAMGB: 1024}
		r := &Runner{Groups: []Group{GPUGroup(nil, nil, specdb.Default(), &exp), HostGroup(host.Reader{}, &exp)}}
		for _, c := range r.Recorded(s, "snapshot").Checks {
			wire.ClipCheck(&c)
			for _, x := range []struct {
				en       string
				t        *wire.Text
				sentence bool
			}{{c.Value, c.ValueText, false}, {c.Criterion, c.CriterionText, true}, {c.Detail, c.DetailText, true}} {
				if x.en == "" {
					continue
				}
				all++
				var data []string
				if x.t == nil {
					data = []string{x.en}
				} else {
					coded++
					if x.t.String() != x.en {
						t.Errorf("%s %s: coded %q, sent %q", filepath.Base(f), c.Name, x.t.String(), x.en)
					}
					data = strArgs(*x.t)
				}
				got := zh.ProbeText(x.en, x.t, x.sentence)
				// Longest first: a name inside another is taken out with it.
				data = append(data, c.Name)
				slices.SortFunc(data, func(a, b string) int { return len(b) - len(a) })
				if x.t == nil && len(zhstyle.Check(x.en)) > 0 && !dataText[c.Name] {
					t.Errorf("%s %s: %q goes as English only", filepath.Base(f), c.Name, x.en)
				}
				for _, finding := range zhstyle.Check(got, data...) {
					t.Errorf("%s %s: %q: %s", filepath.Base(f), c.Name, got, finding)
				}
			}
		}
	}
	if m := zh.Missing(); len(m) > 0 {
		t.Errorf("not in the catalog: %q", m)
	}
	t.Logf("%d of %d texts coded", coded, all)
}

// dataText are the checks whose English-only texts are data: a card's or
// CPU's own name, the kernel's version line, kernel log lines and the XID
// codes' names, the clock-event reasons NVML names.
var dataText = map[string]bool{"gpu.identity": true, "gpu.model": true, "gpu.order.model": true, "host.cpu.model": true,
	"host.kernel": true, "gpu.xid.kernel_log": true, "gpu.xid.events": true, "gpu.clock_events": true}

// strArgs are the string arguments of t and its nested sentences: data.
func strArgs(t msg.Coded) []string {
	var out []string
	for _, a := range t.Args {
		switch {
		case a.S != nil:
			out = append(out, *a.S)
		case a.T != nil:
			out = append(out, strArgs(*a.T)...)
		}
	}
	return out
}
