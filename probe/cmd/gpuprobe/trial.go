package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/internal/edkey"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/crosscheck"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/ownwork"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/trialrun"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
)

// Exit status of `gpuprobe trial` beyond check's (docs/probe-check.md):
// every criterion that could be judged passed, but one was not measured
// (a shortened soak, no iperf3 peer).
const exitIncomplete = 4

// trialFlags are `gpuprobe trial`'s options.
type trialFlags struct {
	check                checkOptions // --config, --expect, --host-root and the network flags
	soak, burn, power    time.Duration
	iperfPeer            string
	iperfNominal         float64
	iperfDuration        time.Duration
	out, key             string
	noPush, force, quiet bool
	pushWait             time.Duration
	snapshot             string
}

func init() {
	commands = append(commands, func() *cobra.Command {
		f := &trialFlags{}
		cmd := &cobra.Command{
			Use:   "trial",
			Short: "Run the seed's whole trial battery on a freshly delivered node; push it, keep a report and a signed acceptance record",
			Long: `trial runs, in one go, every check the seed asks of a rented node before a long
contract: nvidia-smi against the order (model, memory, driver, count), gpustat
idle, df -h, curl -I to the mirror and ping to the gateway; the burns; the
30-minute soak (gpu_burn, every result checked); the power test at full load;
bandwidthTest and the memory test; the all-reduce where there are two GPUs or
more; iperf3 to a peer running ` + "`gpuprobe iperf-server`" + `. It announces its planned
wall time, shows its progress, pushes each step's results like the daemon
(with --config: the node's spool and backend), and writes to --out a report
(trial.json, trial.md) and acceptance.zip, the acceptance record signed with
the node's key, which ` + "`gpusla verify`" + ` checks offline.

--snapshot FILE judges a recording of ` + "`gpuprobe snapshot`" + ` instead of the
live machine, through the same judge, report, record and push: the four steps
on its readings, every step that measures a live card (burns, soak, power,
bandwidth, all-reduce, iperf3) not run and its criterion not measured.

Exit status: 0 every criterion passed, 2 a warning, 3 a failure, 4 a
criterion not measured (a shortened soak, no iperf3 peer), 1 the trial could
not run. See docs/probe-check.md, "gpuprobe trial".`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return runTrial(cmd, f) },
		}
		f.register(cmd)
		return cmd
	})
}

func (f *trialFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.check.config, "config", "", "the probe's config `FILE` (gpuprobe run's): its node, backend and spool for pushing, its expected: (the order) and network: sections")
	fs.StringArrayVar(&f.check.expects, "expect", nil, "what was ordered: `KEY=VALUE`, several in one separated by commas or the flag repeated (as for check: model, gpus, gpu_memory_gb, driver, cpus, cpu_model, ram_gb, disks); overrides --config")
	fs.StringVar(&f.check.hostRoot, "host-root", "/", "root under which /proc and /sys are read")
	f.check.network.register(cmd)
	fs.DurationVar(&f.soak, "soak", trialrun.SeedSoak, "the soak (gpu_burn without error); the seed's is 30m: a shorter one is marked shortened in the record and its criterion is not measured; 0 leaves it out")
	fs.DurationVar(&f.burn, "burn", 10*time.Second, "each precision's burn (FP32, FP64, TF32, BF16, FP16, FP8)")
	fs.DurationVar(&f.power, "power", time.Minute, "the power test's main phase at the power cap (after its ~14 s tuning)")
	fs.StringVar(&f.iperfPeer, "iperf-peer", "", "a second node of the provider running gpuprobe iperf-server: `HOST` or HOST:PORT (default network.iperf3 of --config)")
	fs.Float64Var(&f.iperfNominal, "iperf-nominal", 0, "the advertised internal bandwidth, Mbit/s (the seed's 70 % is of it)")
	fs.DurationVar(&f.iperfDuration, "iperf-duration", netcheck.DefaultIperfDuration, "how long iperf3 sends")
	fs.StringVar(&f.out, "out", "", "folder for trial.json, trial.md and acceptance.zip (default ./gpuprobe-trial-<start, UTC>)")
	fs.StringVar(&f.key, "key", "", "the node's ed25519 signing key, created on first use (default node-ed25519.pem in --config's spool folder, else in $GPUPROBE_STATE_DIR or the user's config folder)")
	fs.BoolVar(&f.noPush, "no-push", false, "do not push the results even with --config")
	fs.DurationVar(&f.pushWait, "push-wait", 2*time.Minute, "how long to wait at the end for the backend to acknowledge every result (what is left stays in the spool)")
	fs.BoolVar(&f.force, "force", false, "test GPUs even when other processes use them (their idle check still fails)")
	fs.BoolVar(&f.quiet, "no-progress", false, "no progress lines")
	fs.StringVar(&f.snapshot, "snapshot", "", "judge this recorded snapshot `FILE` (from gpuprobe snapshot) instead of the live machine; the steps that measure a live card are not run")
}

// trialLiveOnly are the flags that act on the live machine: refused with
// --snapshot, which measures nothing.
var trialLiveOnly = append([]string{"soak", "burn", "power", "iperf-peer", "iperf-nominal", "iperf-duration", "force", "host-root"}, networkOnly...)

// replay reads the recorded snapshot of --snapshot and names it for the
// report (nil, nil without --snapshot).
func (f *trialFlags) replay() (*checkrun.Snapshot, *acceptance.Replayed, error) {
	if f.snapshot == "" {
		return nil, nil, nil
	}
	s, data, err := checkrun.ReadSnapshotBytes(f.snapshot)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(data)
	return s, &acceptance.Replayed{File: filepath.Base(f.snapshot), SHA256: hex.EncodeToString(sum[:]), TakenAt: s.TakenAt.UTC(),
		Hostname: s.Hostname, Probe: s.Probe, Note: s.Note}, nil
}

// validate refuses values that would make the trial meaningless before
// any GPU work starts.
func (f *trialFlags) validate() error {
	switch {
	case f.soak != 0 && (f.soak < config.MinSoak || f.soak > config.MaxSoak):
		return fmt.Errorf("--soak %v: 0, or from %v to %v (the seed's 30-minute soak)", f.soak, config.MinSoak, config.MaxSoak)
	case f.burn < time.Second:
		return fmt.Errorf("--burn %v: at least 1s", f.burn)
	case f.power < 5*time.Second:
		return fmt.Errorf("--power %v: at least 5s (a steady part needs readings after the ramp)", f.power)
	case f.iperfPeer != "" && f.iperfNominal <= 0:
		return fmt.Errorf("--iperf-peer %s needs --iperf-nominal MBITS, the advertised bandwidth the seed's 70 %% is of", f.iperfPeer)
	case f.pushWait < 0:
		return fmt.Errorf("--push-wait %v: must not be negative", f.pushWait)
	}
	return nil
}

func runTrial(cmd *cobra.Command, f *trialFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	var cfg *config.Config
	if f.check.config != "" && !f.noPush {
		c, err := config.Load(f.check.config)
		if err != nil {
			return fmt.Errorf("%w (to run the trial with only its expected: and network: sections, give --no-push)", err)
		}
		cfg = c
	}
	if f.snapshot != "" {
		if err := refuse(cmd, "to a recorded snapshot: it measures nothing live", trialLiveOnly...); err != nil {
			return err
		}
	}
	snap, replayed, err := f.replay()
	if err != nil {
		return err
	}
	var recorded *expect.Expected
	if snap != nil {
		recorded = snap.Expected
	}
	// The order is the flags', the config's or the recording's; never
	// the card's own name (sla/trial holds a card to no order then).
	if err := f.check.resolveExpected(recorded); err != nil {
		return err
	}
	checks, err := f.check.network.checker(f.check.config, f.check.hostRoot)
	if err != nil {
		return err
	}
	iperf, err := f.iperfChecker(checks)
	if err != nil {
		return err
	}
	key, err := edkey.LoadOrCreate(f.keyPath(cfg))
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	o := f.options(cfg, key, iperf)
	b := f.battery(ctx, o, checks, iperf, snap)
	if snap != nil {
		o.Steps, o.Replayed, o.Soak = trialrun.Replay(b, snap, "snapshot:"+f.snapshot), replayed, 0
		o.Hostname = snap.Hostname
	} else {
		o.Steps = trialrun.Battery(b)
	}
	if cfg != nil {
		if o.Push, err = trialrun.OpenPusher(cfg, version, log); err != nil {
			return err
		}
	}
	res, err := trialrun.Run(ctx, o)
	if err != nil {
		return err
	}
	printTrial(cmd, res)
	switch res.Report.Verdict {
	case acceptance.VerdictFail:
		return exitError{code: checkrun.ExitFail}
	case acceptance.VerdictWarn:
		return exitError{code: checkrun.ExitWarn}
	case acceptance.VerdictIncomplete:
		return exitError{code: exitIncomplete}
	}
	return nil
}

// options are the run's inputs from the flags and the config.
func (f *trialFlags) options(cfg *config.Config, key []byte, iperf *netcheck.Checker) trialrun.Options {
	start := time.Now()
	o := trialrun.Options{Probe: version, Order: f.check.expected, Soak: f.soak, Out: f.out, Key: key, PushWait: f.pushWait}
	if o.Out == "" {
		o.Out = trialrun.DefaultOut(start)
	}
	o.Hostname, _ = os.Hostname()
	if cfg != nil {
		o.Node = cfg.Node
	}
	if !f.quiet {
		o.Progress = trialrun.NewProgress(os.Stderr, true)
	}
	return o
}

// battery is the steps for this node: the all-reduce only where there is
// more than one GPU (the order's count, else NVML's).
func (f *trialFlags) battery(ctx context.Context, o trialrun.Options, checks, iperf *netcheck.Checker, snap *checkrun.Snapshot) trialrun.BatteryOptions {
	own := ownwork.New(ownwork.DefaultPath(), nil)
	c := &f.check
	c.own = own
	src := nvmlread.New()
	src.Own = own.State
	gpus := c.expected.GPUs
	switch {
	case gpus > 0:
	case snap != nil:
		if snap.GPU != nil {
			gpus = len(snap.GPU.Devices)
		}
	default:
		if s, err := nvmlread.New().Read(ctx); err == nil {
			gpus = len(s.Devices)
		}
	}
	groups := []checkrun.Group{
		checkrun.GPUGroup(src, c.kernelLogSource(), specdb.Default(), &c.expected),
		checkrun.CrossCheckGroup(c.hostRoot, crosscheck.ReadCUDA),
		checkrun.HostGroup(host.Reader{Root: c.hostRoot, StealWindow: time.Second}, &c.expected),
		c.network.group(checks),
	}
	return trialrun.BatteryOptions{Acceptance: groups, Probe: o.Probe, Burn: f.burn, Soak: f.soak, Power: f.power,
		OneGPU: gpus == 1, Iperf: iperf, Own: own, Force: f.force}
}

// iperfChecker is the iperf3 peer of the flags, else of --config's
// network.iperf3; nil when neither names one.
func (f *trialFlags) iperfChecker(checks *netcheck.Checker) (*netcheck.Checker, error) {
	if f.iperfPeer == "" {
		if checks.Spec.Iperf3 == nil {
			return nil, nil
		}
		return checks, nil
	}
	host, port := f.iperfPeer, netcheck.DefaultIperfPort
	if h, p, err := net.SplitHostPort(f.iperfPeer); err == nil {
		n, perr := strconv.Atoi(p)
		if perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("--iperf-peer %q: port %q is not 1 to 65535", f.iperfPeer, p)
		}
		host, port = h, n
	}
	spec := netcheck.Spec{Iperf3: &netcheck.Iperf{Host: host, Port: port, Duration: f.iperfDuration, NominalMbps: f.iperfNominal}}
	spec.SetDefaults()
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("--iperf-peer: %w", err)
	}
	return &netcheck.Checker{Spec: spec}, nil
}

// keyPath is where the node's signing key lives.
func (f *trialFlags) keyPath(cfg *config.Config) string {
	const name = "node-ed25519.pem"
	switch {
	case f.key != "":
		return f.key
	case cfg != nil:
		return filepath.Join(cfg.Spool.Dir, name)
	case os.Getenv("GPUPROBE_STATE_DIR") != "":
		return filepath.Join(os.Getenv("GPUPROBE_STATE_DIR"), name)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = "."
	}
	return filepath.Join(dir, "gpuprobe", name)
}

// printTrial writes the criteria, the verdict and where the files are.
func printTrial(cmd *cobra.Command, res *trialrun.Result) {
	w := cmd.OutOrStdout()
	r := res.Report
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-18s %-14s %s\n", row.Key, row.Verdict, trialrun.Figure(row))
	}
	fmt.Fprintf(w, "\n%s in %s (planned %s)", r.Verdict, time.Duration(r.WallSeconds*float64(time.Second)).Round(time.Second),
		time.Duration(r.PlannedSeconds*float64(time.Second)).Round(time.Second))
	switch {
	case r.Replayed != nil:
		fmt.Fprintf(w, "; replayed from %s (taken %s): nothing was measured on a live card", r.Replayed.File, r.Replayed.TakenAt.Format(time.RFC3339))
	case r.Soak.PlannedSeconds == 0:
		fmt.Fprint(w, "; no soak (--soak 0): the seed's 30-minute gpu_burn criterion is not measured")
	case r.Soak.Shortened:
		fmt.Fprintf(w, "; the soak was shortened to %s (the seed's is 30m)", time.Duration(r.Soak.PlannedSeconds*float64(time.Second)))
	}
	fmt.Fprintf(w, "\nreport %s, %s\nsigned record %s (key %s): check it with `gpusla verify %s`\n",
		filepath.Join(res.Dir, acceptance.ReportMD), filepath.Join(res.Dir, acceptance.ReportJSON), res.RecordPath, r.KeyID, res.RecordPath)
	if p := res.Delivered; p != nil {
		if p.Acked == p.Batches {
			fmt.Fprintf(w, "pushed to %s: all %d batches acknowledged\n", p.Backend, p.Batches)
		} else {
			fmt.Fprintf(w, "pushed to %s: %d of %d batches acknowledged; the other %d stay in the spool (%s) and go with the next push (`gpuprobe run`)\n",
				p.Backend, p.Acked, p.Batches, p.Batches-p.Acked, p.Spool)
		}
	}
}
