package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// TestSystem runs one scripted day in the life of the system, once on the
// embedded store and once on DynamoDB (dynalite): three nodes with real
// probes; one probe is killed and restarted; the backend is stopped while
// the probes keep spooling; one node's GPU falls off the bus (replayed
// snapshot: XID 79, pending row remap) and comes back; a ticket opened
// off-hours is answered late; then the month's report the backend builds
// (Slack /gpusla report) is recomputed offline from `gpusla export` and the
// two must agree. Each phase checks its exact outcome.
func TestSystem(t *testing.T) {
	for _, store := range []string{storeEmbedded, storeDynamo} {
		t.Run(store, func(t *testing.T) { systemRun(t, store) })
	}
}

func systemRun(t *testing.T, store string) {
	sl := newFakeSlack(t)
	b := newBackend(t, store, sl, "127.0.0.1")
	regs := map[string]registered{}
	for _, id := range []string{"kill-1", "steady-1", "gpu-1"} {
		regs[id] = b.addNode(id)
	}
	key := b.apiKey("e2e tickets")
	b.start()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", tail(b.logs.String(), 6000))
		}
	})
	probes := map[string]*probe{}
	for id, reg := range regs {
		probes[id] = newProbe(t, reg, snapHealthy, nil)
		probes[id].start()
	}
	t.Cleanup(func() {
		if t.Failed() {
			for id, p := range probes {
				t.Logf("probe %s log:\n%s", id, tail(p.logs.String(), 2000))
			}
		}
	})
	eventually(t, 30*time.Second, "every node's heartbeats and first health checks are stored", func() bool {
		ns := b.nodes()
		for id := range regs {
			if ns[id].LastSeq < 3 || ns[id].FirstHeartbeatAt.IsZero() {
				return false
			}
		}
		return true
	})
	if n := len(sl.all()); n != 0 {
		t.Fatalf("a healthy start sent %d Slack messages, want none: %+v", n, sl.all())
	}

	// --- a probe killed (the node dies) and restarted -----------------------
	// Killed once the backend has heard it in time (its newest observation
	// received within a second of being made): the incident then begins
	// after that observation. (A loaded machine can hold an ingest past
	// the probe's timeout, and a node not heard in time before the kill
	// has its gap begin earlier, as it should.)
	var heard time.Time
	eventually(t, waitfor.Limit, "kill-1 heard in time", func() bool {
		n := b.nodes()["kill-1"]
		heard = n.LastHeartbeatAt
		return !heard.IsZero() && n.LastReceivedAt.Sub(heard) <= time.Second
	})
	pk := probes["kill-1"]
	killedAt := time.Now()
	pk.kill()
	eventually(t, 30*time.Second, "an unreachable alert for kill-1", func() bool {
		return len(sl.messages("[unreachable] kill-1 unreachable")) == 1
	})
	alertedAt := time.Now()
	time.Sleep(2 * time.Second) // the node stays dead a while after its alert: the stimulus
	pk.start()
	eventually(t, 30*time.Second, "kill-1's recovery", func() bool {
		return len(sl.messages("[recovered] kill-1 recovered: unreachable for ")) == 1
	})
	down, up := sl.messages("[unreachable] kill-1")[0], sl.messages("[recovered] kill-1")[0]
	if up.Thread != down.TS || !up.Broadcast {
		t.Errorf("recovery posted in thread %q (broadcast %v), want a broadcast reply in the alert's thread %q", up.Thread, up.Broadcast, down.TS)
	}
	inc, err := incidentOf(b.incidents("kill-1"), "unreachable")
	if err != nil {
		t.Fatal(err)
	}
	if inc.Open() || !inc.Counted {
		t.Errorf("kill-1 unreachable incident: open %v, counted %v; want closed and counted", inc.Open(), inc.Counted)
	}
	// Backdated: it began when the next heartbeat was due after the last
	// one heard in time (at most about a second after the kill), not when
	// the grace ran out and the alert went.
	if inc.Start.Before(heard) || inc.Start.After(killedAt.Add(2*time.Second)) {
		t.Errorf("incident starts %s, want after the last observation heard in time %s and within 2 s of the kill at %s",
			inc.Start.Format(time.RFC3339Nano), heard.Format(time.RFC3339Nano), killedAt.Format(time.RFC3339Nano))
	}
	if d := inc.ConfirmedAt.Sub(inc.Start); d < 3*time.Second {
		t.Errorf("confirmed %s after its start, want at least the 3 s grace (backdated)", d)
	}
	if inc.ConfirmedAt.After(alertedAt) {
		t.Errorf("confirmed at %s, after the alert was seen at %s", inc.ConfirmedAt, alertedAt)
	}
	unreachable := inc

	// --- the backend stopped while probes keep spooling ---------------------
	b.stop()
	// The outage's length (the stimulus): past twice heartbeat + grace, so
	// that a backend counting its own absence as the nodes' would open
	// outages after its restart.
	time.Sleep(8 * time.Second)
	for id, p := range probes {
		eventually(t, time.Minute, "probe "+id+" spooling while the backend is down", func() bool { return p.spooled() > 0 })
	}
	b.start()
	// Every batch made while the backend was down is stored: each probe's
	// up to the last it had made when the backend came back. (Not "every
	// spool empty": a probe spools each new batch before it sends it, so
	// on a loaded machine three empty spools at one look is a coincidence.)
	made := map[string]uint64{}
	for id, p := range probes {
		made[id] = p.lastSpooled()
	}
	eventually(t, waitfor.Limit, "every batch spooled during the outage stored after the restart", func() bool {
		ns := b.nodes()
		for id, seq := range made {
			if ns[id].LastSeq < seq {
				return false
			}
		}
		return true
	})
	// A deliberate pause, not a wait: no new unreachable alert may come,
	// and a few watchdog ticks give a wrong one time to show. A loaded
	// machine can only hide one (a weaker check), never fail a right
	// backend.
	time.Sleep(3 * time.Second)
	if got := len(sl.messages("[unreachable]")); got != 1 {
		t.Errorf("%d unreachable alerts after the backend outage, want still only kill-1's: %+v", got, sl.all())
	}
	for _, id := range []string{"steady-1", "gpu-1"} {
		if incs := b.incidents(id); len(incs) != 0 {
			t.Errorf("%s has incidents after the backend outage, want none: %s", id, jsonOf(incs))
		}
	}
	// Still only the incident of its kill: /v1/incidents lists that one
	// once per part when its parts had different causes (incidentOf), so
	// the parts are counted as the incident they are.
	if inc, err := incidentOf(b.incidents("kill-1"), "unreachable"); err != nil || inc.ID != unreachable.ID {
		t.Errorf("kill-1's unreachable incident after the backend outage: %v (%s), want only %s", err, inc.ID, unreachable.ID)
	}
	for _, inc := range b.incidents("kill-1") {
		if inc.ID != unreachable.ID {
			t.Errorf("kill-1 has an incident besides the unreachable one after the backend outage: %s", jsonOf(inc))
		}
	}

	// --- a GPU falls off the bus (XID 79, pending row remap) ----------------
	pg := probes["gpu-1"]
	pg.useSnapshot(snapDegraded)
	eventually(t, 30*time.Second, "GPU lost and GPU degraded alerts for gpu-1", func() bool {
		return len(sl.messages("[gpu_lost] gpu-1 GPU lost")) == 1 && len(sl.messages("[gpu_degraded] gpu-1 GPU hardware fault")) == 1
	})
	lost, degraded := sl.messages("[gpu_lost] gpu-1 GPU lost")[0], sl.messages("[gpu_degraded] gpu-1 GPU hardware fault")[0]
	for _, want := range []string{"gpu.xid.kernel_log", "79 GPU has fallen off the bus"} {
		if !strings.Contains(lost.Text, want) {
			t.Errorf("GPU lost alert lacks %q: %s", want, lost.Text)
		}
	}
	for _, want := range []string{"gpu.remapped_rows (GPU 1)", "pending yes"} {
		if !strings.Contains(degraded.Text, want) {
			t.Errorf("GPU degraded alert lacks %q: %s", want, degraded.Text)
		}
	}
	incs := b.incidents("gpu-1")
	for kind, check := range map[string]string{"gpu_lost": "gpu.xid.kernel_log", "gpu_degraded": "gpu.remapped_rows"} {
		inc, err := incidentOf(incs, kind)
		if err != nil {
			t.Fatal(err)
		}
		if !inc.Open() || len(inc.Failed) == 0 || inc.Failed[0].Name != check {
			t.Errorf("%s incident: open %v, failed %+v; want open with %s", kind, inc.Open(), inc.Failed, check)
		}
	}
	pg.useSnapshot(snapHealthy)
	eventually(t, 30*time.Second, "gpu-1 recovers from both", func() bool {
		return len(sl.messages("[recovered] gpu-1 recovered: GPU lost")) == 1 && len(sl.messages("[recovered] gpu-1 recovered: GPU hardware fault")) == 1
	})
	if m := sl.messages("[recovered] gpu-1 recovered: GPU lost")[0]; m.Thread != lost.TS {
		t.Errorf("GPU lost recovery in thread %q, want %q", m.Thread, lost.TS)
	}

	// --- a ticket opened off-hours, answered late ---------------------------
	opened := time.Now().Add(-45 * time.Minute).UTC().Truncate(time.Second)
	tk := ticketCall(t, b, key, "POST", httpapi.PathTickets, map[string]any{"node": "steady-1", "priority": "P1",
		"summary": "GPU 3 throttles", "opened_at": opened, "idempotency_key": "e2e-1"}, http.StatusCreated)
	ticket := tk["id"].(string)
	openMsg := func() []slackMsg { return sl.messages("[ticket_opened] ticket " + ticket + " on steady-1: opened") }
	eventually(t, 30*time.Second, "the ticket's Slack message and its breach notice", func() bool {
		return len(openMsg()) == 1 && len(sl.messages("[ticket_breached] ticket "+ticket+" on steady-1: deadline BREACHED")) == 1
	})
	breach := sl.messages("[ticket_breached] ticket " + ticket)[0]
	if breach.Thread != openMsg()[0].TS {
		t.Errorf("breach notice in thread %q, want the ticket's thread %q", breach.Thread, openMsg()[0].TS)
	}
	answered := time.Now().UTC().Truncate(time.Second)
	ticketCall(t, b, key, "POST", httpapi.PathTickets+"/"+ticket+"/events", map[string]any{"type": "provider_responded",
		"at": answered, "idempotency_key": "e2e-2"}, http.StatusCreated)

	// --- the month's report: backend's versus offline from the export -------
	for _, p := range probes {
		p.stop()
	}
	// Every batch each probe made was acknowledged and stored: the chain
	// head the backend holds is the probe's last batch.
	ns := b.nodes()
	// A batch made while the probe stopped stays spooled for its next start
	// (never rejected, never lost).
	// (A stored batch whose ack the stop cut off stays spooled too, and
	// comes back as a duplicate.)
	for id, p := range probes {
		last, stored := p.lastSpooled(), ns[id].LastSeq
		missing := []uint64{}
		for seq := stored + 1; seq <= last; seq++ {
			if !p.hasSpooled(seq) {
				missing = append(missing, seq)
			}
		}
		if stored > last || len(missing) > 0 || p.rejected() != 0 {
			t.Errorf("%s: the backend stored batches up to %d, the probe made %d; neither stored nor spooled: %v; rejected: %d",
				id, stored, last, missing, p.rejected())
		}
	}
	month := time.Now().UTC().Format("2006-01")
	if code, body := b.slash("report " + month); code != 200 || !strings.Contains(body, "Building the report") {
		t.Fatalf("/gpusla report: %d %s", code, body)
	}
	eventually(t, 60*time.Second, "the report summary at the response_url", func() bool { return len(sl.slashResponses()) == 1 })
	summary := sl.slashResponses()[0]
	b.stop()

	dir := t.TempDir()
	evPath, repPath := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "report.json")
	run(t, b.env, bin.gpusla, "export", "--data", b.dir, "--month", month, "-o", evPath)
	// "(as of T)", or "(provisional, as of T: the month is not over …)"
	// for the month this test runs in.
	asOf := regexp.MustCompile(`as of (\d{4}-\d\d-\d\dT[0-9:.]+Z)[):]`).FindStringSubmatch(summary)
	if asOf == nil {
		t.Fatalf("summary names no as-of time:\n%s", summary)
	}
	run(t, nil, bin.gpusla, "report", "--terms", terms, "--events", evPath, "--month", month, "--as-of", asOf[1], "--format", "json", "-o", repPath)
	rep := readReport(t, repPath)
	if dbg := os.Getenv("GPUSLA_E2E_KEEP"); dbg != "" {
		for _, p := range []string{evPath, repPath} {
			raw, _ := os.ReadFile(p)
			_ = os.WriteFile(filepath.Join(dbg, b.store+"-"+filepath.Base(p)), raw, 0o644)
		}
		_ = os.WriteFile(filepath.Join(dbg, b.store+"-summary.txt"), []byte(summary), 0o644)
	}
	compareSummary(t, summary, rep)

	// Exact outcomes in the offline report.
	nodes := map[string]report.Node{}
	for _, n := range rep.Nodes {
		nodes[n.Node] = n
	}
	k := nodes["kill-1"]
	wantOutage := unreachable.End.Sub(unreachable.Start).Seconds()
	if !hasOutageWith(k, "no_data", true) {
		t.Errorf("kill-1's report has no counted no_data outage: %+v", k.Outages)
	}
	// The probes were stopped before the report was asked for: built more
	// than the grace after that (a loaded machine), the report has each
	// node's silence since then as an outage still going at its as-of.
	// Every figure below is of the rows before it.
	if got := float64(countedSeconds(settled(k), "unreachable")); got-wantOutage < -2 || got-wantOutage > 2 {
		t.Errorf("kill-1 claimable outage %.0f s, want the incident's %.1f s (±2): %+v", got, wantOutage, k.Outages)
	}
	// The backend's own downtime is charged to no node: silent only while
	// the backend was down and heard again within the grace of its restart
	// (the spool drained), a node has no row for it, as it has no incident
	// live (docs/reports.md, "The backend's own downtime"); a backend_outage
	// part of a row is never counted.
	for _, n := range rep.Nodes {
		for _, o := range n.Outages {
			if o.Cause == "backend_outage" && o.Counted {
				t.Errorf("%s: a backend_outage row is counted: %+v", n.Node, o)
			}
		}
	}
	for _, id := range []string{"steady-1", "gpu-1"} {
		for _, o := range settled(nodes[id]) {
			if o.Kind == "unreachable" {
				t.Errorf("%s: an unreachable row for the backend's own downtime: %+v", id, o)
			}
		}
	}
	if rows := settled(nodes["steady-1"]); len(rows) != 0 {
		t.Errorf("steady-1: outage rows %+v; want none (the backend was down, not the node)", rows)
	}
	g := nodes["gpu-1"]
	if g.Uptime.ClaimableOutageSeconds <= 0 {
		t.Errorf("gpu-1's GPU lost time is not claimable (%+v)", g.Uptime)
	}
	if !hasOutage(g, "gpu_lost", "gpu.xid.kernel_log") {
		t.Errorf("gpu-1's report lists no gpu_lost outage with the XID evidence: %+v", g.Outages)
	}
	st := nodes["steady-1"]
	if len(st.Tickets) != 1 || !st.Tickets[0].Breached || !st.Tickets[0].OffHours || st.Tickets[0].Response == nil {
		t.Fatalf("steady-1's tickets: %+v, want one off-hours, breached", st.Tickets)
	}
	late := answered.Sub(opened.Add(30 * time.Minute)).Seconds()
	if got := float64(st.Tickets[0].Response.LateSeconds); got < late-1 || got > late+1 {
		t.Errorf("response late by %.0f s, want %.0f s", got, late)
	}
	checkExactlyOnce(t, evPath)
	logs := b.logs.String()
	for _, p := range probes {
		logs += p.logs.String()
	}
	masterKey, _ := os.ReadFile(filepath.Join(b.dir, "master.key"))
	checkNoSecrets(t, logs, regs, b.signing, key, strings.TrimSpace(string(masterKey)), envValue(b.env, "GPUSLA_SLACK_BOT_TOKEN"))
	for _, m := range sl.all() {
		checkNoSecrets(t, m.Text, regs, b.signing, key, strings.TrimSpace(string(masterKey)))
	}
}

// jsonOf is v as JSON, for a failure's message.
func jsonOf(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(raw)
}

// settled are the node's outage rows but one still going at the report's
// as-of.
func settled(n report.Node) []report.Outage {
	var out []report.Outage
	for _, o := range n.Outages {
		if !o.Ongoing {
			out = append(out, o)
		}
	}
	return out
}

// countedSeconds sums the counted seconds of the rows of kind.
func countedSeconds(rows []report.Outage, kind string) int64 {
	var n int64
	for _, o := range rows {
		if o.Kind == kind {
			n += o.CountedSeconds
		}
	}
	return n
}

// ticketCall calls the ticket API and returns the decoded answer.
func ticketCall(t *testing.T, b *backend, key, method, path string, body any, want int) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, b.url(path), bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	out, _ := io.ReadAll(r.Body)
	if r.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, r.StatusCode, out, want)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, out)
	}
	return m
}

func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	return &r
}

func hasOutage(n report.Node, kind, evidence string) bool {
	raw, _ := json.Marshal(n.Outages)
	return strings.Contains(string(raw), `"`+kind+`"`) && strings.Contains(string(raw), evidence)
}

// hasOutageWith says whether the node's report has an unreachable interval
// with this cause and counted flag.
func hasOutageWith(n report.Node, cause string, counted bool) bool {
	for _, o := range n.Outages {
		if o.Kind == "unreachable" && o.Cause == cause && o.Counted == counted && o.Seconds > 0 {
			return true
		}
	}
	return false
}

var reSummaryNode = regexp.MustCompile(`\*(\S+)\* \((\S+)\): uptime (\S+) % claimable, (\S+) % observed \(target (\S+) %\); claim (\S+) (\S+)`)

// compareSummary checks every figure of the backend's Slack summary against
// the offline report, formatted as the summary formats it.
func compareSummary(t *testing.T, summary string, rep *report.Report) {
	t.Helper()
	got := reSummaryNode.FindAllStringSubmatch(summary, -1)
	if len(got) != len(rep.Nodes) {
		t.Fatalf("backend summary has %d nodes, the offline report %d:\n%s", len(got), len(rep.Nodes), summary)
	}
	byNode := map[string][]string{}
	for _, m := range got {
		byNode[m[1]] = m[2:]
	}
	for _, n := range rep.Nodes {
		want := []string{n.Contract, fmt.Sprintf("%.3f", n.Uptime.Claimable()), fmt.Sprintf("%.3f", n.Uptime.ObservedFigure()),
			fmt.Sprintf("%.2f", n.Uptime.TargetPercent), fmt.Sprintf("%.2f", n.Credit.Amount), n.Currency}
		if strings.Join(byNode[n.Node], " ") != strings.Join(want, " ") {
			t.Errorf("node %s: backend says %v, offline report %v", n.Node, byNode[n.Node], want)
		}
	}
	breached := 0
	for _, n := range rep.Nodes {
		for _, tk := range n.Tickets {
			if tk.Breached {
				breached++
			}
			if tk.Response != nil && tk.Response.LateSeconds > 0 {
				// The summary says durations in words, never Go's 30m0s.
				late := i18n.New(i18n.EN).Words(time.Duration(tk.Response.LateSeconds) * time.Second)
				if !strings.Contains(summary, "*"+tk.Ticket+"*") || !strings.Contains(summary, "response "+tk.Response.Status+" "+late+" late") {
					t.Errorf("backend summary lacks ticket %s response %s %s late:\n%s", tk.Ticket, tk.Response.Status, late, summary)
				}
			}
		}
	}
	if !strings.Contains(summary, "breached.") || !strings.HasSuffix(strings.TrimSpace(summary), strconv.Itoa(breached)+" breached.") {
		t.Errorf("backend summary does not end with %d breached:\n%s", breached, summary)
	}
}

// checkExactlyOnce reads the export: no drop or chain break was recorded
// and no sequence number was stored as two different batches.
func checkExactlyOnce(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := events.NewReader(f.Name(), f)
	seqs := map[string]map[uint64]string{}
	var e events.Event
	for {
		err := r.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("export: %v", err)
		}
		switch e.Type {
		case events.TypeBatchDropped, events.TypeChainBreak:
			t.Errorf("export has %s for %s: %+v", e.Type, e.Node, e)
		case events.TypeObservation:
			if e.Batch == "" || e.Seq == 0 {
				continue // heartbeats expanded from stored runs
			}
			m := seqs[e.Node]
			if m == nil {
				m = map[uint64]string{}
				seqs[e.Node] = m
			}
			if prev, ok := m[e.Seq]; ok && prev != e.Batch {
				t.Errorf("%s seq %d stored as two batches %s and %s", e.Node, e.Seq, prev, e.Batch)
			}
			m[e.Seq] = e.Batch
		}
	}
}

// lastSpooled is the sequence number of the last batch the probe made.
func (pr *probe) lastSpooled() uint64 {
	pr.t.Helper()
	raw, err := os.ReadFile(filepath.Join(pr.dir, "spool", "state.json"))
	if err != nil {
		pr.t.Fatal(err)
	}
	var st struct {
		NextSeq uint64 `json:"next_seq"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		pr.t.Fatal(err)
	}
	return st.NextSeq - 1
}

// checkNoSecrets scans captured logs for every secret the run used.
func checkNoSecrets(t *testing.T, logs string, regs map[string]registered, more ...string) {
	t.Helper()
	secrets := append([]string{}, more...)
	for _, r := range regs {
		secrets = append(secrets, r.Secret)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(logs, s) {
			t.Errorf("a secret (%.6s…) appears in the logs", s)
		}
	}
}
