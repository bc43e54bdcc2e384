package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
)

func runScorecard(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"scorecard", "--terms", "../../../testdata/terms/cn-example.yaml", "--terms", "../../../testdata/terms/us-example.yaml"}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestScorecardCommand(t *testing.T) {
	ev := "../../../sla/report/testdata/example-events.jsonl"
	out, err := runScorecard(t, "--events", ev, "--from", "2026-03", "--to", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Schema    string
		Providers []struct{ Provider string }
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil || sc.Schema != "gpusla.scorecard/v2" || len(sc.Providers) != 2 {
		t.Fatalf("json: %v %+v", err, sc)
	}
	// --to defaults to the month before --as-of.
	out, err = runScorecard(t, "--events", ev, "--as-of", "2026-04-05T00:00:00Z", "--format", "html")
	if err != nil || !strings.Contains(out, "Provider scorecard 2026-03 to 2026-03") || !strings.Contains(out, "<svg") {
		t.Fatalf("html: %v %.300s", err, out)
	}
	dst := filepath.Join(t.TempDir(), "sc.md")
	if _, err := runScorecard(t, "--events", ev, "--as-of", "2026-04-05T00:00:00Z", "-o", dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || !bytes.Contains(b, []byte("## Comparison")) {
		t.Fatalf("-o: %v", err)
	}
}

func TestScorecardBadInputNamesTheFlagOrLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"type\":\"node_released\",\"id\":\"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bill := filepath.Join(dir, "bill.csv")
	if err := os.WriteFile(bill, []byte("node,period,billed_hours\ngz-01,2026-03,abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--events", bad, "--to", "2026-03"}, "bad.jsonl:1: node:"},
		{[]string{"--events", bad, "--to", "2026-3x"}, `--to: "2026-3x" is not a month`},
		{[]string{"--events", bad, "--from", "03-2026"}, `--from: "03-2026" is not a month`},
		{[]string{"--events", bad, "--as-of", "yesterday"}, `--as-of "yesterday"`},
		{[]string{"--events", bad, "--as-of", "2999-01-01T00:00:00Z"}, `--as-of 2999-01-01T00:00:00Z is after now`},
		{[]string{"--events", bad, "--from", "2026-04", "--to", "2026-03"}, "--to 2026-03 is before --from 2026-04"},
		{[]string{"--events", bad, "--to", "2026-03", "--format", "pdf"}, `--format "pdf"`},
		{[]string{"--events", bad, "--data", dir}, "give one of --events FILE or --data DIR"},
		{[]string{"--events", filepath.Join(dir, "none.jsonl"), "--to", "2026-03"}, "--events: open"},
		{[]string{"--events", bad, "--to", "2026-03", "--bill", bill}, "bill.csv:2"},
	} {
		_, err := runScorecard(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// addOperatorNode adds an H200 node of cn-example to the local store in
// data as an operator does (the folder's master key made with it).
func addOperatorNode(t *testing.T, data string) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"node", "add", "--data", data, "--id", "gz-h200-01", "--provider", "Example Compute", "--contract", "cn-example",
		"--gpu-model", "H200", "--gpus", "8", "--gpu-memory-gb", "141", "--price", "148", "--currency", "CNY"})
	if err := root.Execute(); err != nil {
		t.Fatalf("node add: %v\n%s", err, out.String())
	}
}

func TestScorecardReadsTheLocalStore(t *testing.T) {
	data := t.TempDir()
	addOperatorNode(t, data)
	now := time.Now().UTC()
	got, err := runScorecard(t, "--data", data, "--to", now.Format("2006-01"), "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"contracts": [
        "cn-example"`) {
		t.Errorf("the registered node's provider is missing:\n%.600s", got)
	}
	var sc struct{ Providers []struct{ Provider string } }
	if err := json.Unmarshal([]byte(got), &sc); err != nil || len(sc.Providers) != 1 {
		t.Fatalf("providers: %v %s", err, got)
	}
	// The store's claims ledger: this month's claim of the provider, sent,
	// unanswered, is claimed and outstanding in the scorecard read with
	// --data; without a claim in the months, none.
	month, end := now.Format("2006-01"), time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	c, err := claims.New(claims.Draft{Contract: "cn-example", Provider: sc.Providers[0].Provider, Month: month, Amount: 150000, Currency: "CNY",
		Deadline: end.AddDate(0, 1, 0), TimeZone: "Asia/Shanghai", Seal: claims.Seal{ObservationsSHA256: "aa", ChainHead: "bb"}, MonthEnd: end, AsOf: end})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err = c.Send(claims.Sent{At: now, Via: "ticket"}, now); err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(data, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	err = st.CreateClaim(t.Context(), store.Claim{Claim: c})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	got, err = runScorecard(t, "--data", data, "--to", month, "--format", "md")
	if err != nil || !strings.Contains(got, "| CNY | 1500.00 | 0.00 | 0.00 | 0.00 | 1500.00 | 0.0 % | 0 of 1 |") {
		t.Fatalf("the store's ledger is not in the scorecard: %v\n%s", err, got)
	}
}

// --rates: the example's two providers bill in CNY and USD. Without rates
// the prices stay apart and a warning says so; with them each provider's
// converted price is its amount × the rate ÷ its usable GPU-hours. A bad
// rates file fails the run naming file:line: field, before anything is read.
func TestScorecardRates(t *testing.T) {
	ev := "../../../sla/report/testdata/example-events.jsonl"
	args := []string{"--events", ev, "--from", "2026-03", "--to", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--format", "json"}
	type price struct {
		Currency       string
		Amount         float64
		UsableGPUHours float64 `json:"usable_gpu_hours"`
	}
	type card struct {
		Warnings  []string
		Providers []struct {
			Provider string
			All      struct {
				Billing struct {
					Prices    []price `json:"price_per_usable_gpu_hour"`
					Converted struct {
						Value *float64
						Unit  string
					} `json:"price_per_usable_gpu_hour_converted"`
				}
			}
		}
	}
	read := func(extra ...string) card {
		t.Helper()
		out, err := runScorecard(t, append(args, extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		var c card
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := read()
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "prices are in CNY") || !strings.Contains(w, "give --rates") {
		t.Errorf("warnings %q", w)
	}
	dir := t.TempDir()
	rates := filepath.Join(dir, "rates.yaml")
	if err := os.WriteFile(rates, []byte("base: USD\nrates:\n  CNY: 0.14\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = read("--rates", rates)
	rate := map[string]float64{"USD": 1, "CNY": 0.14}
	for _, p := range c.Providers {
		ps := p.All.Billing.Prices
		if len(ps) != 1 || p.All.Billing.Converted.Value == nil || p.All.Billing.Converted.Unit != "USD per usable GPU-hour" {
			t.Fatalf("%s: %+v", p.Provider, p.All.Billing)
		}
		if want := ps[0].Amount * rate[ps[0].Currency] / ps[0].UsableGPUHours; math.Abs(*p.All.Billing.Converted.Value-want) > 1e-9 {
			t.Errorf("%s converted %v, want %v", p.Provider, *p.All.Billing.Converted.Value, want)
		}
	}
	if err := os.WriteFile(rates, []byte("base: USD\nrates:\n  CNY: zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runScorecard(t, append(args, "--rates", rates)...); err == nil || !strings.Contains(err.Error(), "rates.yaml:3: rates.CNY: \"zero\" is not a positive number") {
		t.Errorf("bad rates: %v", err)
	}
	// A rates file of 4 GiB (sparse: nothing to read) is refused by its
	// size before a byte is read; the same bytes through a pipe are read
	// only up to the bound.
	huge := filepath.Join(dir, "huge.yaml")
	if err := os.WriteFile(huge, []byte("base: USD\nrates:\n  CNY: 0.14\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 4<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := runScorecard(t, append(args, "--rates", huge)...); err == nil || !strings.Contains(err.Error(), "huge.yaml: 4294967296 bytes; a rates file is at most 65536 bytes") {
		t.Errorf("huge rates file: %v", err)
	}
	fifo := filepath.Join(dir, "rates.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write([]byte("base: USD\nrates:\n  CNY: 0.14\n"))
		w.Write(make([]byte, 1<<20)) // blocks once the reader has had enough and closes
	}()
	if _, err := runScorecard(t, append(args, "--rates", fifo)...); err == nil || !strings.Contains(err.Error(), "65537 bytes; a rates file is at most 65536 bytes") {
		t.Errorf("rates through a pipe: %v", err)
	}
	// Absurd rates are refused, naming the line.
	if err := os.WriteFile(rates, []byte("base: USD\nrates:\n  CNY: 1400000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runScorecard(t, append(args, "--rates", rates)...); err == nil || !strings.Contains(err.Error(), "rates.yaml:3: rates.CNY: 1400000000 is outside 1e-08 to 1e+08") {
		t.Errorf("absurd rate: %v", err)
	}
}

// --trial: the golden trial log (sla/scorecard's trial test) as one page,
// the same as functions/document renders it, in the language asked; a
// format the trial does not know fails before anything is read.
func TestScorecardTrial(t *testing.T) {
	g := "../../../sla/scorecard/testdata/golden/"
	dir := t.TempDir()
	bill := filepath.Join(dir, "bill.csv")
	if err := os.WriteFile(bill, []byte("node,period,billed_hours\ntb,2026-03,750\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(append([]string{"scorecard", "--trial", "--terms", g + "two-providers-terms.yaml", "--events", g + "trial.jsonl",
			"--from", "2026-03", "--to", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--bill", bill}, args...))
		err := root.Execute()
		return out.String(), err
	}
	out, err := run("--lang", "zh")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../document/testdata/golden/trial.zh.md")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("--trial --lang zh differs from the golden page:\n%s", out)
	}
	if out, err := run("--format", "json"); err != nil || !strings.Contains(out, `"schema": "gpusla.trial/v2"`) || !strings.Contains(out, `"verdict": "fail"`) {
		t.Errorf("json: %v %.300s", err, out)
	}
	if _, err := run("--format", "csv"); err == nil || !strings.Contains(err.Error(), "with --trial") {
		t.Errorf("csv: %v", err)
	}
	if _, err := run("--lang", "fr"); err == nil || !strings.Contains(err.Error(), `--lang: language "fr": want one of en, zh`) {
		t.Errorf("fr: %v", err)
	}
}

// --claims: the ledger as `gpusla claims list --format json` writes it
// adds what each provider's claims recovered. us-example's March claim of
// 500.00 USD, accepted 3 April, nothing on a bill yet as of 5 April:
// claimed = granted = outstanding 500.00, 0.0 % recovered. A file that is
// no ledger, or a claim whose id is not its contract's month, is refused
// naming the file and the claim.
func TestScorecardClaimsFile(t *testing.T) {
	ev := "../../../sla/report/testdata/example-events.jsonl"
	dir := t.TempDir()
	ledger := filepath.Join(dir, "claims.json")
	claim := `{"id":"us-example/2026-03","contract":"us-example","provider":"Example GPU Cloud Inc.","month":"2026-03","amount":500.00,"currency":"USD",
"deadline":"2026-06-01T04:00:00Z","timezone":"America/New_York","lang":"en","seal":{"observations_sha256":"aa","chain_head":"bb","batches":1},
"drafted":{"recorded_at":"2026-04-01T10:00:00Z","recorded_by":"report-job"},"sent":{"at":"2026-04-02T14:00:00Z","via":"email","recorded_at":"2026-04-02T14:00:00Z"},
"answer":{"at":"2026-04-03T10:00:00Z","outcome":"accepted","granted":500.00,"recorded_at":"2026-04-03T10:00:00Z"},"credits":[],"status":{"state":"granted"}}`
	if err := os.WriteFile(ledger, []byte(`{"claims":[`+claim+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runScorecard(t, "--events", ev, "--to", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--claims", ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| 2026-Q1 | USD | 500.00 | 500.00 | 0.00 | 0.00 | 500.00 | 0.0 % | 0 of 1 |", "What its claims recovered"} {
		if !strings.Contains(out, w) {
			t.Errorf("scorecard lacks %q:\n%s", w, out)
		}
	}
	if strings.Count(out, "What its claims recovered") != 1 {
		t.Errorf("a recovery table for a provider with no claim:\n%s", out)
	}
	// The month's report with its scorecard section carries it too.
	rep, err := runCLI(t, "report", "--terms", "../../../testdata/terms/cn-example.yaml", "--terms", "../../../testdata/terms/us-example.yaml", "--events", ev,
		"--month", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--scorecard", "--claims", ledger, "--format", "md", "--lang", "en")
	if err != nil || !strings.Contains(rep, "Example GPU Cloud Inc.: what its claims recovered") || !strings.Contains(rep, "500.00 USD") {
		t.Fatalf("report --scorecard --claims: %v\n%s", err, rep)
	}
	bad := filepath.Join(dir, "bad.json")
	for _, c := range []struct{ body, want string }{
		{`[1,2]`, "--claims: " + bad + ": not a claims ledger (gpusla claims list --format json)"},
		{`{"claims":[` + strings.Replace(claim, `"id":"us-example/2026-03"`, `"id":"us-example/2026-02"`, 1) + `]}`,
			"--claims: " + bad + `: claim 1: id "us-example/2026-02" is not contract "us-example", month "2026-03"`},
		{`{"claims":[` + strings.Replace(claim, `"amount":500.00`, `"amount":"5e2"`, 1) + `]}`, "--claims: " + bad + ": not a claims ledger"},
	} {
		if err := os.WriteFile(bad, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := runScorecard(t, "--events", ev, "--to", "2026-03", "--as-of", "2026-04-05T00:00:00Z", "--claims", bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40s: %v", c.body, err)
		}
	}
}

// gpusla scorecard --data builds from the store node by node what
// `gpusla export` of the months and `gpusla scorecard --events` of that
// log give: the scorecard and the trial page, byte for byte.
func TestScorecardDataIsTheExportedLogs(t *testing.T) {
	data := t.TempDir()
	addOperatorNode(t, data) // beside a simulated month of three
	st, err := bolt.Open(filepath.Join(data, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	_, err = fleetsim.Write(t.Context(), st, fleetsim.Config{Nodes: 3, Prefix: "gz-", Contract: "cn-example", Loc: sh, From: time.Date(2026, 3, 1, 0, 0, 0, 0, sh), Months: 1})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	from, _ := report.Window(2026, 2)
	_, to := report.Window(2026, 3)
	log := filepath.Join(t.TempDir(), "events.jsonl")
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"export", "--data", data, "--from", from.Format(time.RFC3339), "--to", to.Format(time.RFC3339), "-o", log})
	if err := root.Execute(); err != nil {
		t.Fatalf("export: %v\n%s", err, out.String())
	}
	span := []string{"--from", "2026-02", "--to", "2026-03", "--as-of", "2026-04-02T00:00:00Z"}
	for _, form := range [][]string{{"--format", "json"}, {"--format", "md"}, {"--trial", "--format", "json"}, {"--trial", "--format", "md", "--lang", "zh"}} {
		args := append(slices.Clone(span), form...)
		want, err := runScorecard(t, append([]string{"--events", log}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runScorecard(t, append([]string{"--data", data, "--workers", "2"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || len(got) < 1000 {
			t.Fatalf("scorecard %v from --data differs from the exported log's:\n--- log\n%.1500s\n--- data\n%.1500s", form, want, got)
		}
	}
}
