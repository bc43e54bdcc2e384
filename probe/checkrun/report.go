package checkrun

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// Exit codes of `gpuprobe check` and `gpuprobe stress`, one scheme for
// both (docs/probe-check.md, "Exit status").
const (
	ExitPass  = 0 // every check passed or was skipped
	ExitError = 1 // the command could not run: bad flags, unreadable config or snapshot, unknown ordered model
	ExitWarn  = 2 // at least one warning, no failure
	ExitFail  = 3 // at least one failure (stress: no GPU to test is one)
)

// Verdict is the worst verdict of the checks and its exit code.
func Verdict(checks []wire.Check) (string, int) {
	worst, code := wire.Pass, ExitPass
	for _, c := range checks {
		switch c.Verdict {
		case wire.Fail:
			return wire.Fail, ExitFail
		case wire.Warn:
			worst, code = wire.Warn, ExitWarn
		}
	}
	return worst, code
}

// ReportFormat is the version of the --json layout.
const ReportFormat = 1

// Report is the result of one run: the --json document.
type Report struct {
	Format     int            `json:"format"`
	Probe      string         `json:"probe"`
	Source     string         `json:"source"` // "live" or "snapshot:FILE"
	TakenAt    time.Time      `json:"taken_at"`
	DurationMS int64          `json:"duration_ms"`
	Verdict    string         `json:"verdict"` // worst verdict: pass, warn or fail
	ExitCode   int            `json:"exit_code"`
	Counts     map[string]int `json:"counts"`
	Checks     []wire.Check   `json:"checks"`
	// Curves are the per-second series of the measuring groups (the soak's
	// throughput curve, `check --soak`); absent when none ran.
	Curves []Curve `json:"curves,omitempty"`
}

func newReport(probe, source string, taken time.Time, d time.Duration, checks []wire.Check) *Report {
	r := &Report{Format: ReportFormat, Probe: probe, Source: source, TakenAt: taken, DurationMS: d.Milliseconds(),
		Counts: map[string]int{wire.Pass: 0, wire.Warn: 0, wire.Fail: 0, wire.Skipped: 0}, Checks: checks}
	if r.Checks == nil {
		r.Checks = []wire.Check{}
	}
	for _, c := range checks {
		r.Counts[c.Verdict]++
	}
	r.Verdict, r.ExitCode = Verdict(checks)
	return r
}

// Failed returns the checks with the given verdict.
func (r *Report) With(verdict string) []wire.Check {
	var out []wire.Check
	for _, c := range r.Checks {
		if c.Verdict == verdict {
			out = append(out, c)
		}
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the human table: one row per check, then the reasons
// for every warning and failure, then a summary line.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tGPU\tVERDICT\tVALUE\tCRITERION")
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Name, gpuCol(c.GPU), strings.ToUpper(c.Verdict), clip(c.Value, 60), clip(c.Criterion, 70))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range []string{wire.Fail, wire.Warn} {
		cs := r.With(v)
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", map[string]string{wire.Fail: "Failures", wire.Warn: "Warnings"}[v])
		for _, c := range cs {
			where := ""
			if c.GPU != nil {
				where = fmt.Sprintf(" (GPU %d)", *c.GPU)
			}
			detail := c.Detail
			if detail == "" {
				detail = fmt.Sprintf("%s, want %s", c.Value, c.Criterion)
			}
			fmt.Fprintf(w, "  %s%s [%s]: %s\n", c.Name, where, c.Category, detail)
		}
	}
	writeSkipped(w, r.With(wire.Skipped))
	_, err := fmt.Fprintf(w, "\n%d checks: %d pass, %d warn, %d fail, %d skipped; %s in %.2f s; exit %d\n",
		len(r.Checks), r.Counts[wire.Pass], r.Counts[wire.Warn], r.Counts[wire.Fail], r.Counts[wire.Skipped],
		strings.ToUpper(r.Verdict), float64(r.DurationMS)/1000, r.ExitCode)
	return err
}

func gpuCol(i *int) string {
	if i == nil {
		return "-"
	}
	return fmt.Sprintf("%d", *i)
}

// clip keeps table rows on one line; the JSON has the full text.
func clip(s string, n int) string {
	if s == "" {
		return "-"
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeSkipped says why checks were skipped, one line a reason, so that a
// renter reading the table sees what to give (a mirror, an order) or what
// the run left out, not only the word SKIPPED.
func writeSkipped(w io.Writer, cs []wire.Check) {
	var reasons []string
	names := map[string][]string{}
	for _, c := range cs {
		why := c.Detail
		if why == "" {
			why = "no reason given"
		}
		if _, ok := names[why]; !ok {
			reasons = append(reasons, why)
		}
		name := c.Name
		if c.GPU != nil {
			name = fmt.Sprintf("%s (GPU %d)", c.Name, *c.GPU)
		}
		names[why] = append(names[why], name)
	}
	if len(reasons) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSkipped:\n")
	for _, why := range reasons {
		fmt.Fprintf(w, "  %s: %s\n", strings.Join(names[why], ", "), why)
	}
}
