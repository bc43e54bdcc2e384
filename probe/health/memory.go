package health

import (
	"fmt"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/wire"
)

// ECC: mode and error counters. Volatile counts are since the last driver
// load; aggregate counts are for the card's lifetime.
type ECC struct{}

func (ECC) Name() string { return "ecc" }

func (ECC) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		if d.ECCEnabled == nil {
			return []wire.Check{skipped("gpu.ecc", "ECC on, no uncorrectable errors", "the GPU has no ECC (consumer card)")}
		}
		var out []wire.Check
		mode := wire.Check{Name: "gpu.ecc.mode", Verdict: wire.Pass, Value: onOff(*d.ECCEnabled), Criterion: "ECC enabled"}
		if !*d.ECCEnabled {
			mode.Verdict, mode.Detail = wire.Warn, "ECC is off: memory errors go undetected (it can be turned on with nvidia-smi -e 1 and a reset)"
		} else if d.ECCPendingEnabled != nil && !*d.ECCPendingEnabled {
			mode.Verdict, mode.Detail = wire.Warn, "ECC will be off after the next reset"
		}
		out = append(out, mode)
		if !*d.ECCEnabled {
			return out
		}
		v := wire.Check{Name: "gpu.ecc.volatile", Verdict: wire.Pass, Criterion: "no uncorrectable errors since the driver loaded", Unit: "errors"}
		v.SetValue("%s uncorrectable, %s correctable", count(d.ECCVolatileUncorr), count(d.ECCVolatileCorr))
		if d.ECCVolatileUncorr != nil {
			v.Number = num(float64(*d.ECCVolatileUncorr))
			if *d.ECCVolatileUncorr > 0 {
				v.Verdict = wire.Fail
				v.SetDetail("%d uncorrectable ECC errors since the driver loaded", *d.ECCVolatileUncorr)
			}
		}
		out = append(out, v)
		a := wire.Check{Name: "gpu.ecc.aggregate", Verdict: wire.Pass, Criterion: "no uncorrectable errors in the card's lifetime (warn)", Unit: "errors"}
		a.SetValue("%s uncorrectable, %s correctable", count(d.ECCAggregateUncorr), count(d.ECCAggregateCorr))
		if d.ECCAggregateUncorr != nil {
			a.Number = num(float64(*d.ECCAggregateUncorr))
			if *d.ECCAggregateUncorr > 0 {
				a.Verdict = wire.Warn
				a.SetDetail("the card has had %d uncorrectable ECC errors in its life: a used or previously faulty card", *d.ECCAggregateUncorr)
			}
		}
		out = append(out, a)
		return out
	})
}

// RemapFailRows is Azure's limit on uncorrectable remapped rows.
const RemapFailRows = 512

// RemappedRows: HBM rows replaced after errors (Ampere and later). A
// pending remap needs a GPU reset; a failed one means spare rows ran out.
type RemappedRows struct{}

func (RemappedRows) Name() string { return "remapped_rows" }

func (RemappedRows) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		crit := wire.T("none pending, none failed, < %d uncorrectable", RemapFailRows)
		r := d.RemappedRows
		if r == nil {
			return []wire.Check{skippedSaid("gpu.remapped_rows", crit, "row remapping not supported (pre-Ampere or consumer card)")}
		}
		c := wire.Check{Name: "gpu.remapped_rows", Verdict: wire.Pass, Number: num(float64(r.Uncorrectable)), Unit: "rows"}
		c.Criterion, c.CriterionText = wire.Put(crit)
		c.SetValue("%d uncorrectable, %d correctable, pending %s, failure %s", r.Uncorrectable, r.Correctable, yesNo(r.Pending), yesNo(r.Failure))
		switch {
		case r.Failure:
			c.Verdict, c.Detail = wire.Fail, "a row remapping failed: the memory has run out of spare rows; the GPU needs replacing"
		case r.Pending:
			c.Verdict, c.Detail = wire.Fail, "a row remapping is pending: memory errors occurred and the GPU must be reset before it is reliable"
		case r.Uncorrectable >= RemapFailRows:
			c.Verdict = wire.Fail
			c.SetDetail("%d rows remapped for uncorrectable errors", r.Uncorrectable)
		}
		return []wire.Check{c}
	})
}

// Retired page limits: NVIDIA cards retire at most 64 pages; at 60 the
// card is due for replacement.
const (
	RetiredPagesFail = 60
)

// RetiredPages: pre-Ampere page retirement.
type RetiredPages struct{}

func (RetiredPages) Name() string { return "retired_pages" }

func (RetiredPages) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		crit := wire.T("none pending, < %d retired", RetiredPagesFail)
		if d.RetiredPagesSBE == nil && d.RetiredPagesDBE == nil && d.RetiredPagesPending == nil {
			why := "page retirement not supported"
			if d.RemappedRows != nil {
				why = "page retirement not supported (this GPU remaps rows instead)"
			}
			return []wire.Check{skippedSaid("gpu.retired_pages", crit, why)}
		}
		total := deref(d.RetiredPagesSBE) + deref(d.RetiredPagesDBE)
		pending := d.RetiredPagesPending != nil && *d.RetiredPagesPending
		c := wire.Check{Name: "gpu.retired_pages", Verdict: wire.Pass, Number: num(float64(total)), Unit: "pages"}
		c.Criterion, c.CriterionText = wire.Put(crit)
		c.SetValue("%d (%d single-bit, %d double-bit), pending %s", total, deref(d.RetiredPagesSBE), deref(d.RetiredPagesDBE), yesNo(pending))
		switch {
		case pending:
			c.Verdict, c.Detail = wire.Fail, "a page retirement is pending: reset the GPU"
		case total >= RetiredPagesFail:
			c.Verdict = wire.Fail
			c.SetDetail("%d pages retired: the card is due for replacement", total)
		case total > 0:
			c.Verdict = wire.Warn
			c.SetDetail("%d pages retired after memory errors", total)
		}
		return []wire.Check{c}
	})
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func count(p *uint64) string {
	if p == nil {
		return "?"
	}
	return fmt.Sprintf("%d", *p)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func yesNo(b bool) wire.Text {
	if b {
		return wire.T("yes")
	}
	return wire.T("no")
}
