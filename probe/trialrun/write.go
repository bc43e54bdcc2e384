package trialrun

import (
	"bytes"
	"cmp"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/internal/edkey"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
	"github.com/gpusla/gpusla/sla/trial"
)

// write renders trial.json and trial.md, writes them into the folder and,
// signed with the node's key, into acceptance.zip; every file atomically.
func write(o Options, rep *Report) (*Result, error) {
	if len(o.Key) == ed25519.PrivateKeySize {
		pub := o.Key.Public().(ed25519.PublicKey)
		rep.PublicKey, rep.KeyID = base64.StdEncoding.EncodeToString(pub), edkey.ID(pub)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("trial report: %w", err)
	}
	js = append(js, '\n')
	md := []byte(Markdown(rep))
	res := &Result{Report: rep, Dir: o.Out, RecordPath: filepath.Join(o.Out, RecordName)}
	for _, f := range []acceptance.File{{Name: acceptance.ReportJSON, Data: js}, {Name: acceptance.ReportMD, Data: md}} {
		if err := atomicfile.WriteFile(filepath.Join(o.Out, f.Name), f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	m := rep.Manifest
	var zip bytes.Buffer
	res.RecordHash, err = acceptance.Write(&zip, &m, []acceptance.File{{Name: acceptance.ReportJSON, Data: js}, {Name: acceptance.ReportMD, Data: md}}, o.Key)
	if err != nil {
		return nil, err
	}
	rep.Files = m.Files
	if err := atomicfile.WriteFile(res.RecordPath, zip.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// Markdown is trial.md: the seed's criteria with their verdicts first,
// then how each step went and every check it made.
func Markdown(rep *Report) string {
	var b strings.Builder
	node := rep.Node
	if node == "" {
		node = "(no node id: not enrolled)"
	}
	fmt.Fprintf(&b, "# gpuprobe trial: %s\n\n", mdText(rep.Verdict))
	fmt.Fprintf(&b, "Node %s on host %s, probe %s. From %s to %s: %s (planned %s).\n\n", mdText(node), mdText(rep.Hostname), mdText(rep.Probe),
		rep.Started.Format(time.RFC3339), rep.Finished.Format(time.RFC3339), secs(rep.WallSeconds), secs(rep.PlannedSeconds))
	switch r := rep.Replayed; {
	case r != nil:
		fmt.Fprintf(&b, "**Replayed from the recorded snapshot %s (sha256 %s), taken %s on host %s by probe %s: every reading is the recording's. "+
			"Nothing was measured on a live card, so the burns, the soak, the power test, bandwidth, the all-reduce and iperf3 are not measured.**\n\n",
			mdText(r.File), r.SHA256, r.TakenAt.UTC().Format(time.RFC3339), mdText(cmp.Or(r.Hostname, "-")), mdText(cmp.Or(r.Probe, "-")))
	case rep.Soak.PlannedSeconds == 0:
		fmt.Fprintf(&b, "**No soak ran (--soak 0): the seed's gpu_burn criterion, %s without error, is not measured here.**\n\n", secs(rep.Soak.SeedSeconds))
	case rep.Soak.Shortened:
		fmt.Fprintf(&b, "**The soak was shortened to %s: the seed's gpu_burn criterion is %s without error, so it is not measured here.**\n\n",
			secs(rep.Soak.PlannedSeconds), secs(rep.Soak.SeedSeconds))
	}
	b.WriteString("| criterion | verdict | figure | what passes | the seed |\n|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		detail := r.Detail
		if detail != "" {
			detail = "; " + detail
		}
		fmt.Fprintf(&b, "| %s | %s | %s%s | %s | %s |\n", r.Key, r.Verdict, mdText(Figure(r)), mdText(detail), mdText(r.Criterion), mdText(r.Seed))
	}
	// The seed's other dimensions are not the node's to measure: say so,
	// so that this verdict is never read as theirs.
	b.WriteString("\nNot judged here, and not part of this verdict: delivery (order to delivery), the 22:00 test ticket, billing granularity " +
		"and what the trial cost — the backend's trial page judges them (`gpusla scorecard --trial`).\n")
	b.WriteString("\n## Steps\n\n| step | planned | took | checks |\n|---|---|---|---|\n")
	for _, s := range rep.Steps {
		took := secs(s.Seconds)
		if s.NotRun != "" {
			took = "not run: " + s.NotRun
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", mdText(s.Name), secs(s.PlannedSeconds), mdText(took), len(s.Checks))
	}
	b.WriteString("\n## Every check\n\n| step | check | GPU | verdict | value | criterion | detail |\n|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Steps {
		for _, c := range s.Checks {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdText(s.Name), mdText(c.Name), gpuText(c), c.Verdict, mdText(c.Value), mdText(c.Criterion), mdText(c.Detail))
		}
	}
	if rep.Pushed != nil {
		fmt.Fprintf(&b, "\nPushed to %s: %d batches spooled in %s, %d acknowledged when this was written.\n", mdText(rep.Pushed.Backend), rep.Pushed.Batches, mdText(rep.Pushed.Spool), rep.Pushed.Acked)
	} else {
		b.WriteString("\nNot pushed: no --config names a backend.\n")
	}
	fmt.Fprintf(&b, "\nSigned acceptance record: %s, key %s (`gpusla verify %s`).\n", RecordName, rep.KeyID, RecordName)
	return b.String()
}

// Figure is a row's figure as printed: the digits that never contradict
// its verdict, "≥" for an unfinished case, "–" for none.
func Figure(r trial.Row) string {
	if r.Value == nil {
		return "–"
	}
	s := strconv.FormatFloat(r.Shown, 'f', r.Digits, 64) + " " + r.Unit
	if r.AtLeast {
		s = "≥ " + s
	}
	return s
}

func gpuText(c wire.Check) string {
	if c.GPU == nil {
		return "-"
	}
	return strconv.Itoa(*c.GPU)
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// mdText keeps a value from the node (a check's text, a host name) one
// table cell of plain text: pipes, backslashes, Markdown's markup and
// line breaks escaped.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r':
			b.WriteByte(' ')
		case '|', '\\', '`', '*', '_', '[', ']', '<', '>', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
