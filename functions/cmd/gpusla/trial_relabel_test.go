package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/judge"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/trialrun"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/trial"
)

// cardCase is one card a renter may be handed on a trial node: the
// genuine model it is (from the spec database), what it calls itself, how
// it was altered, what was registered as ordered, and whether the probe
// was given that order (node add's expected:) or ran with no --expect.
type cardCase struct {
	provider string
	snapshot string // a recorded snapshot; "" builds the card from the spec database
	card     string // spec database id of the card it really is
	label    string // the name its VBIOS reports; "" its own
	edit     func(d *gpu.Device)
	// measured: BF16 TFLOP/s and device-copy GB/s the card gives; 0 a
	// genuine card's (92 % and 90 % of its datasheet).
	bf16, d2d float64
	// fp64: FP64 TFLOP/s where the case burns FP64 too (0: no FP64 burn).
	fp64 float64
	// The order as registered (node add) and whether the probe has it.
	model    string
	gpus     int
	memoryGB float64
	noExpect bool
	// What the trial page and the local record must say.
	acceptance, order string
	// The local record's, where the probe knew less than the backend
	// (no --expect): "" the same as the page's.
	localAcceptance, localOrder string
	// bandwidth: the page's memory bandwidth verdict, held to the
	// ordered model's official figure; idle: its gpustat verdict, every
	// GPU ordered read; "" not checked.
	bandwidth, idle string
}

func ptr[T any](v T) *T { return &v }

// specModel is the spec database's entry id.
func specModel(t *testing.T, id string) *specdb.Model {
	t.Helper()
	db := specdb.Default()
	for i := range db.Models {
		if db.Models[i].ID == id {
			return &db.Models[i]
		}
	}
	t.Fatalf("no %s in the spec database", id)
	return nil
}

// become makes d a genuine card of model id as NVML reads one: its first
// device id (and subsystem id where the model has one), NVIDIA's board
// for SXM modules, its NVML name, memory, bus width, cores, clocks, power
// limits and PCIe link.
func become(t *testing.T, d *gpu.Device, id string) {
	m := specModel(t, id)
	sub, vendor := uint32(0x1234), uint32(0x10de)
	if len(m.SubsystemIDs) > 0 {
		sub = uint32(m.SubsystemIDs[0])
	}
	if m.FormFactor == specdb.PCIe {
		vendor = 0x15d9 // a Supermicro card
	}
	d.Name, d.PCI.DeviceID, d.PCI.SubsystemID = m.Names[0], uint32(m.DeviceIDs[0])<<16|0x10de, sub<<16|vendor
	d.MemoryTotalMiB, d.Cores, d.ComputeCapability = ptr(m.MemoryMiB), ptr(m.GPUCores), m.ComputeCapability
	d.MemoryBusWidth = nil
	if m.MemoryBusWidth > 0 {
		d.MemoryBusWidth = ptr(m.MemoryBusWidth)
	}
	d.MaxSMClockMHz, d.MaxMemClockMHz = ptr(m.MaxSMClockMHz), ptr(m.MaxMemClockMHz)
	d.PowerDefaultLimitW, d.PowerEnforcedLimitW = ptr(m.DefaultPowerW), ptr(m.DefaultPowerW)
	d.PCIeMaxWidth, d.PCIeCurrentWidth, d.PCIeMaxGen, d.PCIeGPUMaxGen = ptr(m.PCIeWidth), ptr(m.PCIeWidth), ptr(m.PCIeGen), ptr(m.PCIeGen)
}

// snapshotOf is the case's card in the real one-H200 recording (or its
// own recorded snapshot), as many GPUs as the node has.
func snapshotOf(t *testing.T, c cardCase) *checkrun.Snapshot {
	t.Helper()
	name := c.snapshot
	if name == "" {
		name = "h200x1-real.json"
	}
	s, err := checkrun.Recorded(name)
	if err != nil {
		t.Fatal(err)
	}
	if c.card != "" {
		for i := range s.GPU.Devices {
			become(t, &s.GPU.Devices[i], c.card)
		}
	}
	for i := range s.GPU.Devices {
		d := &s.GPU.Devices[i]
		if c.label != "" {
			d.Name = c.label
		}
		if c.edit != nil {
			c.edit(d)
		}
	}
	return s
}

// stressOf is what the burns, the soak and the copies of the card give,
// judged by the probe's own stress judge against the thresholds of the
// device id the card carries.
func stressOf(t *testing.T, c cardCase, s *checkrun.Snapshot) []wire.Check {
	t.Helper()
	rep := &result.Report{}
	for _, d := range s.GPU.Devices {
		m, ok := specdb.Default().Lookup(d.PCI.DeviceID16(), uint16(d.PCI.SubsystemID>>16))
		if c.card != "" || !ok {
			m = specModel(t, c.card)
		}
		bf16, d2d := c.bf16, c.d2d
		if bf16 == 0 {
			bf16 = 0.92 * m.BF16
		}
		if d2d == 0 {
			d2d = 0.9 * m.MemoryBandwidth
		}
		samples := []float64{bf16, bf16, bf16, bf16, bf16}
		g := d.Index
		rep.GPUs = append(rep.GPUs, &result.GPU{Index: g, Name: d.Name, CC: d.ComputeCapability, SMs: int(d.SMs()),
			Static: &result.Static{Name: d.Name, DeviceID: d.PCI.DeviceID16(), SubsystemID: uint16(d.PCI.SubsystemID >> 16), PowerLimitW: m.DefaultPowerW}})
		burn := result.Burn{GPU: g, Precision: result.BF16, Engine: "cublasLt", Seconds: 10, Launches: 100, Checked: 4096, Samples: samples, Median: bf16, Min: bf16}
		soak := burn
		soak.Seconds = trialrun.SeedSoak.Seconds()
		rep.Burns, rep.Soaks = append(rep.Burns, burn), append(rep.Soaks, soak)
		if c.fp64 > 0 {
			f64 := burn
			f64.Precision, f64.Samples, f64.Median, f64.Min = result.FP64, []float64{c.fp64, c.fp64, c.fp64, c.fp64, c.fp64}, c.fp64, c.fp64
			rep.Burns = append(rep.Burns, f64)
		}
		rep.Bandwidth = append(rep.Bandwidth, result.Bandwidth{GPU: g, Test: "d2d_memcpy", Bytes: 1 << 30, Reps: 10, Counting: "read+write", BestGBs: d2d, MedianGB: d2d})
	}
	return judge.Report(rep)
}

// registerCase registers the case's node with `gpusla node add` (its own
// provider, so that the trial page has a column for it) and returns the
// probe config node add printed, completed with a spool.
func registerCase(t *testing.T, data, url string, i int, c cardCase, began time.Time) *config.Config {
	t.Helper()
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	args := []string{"node", "add", "--data", data, "--id", fmt.Sprintf("trial-%02d", i), "--provider", c.provider, "--contract", fmt.Sprintf("trial-%02d", i),
		"--gpu-model", c.model, "--gpus", strconv.Itoa(c.gpus), "--price", "10", "--currency", "CNY", "--backend-url", url, "--secret-file", secretFile,
		"--ordered-at", began.Add(-time.Minute).UTC().Format(time.RFC3339)}
	if c.memoryGB > 0 {
		args = append(args, "--gpu-memory-gb", strconv.FormatFloat(c.memoryGB, 'f', -1, 64))
	}
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("node add %s: %v\n%s", c.provider, err, out)
	}
	lines := strings.Split(out, "\n")
	var secret string
	for j, l := range lines {
		if strings.HasPrefix(l, "# Its secret") {
			secret = lines[j+1]
		}
	}
	cut := strings.Index(out, "---\n")
	if secret == "" || cut < 0 {
		t.Fatalf("node add printed no secret or config:\n%s", out)
	}
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := out[cut+4:] + fmt.Sprintf("spool:\n  dir: %s\n", filepath.Join(dir, "spool"))
	doc = strings.Replace(doc, "backend:\n", "backend:\n    min_backoff: 20ms\n    max_backoff: 100ms\n", 1)
	path := filepath.Join(dir, "probe.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("the config node add printed: %v\n%s", err, doc)
	}
	return cfg
}

// caseTerms are the example contract's terms as the case's provider's
// contract, so that each case is a provider of its own on the trial page.
func caseTerms(t *testing.T, i int, c cardCase) string {
	t.Helper()
	raw, err := os.ReadFile("../../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(raw), "contract: cn-example", fmt.Sprintf("contract: trial-%02d", i), 1)
	doc = strings.Replace(doc, "provider: 示例算力云 Example Compute (Guangzhou)", "provider: "+strconv.Quote(c.provider), 1)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("trial-%02d.yaml", i))
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCase runs gpuprobe trial's battery on the case's card — the four
// steps judged on its readings as `gpuprobe check` judges them, the burns,
// soak and copies judged by the stress judge — pushing to the backend, and
// returns the local result.
func runCase(t *testing.T, cfg *config.Config, c cardCase) *trialrun.Result {
	t.Helper()
	s := snapshotOf(t, c)
	order := cfg.Expected
	if c.noExpect {
		order = expect.Expected{}
	}
	read := &checkrun.Runner{Groups: []checkrun.Group{
		checkrun.GPUGroup(nil, nil, specdb.Default(), &order),
		checkrun.HostGroup(host.Reader{}, &order),
	}}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	p, err := trialrun.OpenPusher(cfg, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := trialrun.Run(t.Context(), trialrun.Options{Probe: "test", Node: cfg.Node, Hostname: c.provider, Order: order,
		Soak: trialrun.SeedSoak, Out: filepath.Join(t.TempDir(), "out"), Key: key, Push: p, PushWait: time.Minute,
		Steps: []trialrun.Step{
			{Name: "the four steps", Idle: true, Run: func(context.Context) []wire.Check { return read.Recorded(s, c.provider).Checks }},
			{Name: "burns, soak, copies", Run: func(context.Context) []wire.Check { return stressOf(t, c, s) }},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Delivered; d == nil || d.Acked != d.Batches {
		t.Fatalf("%s: not every batch reached the backend: %+v", c.provider, d)
	}
	return res
}

// figure is the trial page's row key of a provider.
func figure(t *testing.T, page []byte, provider, key string) trial.Row {
	t.Helper()
	var tr struct {
		Providers []struct {
			Provider string
			Figures  []trial.Row
		}
	}
	if err := json.Unmarshal(page, &tr); err != nil {
		t.Fatal(err)
	}
	for _, p := range tr.Providers {
		if p.Provider != provider {
			continue
		}
		for _, f := range p.Figures {
			if f.Key == key {
				return f
			}
		}
	}
	t.Fatalf("the trial page has no %s row for %s", key, provider)
	return trial.Row{}
}

func localRow(rows []trial.Row, key string) trial.Row {
	for _, r := range rows {
		if r.Key == key {
			return r
		}
	}
	return trial.Row{}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serveOn starts gpusla serve on data at addr and returns a stop function
// that waits for it to end.
func serveOn(t *testing.T, data, addr string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, serve.Config{Listen: addr, Data: data, Watchdog: "@every 1m", Demo: "off"}, wiring.Env{}, true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	waitfor.True(t, "serve up", func() bool {
		resp, err := http.Get("http://" + addr + httpapi.PathHealth)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// The class of relabelled and cut-down cards a renter meets, each on a
// trial node driven end to end: `gpuprobe trial`'s battery on the card's
// readings (the four steps judged as `gpuprobe check` judges them, the
// burns and copies by the stress judge), pushed into `gpusla serve` by the
// node's signed batches, the trial page of `gpusla scorecard --trial
// --data`, the local report and the signed record `gpusla verify` reads.
// Every altered card fails acceptance on the page, and in the record
// wherever the probe was given the order (with no --expect the record
// cannot know what was paid for: not measured, never a pass); an H100's
// default power limit below its datasheet's warns; the genuine cards pass.
func TestTrialRelabelledCardsEndToEnd(t *testing.T) {
	cases := relabelCases()
	page, args := trialEndToEnd(t, cases)
	// The reason reaches the reader in the page's language.
	args[slices.Index(args, "json")] = "md"
	zh, err := runCLI(t, append(args, "--lang", "zh")...)
	if err != nil || !strings.Contains(zh, "gpu.order.model (GPU 0)（显卡是 NVIDIA H800 80GB HBM3，订单为 H100 SXM）") {
		t.Errorf("the zh page does not say why an H800 fails an H100's order: %v\n%s", err, zh)
	}
	for _, c := range cases {
		acc, ord := figure(t, []byte(page), c.provider, trial.KeyAcceptance), figure(t, []byte(page), c.provider, trial.KeyOrder)
		if acc.Verdict != c.acceptance || ord.Verdict != c.order {
			t.Errorf("%s on the trial page: acceptance %s (%s), order %s (%s); want %s, %s", c.provider, acc.Verdict, acc.Detail, ord.Verdict, ord.Detail, c.acceptance, c.order)
		}
		if idle := figure(t, []byte(page), c.provider, trial.KeyIdle); c.idle != "" && idle.Verdict != c.idle {
			t.Errorf("%s on the trial page: gpustat %s (%s), want %s", c.provider, idle.Verdict, idle.Detail, c.idle)
		}
		if bw := figure(t, []byte(page), c.provider, trial.KeyBandwidth); c.bandwidth != "" && bw.Verdict != c.bandwidth {
			t.Errorf("%s on the trial page: memory bandwidth %s (%s; %s), want %s", c.provider, bw.Verdict, bw.Criterion, bw.Detail, c.bandwidth)
		}
		if c.acceptance == trial.Fail && acc.Ask == "" {
			t.Errorf("%s: a failed acceptance with nothing to ask", c.provider)
		}
	}
}

// trialEndToEnd registers each case's node (trial-00, trial-01, …) with
// `gpusla node add`, runs its trial into `gpusla serve`, holds its local
// record to the case, and returns the JSON trial page of `gpusla
// scorecard --trial --data` and the arguments that made it.
func trialEndToEnd(t *testing.T, cases []cardCase) (string, []string) {
	t.Helper()
	began := time.Now()
	data, addr := t.TempDir(), freeAddr(t)
	cfgs := make([]*config.Config, len(cases))
	for i, c := range cases {
		cfgs[i] = registerCase(t, data, "http://"+addr+httpapi.PathBatches, i, c, began)
	}
	stop := serveOn(t, data, addr)
	for i, c := range cases {
		checkLocal(t, c, runCase(t, cfgs[i], c))
	}
	stop()
	// The months in the contracts' zone (cn-example's), from the orders
	// (a minute before the test began) to the as-of instant: a run across
	// a month's end still finds its nodes.
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	// The next whole second, once it has passed: every record of the run
	// is before it, and --as-of is never after now.
	asOf := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(asOf))
	args := []string{"scorecard", "--data", data, "--trial", "--format", "json", "--from", began.Add(-time.Minute).In(sh).Format("2006-01"),
		"--to", asOf.In(sh).Format("2006-01"), "--as-of", asOf.Format(time.RFC3339)}
	for i, c := range cases {
		args = append(args, "--terms", caseTerms(t, i, c))
	}
	page, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("scorecard --trial: %v\n%s", err, page)
	}
	return page, args
}

// "在服务器A上运行iperf3 -s, 在服务器B上运行iperf3 -c": a provider's second
// trial node, its iperf3 peer, is an H800 sold as an H100, its first a
// genuine H100. Driven end to end, the page has a column for each, the
// second failing acceptance and the order — not one column that passes.
func TestTrialSecondNodeEndToEnd(t *testing.T) {
	good := relabelCases()[0]
	bad := relabelCases()[7]
	if good.provider != "genuine H100 SXM" || bad.provider != "H800 sold as H100" {
		t.Fatalf("cases moved: %q, %q", good.provider, bad.provider)
	}
	good.provider, bad.provider = "one provider, two trial nodes", "one provider, two trial nodes"
	page, _ := trialEndToEnd(t, []cardCase{good, bad})
	var tr struct {
		Providers []struct {
			Provider, Node string
			Figures        []trial.Row
		}
	}
	if err := json.Unmarshal([]byte(page), &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Providers) != 2 || tr.Providers[0].Node != "trial-00" || tr.Providers[1].Node != "trial-01" {
		t.Fatalf("columns %+v", tr.Providers)
	}
	for i, want := range []string{trial.Pass, trial.Fail} {
		for _, f := range tr.Providers[i].Figures {
			if (f.Key == trial.KeyAcceptance || f.Key == trial.KeyOrder) && f.Verdict != want {
				t.Errorf("%s %s: %s, want %s (%s)", tr.Providers[i].Node, f.Key, f.Verdict, want, f.Detail)
			}
		}
	}
}

// checkLocal holds the local report and the signed record to the case.
func checkLocal(t *testing.T, c cardCase, res *trialrun.Result) {
	t.Helper()
	want, wantAcc := cmp.Or(c.localOrder, c.order), cmp.Or(c.localAcceptance, c.acceptance)
	f, err := os.Open(res.RecordPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	v, err := replacement.VerifyRecord(f, st.Size(), "")
	if err != nil || !v.OK() {
		t.Fatalf("%s: the record does not verify: %v %v", c.provider, err, v.Problems)
	}
	acc, ord := localRow(v.Manifest.Rows, trial.KeyAcceptance), localRow(v.Manifest.Rows, trial.KeyOrder)
	if acc.Verdict != wantAcc || ord.Verdict != want {
		t.Errorf("%s in the signed record: acceptance %s (%s), order %s (%s); want %s, %s", c.provider, acc.Verdict, acc.Detail, ord.Verdict, ord.Detail, wantAcc, want)
	}
	if wantAcc == trial.Fail && v.Manifest.Verdict != "fail" {
		t.Errorf("%s: the record's verdict is %s with acceptance failed", c.provider, v.Manifest.Verdict)
	}
	if wantAcc != trial.Pass && v.Manifest.Verdict == "pass" {
		t.Errorf("%s: the record passes", c.provider)
	}
}

// relabelCases are the cards: genuine ones (which pass), the relabelled
// models of the seed's "货不对板" (H20 or H800 sold as H100, A800 as A100,
// a 40 GB A100 as 80 GB, PCIe sold as SXM, RTX 4090 D as 4090, the 48 GB
// 4090), a card named as ordered whose device id, SMs, memory, bus width,
// power limit, bandwidth or FLOPS say another, slices sold as whole cards,
// fewer GPUs than ordered and an unknown device id — each with the order
// in the probe and with no --expect, where only the backend holds the
// order.
func relabelCases() []cardCase {
	h100 := func(c cardCase) cardCase {
		c.card, c.model, c.gpus, c.memoryGB = cmp.Or(c.card, "h100-sxm5-80gb"), cmp.Or(c.model, "H100 SXM"), cmp.Or(c.gpus, 1), cmp.Or(c.memoryGB, 80)
		c.acceptance, c.order = cmp.Or(c.acceptance, trial.Fail), cmp.Or(c.order, trial.Fail)
		return c
	}
	const nm, fail, pass, warn = trial.NotMeasured, trial.Fail, trial.Pass, trial.Warn
	unknownID := func(d *gpu.Device) { d.PCI.DeviceID = 0x2399<<16 | 0x10de }
	return []cardCase{
		h100(cardCase{provider: "genuine H100 SXM", acceptance: pass, order: pass, bandwidth: pass, idle: pass}),
		h100(cardCase{provider: "genuine H100 SXM, no --expect", noExpect: true, acceptance: pass, order: pass, localAcceptance: nm, localOrder: nm}),
		h100(cardCase{provider: "H20 named H100", card: "h20-96gb", label: "NVIDIA H100 80GB HBM3", model: "H100"}),
		h100(cardCase{provider: "H20 named H100, no --expect", card: "h20-96gb", label: "NVIDIA H100 80GB HBM3", noExpect: true}),
		h100(cardCase{provider: "H20 sold as H100", card: "h20-96gb", model: "H100", memoryGB: 96}),
		h100(cardCase{provider: "H20 sold as H100, no --expect", card: "h20-96gb", model: "H100", memoryGB: 96, noExpect: true, localAcceptance: warn, localOrder: warn}),
		h100(cardCase{provider: "H800 named H100, no --expect", card: "h800-sxm", label: "NVIDIA H100 80GB HBM3", noExpect: true}),
		h100(cardCase{provider: "H800 sold as H100", card: "h800-sxm"}),
		h100(cardCase{provider: "H800 sold as H100, no --expect", card: "h800-sxm", noExpect: true, localAcceptance: nm, localOrder: nm}),
		h100(cardCase{provider: "A800 named A100", card: "a800-sxm4-80gb", label: "NVIDIA A100-SXM4-80GB", model: "A100"}),
		h100(cardCase{provider: "A800 sold as A100, no --expect", card: "a800-sxm4-80gb", model: "A100 80GB", noExpect: true, localAcceptance: nm, localOrder: nm}),
		h100(cardCase{provider: "A100 40 GB named 80 GB, no --expect", card: "a100-sxm4-40gb", label: "NVIDIA A100-SXM4-80GB", model: "A100 80GB", noExpect: true}),
		h100(cardCase{provider: "A100 40 GB sold as 80 GB", card: "a100-sxm4-40gb", model: "A100"}),
		h100(cardCase{provider: "A100 40 GB sold as 80 GB, no --expect", card: "a100-sxm4-40gb", model: "A100", noExpect: true, localAcceptance: nm, localOrder: nm}),
		h100(cardCase{provider: "H100 PCIe named SXM, no --expect", card: "h100-pcie-80gb", label: "NVIDIA H100 80GB HBM3", noExpect: true}),
		// Its copies, 90 % of the PCIe's 2000 GB/s, are 54 % of the 3350
		// GB/s of the SXM paid for.
		h100(cardCase{provider: "H100 PCIe sold as SXM", card: "h100-pcie-80gb", bandwidth: fail}),
		h100(cardCase{provider: "H100 PCIe sold as SXM, no --expect", card: "h100-pcie-80gb", noExpect: true, localAcceptance: nm, localOrder: nm, bandwidth: fail}),
		// An order naming the family ("H100": SXM, NVL or PCIe) and the
		// family's cut-down form delivered: never a pass, a warning (the
		// order did name the family); the memory ordered says which H20.
		h100(cardCase{provider: "H100 PCIe for an H100 order", card: "h100-pcie-80gb", model: "H100", acceptance: warn, order: warn}),
		h100(cardCase{provider: "H200 NVL for an H200 order", card: "h200-nvl", model: "H200", memoryGB: 141, acceptance: warn, order: warn}),
		{provider: "genuine H20 for an H20 96 GB order", snapshot: "h20-as-h100.json", label: "NVIDIA H20", model: "H20", gpus: 1, memoryGB: 96, acceptance: pass, order: pass},
		{provider: "genuine H20 for an H20 order", snapshot: "h20-as-h100.json", label: "NVIDIA H20", model: "H20", gpus: 1, acceptance: warn, order: warn},
		h100(cardCase{provider: "SXM ids on a board partner's card", edit: func(d *gpu.Device) { d.PCI.SubsystemID = d.PCI.SubsystemID&^0xffff | 0x1043 }}),
		{provider: "RTX 4090 D named 4090", snapshot: "rtx4090d-relabelled.json", model: "RTX 4090", gpus: 1, memoryGB: 24, acceptance: fail, order: fail},
		{provider: "RTX 4090 D named 4090, no --expect", snapshot: "rtx4090d-relabelled.json", model: "RTX 4090", gpus: 1, memoryGB: 24, noExpect: true, acceptance: fail, order: fail},
		{provider: "RTX 4090 D sold as 4090, no --expect", card: "rtx-4090-d", model: "RTX 4090", gpus: 1, memoryGB: 24, noExpect: true,
			acceptance: fail, order: fail, localAcceptance: nm, localOrder: nm},
		{provider: "RTX 4090 with 48 GB", snapshot: "rtx4090-48gb.json", model: "RTX 4090", gpus: 1, memoryGB: 48, acceptance: fail, order: fail},
		h100(cardCase{provider: "H100 named, an H20's 78 SMs", edit: func(d *gpu.Device) { d.Cores = ptr(uint32(9984)) }}),
		h100(cardCase{provider: "H100 named, 40 GB", edit: func(d *gpu.Device) { d.MemoryTotalMiB = ptr(uint64(40960)) }, noExpect: true}),
		h100(cardCase{provider: "H100 named, a 4096-bit bus", edit: func(d *gpu.Device) { d.MemoryBusWidth = ptr(uint32(4096)) }, noExpect: true}),
		h100(cardCase{provider: "H100 named, capped at 400 W", edit: func(d *gpu.Device) { d.PowerEnforcedLimitW = ptr(400.0) }}),
		// A default limit below the model's is a failure where a genuine
		// card was measured (the H200), a warning where the figure is the
		// datasheet's (the H100's): VBIOS builds differ, and a provider can
		// refuse a failure on a datasheet figure. Never a pass.
		h100(cardCase{provider: "H200 named, a 450 W default limit", card: "h200-sxm-141gb", model: "H200", memoryGB: 141,
			edit: func(d *gpu.Device) { d.PowerDefaultLimitW, d.PowerEnforcedLimitW = ptr(450.0), ptr(450.0) }}),
		h100(cardCase{provider: "H100 named, a 400 W default limit", edit: func(d *gpu.Device) { d.PowerDefaultLimitW, d.PowerEnforcedLimitW = ptr(400.0), ptr(400.0) },
			acceptance: warn, order: warn}),
		h100(cardCase{provider: "H100 named, an H20's FLOPS", bf16: 0.92 * 148, order: pass}),
		h100(cardCase{provider: "H100 named, an H20's FLOPS, no --expect", bf16: 0.92 * 148, noExpect: true, order: pass, localOrder: nm}),
		h100(cardCase{provider: "H100 named, slow memory", d2d: 2000, order: pass}),
		// An H800 whose device id and name are an H100's: every static
		// figure is the same (132 SMs, 80 GB, 5120 bits, 700 W); its
		// FP64, 1 TFLOP/s against the H100's 67, gives it away in the
		// trial's FP64 burn. The genuine H100 burning FP64 passes.
		h100(cardCase{provider: "H800 with an H100's device id", card: "h800-sxm", fp64: 0.92, order: pass,
			edit: func(d *gpu.Device) { d.Name, d.PCI.DeviceID = "NVIDIA H100 80GB HBM3", 0x2330<<16|0x10de }}),
		h100(cardCase{provider: "genuine H100 SXM burning FP64", fp64: 0.92 * 66.9, acceptance: pass, order: pass}),
		h100(cardCase{provider: "H100 as a vGPU", edit: func(d *gpu.Device) { d.VirtualizationMode = ptr(2) }}),
		h100(cardCase{provider: "H100 in MIG mode", edit: func(d *gpu.Device) { d.MIGMode = ptr(1) }, noExpect: true}),
		// Six GPUs never read idle: gpustat is not measured on them.
		{provider: "2 H200 of 8", snapshot: "h200x2-real.json", model: "H200", gpus: 8, memoryGB: 141, acceptance: fail, order: fail, idle: trial.NotMeasured},
		{provider: "2 H200 of 8, no --expect", snapshot: "h200x2-real.json", model: "H200", gpus: 8, memoryGB: 141, noExpect: true,
			acceptance: fail, order: fail, localAcceptance: nm, localOrder: nm},
		h100(cardCase{provider: "unknown device id", label: "NVIDIA X100", edit: unknownID}),
		h100(cardCase{provider: "unknown device id, no --expect", label: "NVIDIA X100", edit: unknownID, noExpect: true, localAcceptance: nm, localOrder: warn}),
		h100(cardCase{provider: "unknown device id named H100", edit: unknownID, noExpect: true}),
	}
}
