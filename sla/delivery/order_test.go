package delivery

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

func num(v float64) *float64 { return &v }

// card is what the probe's health job reports of n GPUs named name with
// mib MiB each, every verdict of its own passing (a probe given no order:
// no gpu.order.* checks).
func card(name string, n int, mib float64) []events.Check {
	cs := []events.Check{{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Value: "n", Number: num(float64(n)), Unit: "GPUs"}}
	for g := range n {
		cs = append(cs,
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, Value: name, GPU: gpu(g)},
			events.Check{Name: "gpu.memory", Category: events.CategoryInventory, Verdict: events.Pass, Number: num(mib), Unit: "MiB", GPU: gpu(g)})
	}
	return cs
}

// olderCard is an older probe's check: the card's name, the count without
// its figure and no memory reading.
func olderCard(name string) []events.Check {
	return []events.Check{
		{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Value: "8"},
		{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, Value: name, GPU: gpu(0)},
	}
}

const (
	h100 = "NVIDIA H100 80GB HBM3" // NVML's name of the H100 SXM5 80 GB
	h800 = "NVIDIA H800"
	a40  = "NVIDIA A100-SXM4-40GB"
	a80  = "NVIDIA A100-SXM4-80GB"
)

// Acceptance holds the GPUs to the registration whatever the probe was
// told, both sides of every line: the model through the spec database's
// mirror, the count (fewer fails, more does not), the memory (more than
// 3 % below 81,920 MiB, 80 GB, fails: 79,462 MiB fails, 79,463 passes;
// more than 3 % above, 84,378 MiB, only warns as the probe's own order
// check warns). What cannot be held is judged on the probe's verdicts.
func TestAcceptedHeldToTheOrder(t *testing.T) {
	h100x8 := Order{Model: "H100", GPUs: 8, MemoryMiB: 81920}
	a100x8 := Order{Model: "A100", GPUs: 8, MemoryMiB: 81920}
	withFail := append(card(h100, 8, 81559), events.Check{Name: "gpu.temperature", Category: events.CategoryGPUDegraded, Verdict: events.Fail, GPU: gpu(0)})
	noName := card(h100, 1, 81559)
	noName[1].Value = ""
	cases := []struct {
		name   string
		checks []events.Check
		order  Order
		want   bool
	}{
		{"a genuine H100, 8 of 8, 81,559 MiB", card(h100, 8, 81559), h100x8, true},
		{"the same registered by its NVML name", card(h100, 8, 81559), Order{Model: h100, GPUs: 8}, true},
		{"a genuine H800 registered as an H100", card(h800, 8, 81559), h100x8, false},
		{"the H800 registered as an H800", card(h800, 8, 81559), Order{Model: "H800", GPUs: 8, MemoryMiB: 81920}, true},
		{"4 GPUs of 8", card(h100, 4, 81559), h100x8, false},
		{"7 GPUs of 8", card(h100, 7, 81559), h100x8, false},
		{"9 GPUs of 8: more is no mismatch", card(h100, 9, 81559), h100x8, true},
		{"a 40 GB A100 for an 80 GB order", card(a40, 8, 40960), a100x8, false},
		{"a 40 GB A100 for an A100 80GB by name", card(a40, 8, 40960), Order{Model: "A100 80GB", GPUs: 8}, false},
		{"an 80 GB A100 as ordered", card(a80, 8, 81920), a100x8, true},
		{"79,462 MiB: below 97 % of 81,920", card(a80, 8, 79462), a100x8, false},
		{"79,463 MiB: at or above 97 %", card(a80, 8, 79463), a100x8, true},
		{"84,378 MiB: over 103 % warns, no mismatch", card(a80, 8, 84378), a100x8, true},
		{"a probe verdict fails, the card as ordered", withFail, h100x8, false},
		{"a probe told another order than the registration", append(card(h800, 8, 81559),
			events.Check{Name: "gpu.order.model", Category: events.CategoryInventory, Verdict: events.Pass, GPU: gpu(0), Criterion: "H800 (ordered)"}), h100x8, false},
		{"an older probe's check, the card as ordered", olderCard(h100), h100x8, true},
		{"an older probe's check, an H800 for an H100", olderCard(h800), h100x8, false},
		{"no model registered: the probe's verdicts", card(h800, 8, 81559), Order{GPUs: 8}, true},
		{"a model the spec database does not know", card(h800, 8, 81559), Order{Model: "Acme X9", GPUs: 8}, true},
		{"a model check without the card's name", noName, Order{Model: "H100", GPUs: 1}, true},
		{"no registration at all", card(h800, 8, 81559), Order{}, true},
	}
	for _, c := range cases {
		if got := Accepted(c.checks, c.order); got != c.want {
			t.Errorf("%s: Accepted = %v, want %v (mismatches %v)", c.name, got, c.want, Mismatches(Inventory(c.checks), c.order))
		}
	}
}

// First reads a log in any order, the registration anywhere in it: an
// H800 reported from 10:00 every five minutes, replaced by an H100 at
// 12:00, is accepted at 12:00 against an H100 order whether the order is
// read first, last or between, and at 10:00 against an H800 order; the
// repeated readings before the order keep one entry each.
func TestFirstHeldToTheOrder(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	type obs struct {
		at     time.Time
		checks []events.Check
	}
	var log []obs
	for i := range 24 {
		log = append(log, obs{t0.Add(time.Duration(i) * 5 * time.Minute), card(h800, 8, 81559)})
	}
	for i := range 12 {
		log = append(log, obs{t0.Add(2*time.Hour + time.Duration(i)*5*time.Minute), card(h100, 8, 81559)})
	}
	h100x8, h800x8 := Order{Model: "H100", GPUs: 8, MemoryMiB: 81920}, Order{Model: "H800", GPUs: 8}
	for _, c := range []struct {
		name    string
		order   Order
		orderAt int // read before log[orderAt]
		reverse bool
		want    time.Time
	}{
		{"H100 order first", h100x8, 0, false, t0.Add(2 * time.Hour)},
		{"H100 order last", h100x8, len(log), false, t0.Add(2 * time.Hour)},
		{"H100 order between, log backwards", h100x8, 30, true, t0.Add(2 * time.Hour)},
		{"H800 order last, log backwards", h800x8, len(log), true, t0},
		{"H800 order between", h800x8, 5, false, t0},
	} {
		var f First
		seq := append([]obs(nil), log...)
		if c.reverse {
			for i, j := 0, len(seq)-1; i < j; i, j = i+1, j-1 {
				seq[i], seq[j] = seq[j], seq[i]
			}
		}
		for i, o := range seq {
			if i == c.orderAt {
				f.SetOrder(c.order)
			}
			f.Observe(o.at, o.checks)
			if len(f.pending) > 2 {
				t.Fatalf("%s: %d readings kept before the order, want one per inventory", c.name, len(f.pending))
			}
		}
		if c.orderAt == len(seq) {
			if len(f.pending) != 2 || !f.At().IsZero() {
				t.Fatalf("%s: before the order: %d kept, at %v", c.name, len(f.pending), f.At())
			}
			f.SetOrder(c.order)
		}
		if !f.At().Equal(c.want) {
			t.Errorf("%s: first acceptance %v, want %v", c.name, f.At(), c.want)
		}
	}
}
