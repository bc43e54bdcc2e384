// Package replacement turns a node's stored evidence into a request to
// replace the physical machine — the seed's "提交包含日志和压测结果的工单,
// 要求更换物理机": a bilingual ticket text to paste into the provider's
// system, a signed evidence pack the provider can check offline, and the
// hardware ticket opened on the renter's ticket desk so the contract's
// replacement clock runs.
package replacement

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
)

// Kinds are the incident kinds a replacement is requested for (the same
// the alert's "Request replacement" button is shown on); others are refused.
var Kinds = notify.ReplacementKinds

// IsHardwareKind says whether an incident kind warrants a replacement.
func IsHardwareKind(kind string) bool { return notify.WantsReplacement(kind) }

// Margin is how far around the incident failing checks are taken: the
// failures just before it opened are what opened it.
const Margin = 15 * time.Minute

// MaxBatches caps the raw batches put in a pack (the newest are kept; the
// manifest says how many were left out), so a week-long incident still
// gives a pack a provider's ticket system accepts as an attachment.
const MaxBatches = 64

// Check is one check result taken from a stored batch.
type Check struct {
	At    time.Time  `json:"at"`
	Seq   uint64     `json:"seq"`
	Batch string     `json:"batch"`
	Check wire.Check `json:"check"`
	// Incident says the check is the one the incident is about (same kind
	// and check key), not only another hardware failure at the time.
	Incident bool `json:"incident"`
}

// Evidence is everything the store holds about the incident.
type Evidence struct {
	Node     store.Node       `json:"node"`
	Incident store.Incident   `json:"incident"`
	Open     []store.Incident `json:"open_incidents"`
	// Failing are the non-passing hardware checks (gpu_lost, gpu_degraded,
	// inventory) of the batches in the incident's window, oldest first.
	Failing []Check `json:"failing"`
	// Kernel are the kernel-log / NVML XID lines the failing XID checks carry.
	Kernel []string `json:"kernel_log"`
	// Stress are the stress and performance results (any verdict) of the
	// batches kept: those of the window, else the newest the store has.
	Stress []Check `json:"stress"`
	// First are the node's first checks (its snapshot at delivery).
	First []Check `json:"first_checks"`
	// Batches are the raw batches all of the above came from, by seq.
	Batches []store.BatchRecord `json:"-"`
	// LeftOut counts window batches not kept (over MaxBatches).
	LeftOut int       `json:"left_out"`
	AsOf    time.Time `json:"as_of"`
}

// Records is what Gather reads: the node, its incidents and its stored
// batches, through the application's reads (*app.Service).
type Records interface {
	Node(ctx context.Context, id string) (store.Node, error)
	Incident(ctx context.Context, node, id string) (store.Incident, error)
	Incidents(ctx context.Context, node string, from, to time.Time) ([]store.Incident, error)
	Batches(ctx context.Context, node string, fromSeq, toSeq uint64) ([]store.BatchRecord, error)
}

// Gather reads the evidence for a replacement of node's machine because of
// incident id ("" picks the newest open incident of a Kinds kind).
func Gather(ctx context.Context, st Records, node, id string, now time.Time) (*Evidence, error) {
	n, err := st.Node(ctx, node)
	if errors.Is(err, store.ErrNotFound) {
		return nil, app.Errorf(app.EInvalid, "node", "no node %q is registered", node)
	}
	if err != nil {
		return nil, fmt.Errorf("replacement: node %s: %w", node, err)
	}
	incs, err := st.Incidents(ctx, node, n.OrderedAt.Add(-24*time.Hour), now.Add(time.Minute))
	if err != nil {
		return nil, fmt.Errorf("replacement: incidents of %s: %w", node, err)
	}
	ev := &Evidence{Node: n, AsOf: now, Open: []store.Incident{}, Failing: []Check{}, Kernel: []string{}, Stress: []Check{}, First: []Check{}}
	for _, inc := range incs {
		if inc.Open() {
			ev.Open = append(ev.Open, inc)
		}
	}
	if id == "" {
		var pick *store.Incident
		for i := range ev.Open {
			if IsHardwareKind(ev.Open[i].Kind) && (pick == nil || ev.Open[i].Start.After(pick.Start)) {
				pick = &ev.Open[i]
			}
		}
		if pick == nil {
			return nil, app.Errorf(app.EInvalid, "incident", "node %s has no open %s incident; name one with --incident",
				node, strings.Join(Kinds, "/"))
		}
		ev.Incident = *pick
	} else {
		inc, err := st.Incident(ctx, node, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, app.Errorf(app.EInvalid, "incident", "node %s has no incident %q", node, id)
		}
		if err != nil {
			return nil, fmt.Errorf("replacement: incident %s: %w", id, err)
		}
		if !IsHardwareKind(inc.Kind) {
			return nil, app.Errorf(app.EInvalid, "incident", "incident %s is %s; a replacement is requested for %s only",
				id, inc.Kind, strings.Join(Kinds, ", "))
		}
		ev.Incident = inc
	}
	if err := ev.readBatches(ctx, st); err != nil {
		return nil, err
	}
	return ev, nil
}

type decoded struct {
	rec   store.BatchRecord
	batch *wire.Batch
}

func (ev *Evidence) readBatches(ctx context.Context, st Records) error {
	recs, err := st.Batches(ctx, ev.Node.ID, 0, math.MaxUint64)
	if err != nil {
		return fmt.Errorf("replacement: batches of %s: %w", ev.Node.ID, err)
	}
	inc := ev.Incident
	from := inc.Start.Add(-Margin)
	to := ev.AsOf
	if !inc.Open() {
		to = inc.End.Add(Margin)
	}
	var window, stress []decoded
	var first *decoded
	for _, r := range recs {
		b, err := wire.Decode(r.Body)
		if err != nil {
			// Stored bodies were verified at ingest; one that no longer
			// decodes is damage the pack must not hide.
			return fmt.Errorf("replacement: stored batch %s seq %d does not decode: %w", r.Node, r.Seq, err)
		}
		d := decoded{r, b}
		if first == nil && slices.Contains(r.Why, "first_checks") {
			first = &d
		}
		inWin, hasStress := false, false
		for _, o := range b.Observations {
			for _, c := range o.Checks {
				if isStress(c) {
					hasStress = true
				}
			}
			if !o.At.Before(from) && !o.At.After(to) {
				inWin = true
			}
		}
		switch {
		case inWin:
			window = append(window, d)
		case hasStress:
			stress = append(stress, d)
		}
	}
	if len(window) > MaxBatches {
		ev.LeftOut = len(window) - MaxBatches
		window = window[len(window)-MaxBatches:]
	}
	keep := map[uint64]decoded{}
	for _, d := range window {
		keep[d.rec.Seq] = d
	}
	if first != nil {
		keep[first.rec.Seq] = *first
	}
	windowStress := false
	for _, d := range window {
		for _, o := range d.batch.Observations {
			for _, c := range o.Checks {
				windowStress = windowStress || isStress(c)
			}
		}
	}
	if !windowStress && len(stress) > 0 {
		d := stress[len(stress)-1]
		keep[d.rec.Seq] = d
	}
	seqs := make([]uint64, 0, len(keep))
	for s := range keep {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for _, s := range seqs {
		d := keep[s]
		ev.Batches = append(ev.Batches, d.rec)
		isFirst := first != nil && s == first.rec.Seq
		for _, o := range d.batch.Observations {
			inWin := !o.At.Before(from) && !o.At.After(to)
			for _, c := range o.Checks {
				ck := Check{At: o.At.UTC(), Seq: s, Batch: d.batch.ID, Check: c, Incident: matches(inc, c)}
				if isFirst {
					ev.First = append(ev.First, ck)
				}
				if isStress(c) {
					ev.Stress = append(ev.Stress, ck)
				}
				if inWin && c.Verdict != wire.Pass && c.Verdict != wire.Skipped && hardwareCategory(c.Category) {
					ev.Failing = append(ev.Failing, ck)
					if strings.HasPrefix(c.Name, "gpu.xid") && c.Detail != "" {
						for _, l := range strings.Split(c.Detail, " | ") {
							if !slices.Contains(ev.Kernel, l) {
								ev.Kernel = append(ev.Kernel, l)
							}
						}
					}
				}
			}
		}
	}
	sort.SliceStable(ev.Failing, func(i, j int) bool { return ev.Failing[i].At.Before(ev.Failing[j].At) })
	return nil
}

func hardwareCategory(c string) bool {
	k, ok := incident.KindOfCategory(c)
	return ok && IsHardwareKind(string(k))
}

// isStress: the stress job's results (the burns, memtest, bandwidth) and
// every performance figure.
func isStress(c wire.Check) bool {
	return c.Category == wire.CategoryPerformance || strings.HasPrefix(c.Name, "stress.") || c.Name == "gpu.stress" || c.Name == "gpu.memtest"
}

// matches: c is the check the incident is about.
func matches(inc store.Incident, c wire.Check) bool {
	k, ok := incident.KindOfCategory(c.Category)
	if !ok || string(k) != inc.Kind {
		return false
	}
	return inc.Check == "" || inc.Check == incident.CheckKey(&events.Check{Name: c.Name, GPU: c.GPU})
}
