package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/crosscheck"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
	"github.com/gpusla/gpusla/probe/health"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/ownwork"
	"github.com/gpusla/gpusla/probe/specdb"
)

// checkOptions are the flags of `gpuprobe check` and `gpuprobe snapshot`.
type checkOptions struct {
	json        bool
	snapshot    string
	config      string
	expects     []string
	hostRoot    string
	stealWindow time.Duration
	xidWait     time.Duration
	kernelLog   string
	noProgress  bool
	stress      checkStress  // --quick/--full/--no-stress (stress.go)
	network     checkNetwork // --no-network/--mirror/--gateway/--dns (network.go)
	// net is the network checks, built by RunE from --config and the
	// network flags before checkGroups; nil where none run (snapshot).
	net *netcheck.Checker
	// own records this run's GPU work and tells when a previous probe
	// process's ended (ownwork.DefaultPath), so that the idleness checks
	// never judge the probe's own burns.
	own *ownwork.Recorder

	expected expect.Expected // settled by resolveExpected before groups judge
}

// checkGroups lists the groups `gpuprobe check` runs, in order. A new
// group of checks is one more line here.
func checkGroups(o *checkOptions) []checkrun.Group {
	if o.own == nil {
		o.own = ownwork.New(ownwork.DefaultPath(), nil)
	}
	o.stress.own = o.own
	groups := []checkrun.Group{
		checkrun.GPUGroup(o.gpuSource(), o.kernelLogSource(), specdb.Default(), &o.expected),
		checkrun.CrossCheckGroup(o.hostRoot, crosscheck.ReadCUDA),
		checkrun.HostGroup(host.Reader{Root: o.hostRoot, StealWindow: o.stealWindow}, &o.expected),
	}
	if o.net != nil {
		groups = append(groups, o.network.group(o.net))
	}
	// Flag conflicts are reported by RunE (o.stress.options) before this runs.
	if g, ok, _ := o.stress.group(); ok {
		groups = append(groups, g)
	}
	return groups
}

func (o *checkOptions) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&o.config, "config", "", "probe config `FILE`; its expected: (what was ordered) and network: (what check pings, resolves and fetches) sections are read")
	fs.StringArrayVar(&o.expects, "expect", nil, "what was ordered: `KEY=VALUE`, several in one separated by commas (model=H200,gpus=8) or the flag repeated; keys: model, gpus, gpu_memory_gb, driver, cpus, cpu_model, ram_gb, disks (/mount:SIZE_GB, one a disk); overrides --config")
	fs.StringVar(&o.hostRoot, "host-root", "/", "root under which /proc and /sys are read")
	fs.DurationVar(&o.stealWindow, "steal-window", time.Second, "how long CPU steal time is sampled")
	fs.DurationVar(&o.xidWait, "xid-wait", 0, "how long to listen for NVML XID events after reading the GPUs")
	fs.StringVar(&o.kernelLog, "kernel-log", "", "judge XIDs in this saved dmesg/journal file instead of reading /dev/kmsg")
	o.stress.register(cmd)
	o.network.register(cmd)
}

// gpuSource is the system's NVML.
func (o *checkOptions) gpuSource() gpu.Source {
	n := nvmlread.New()
	n.XIDWait = o.xidWait
	n.Own = o.own.State
	return n
}

// kernelLogSource is the live kernel log, or a saved file.
func (o *checkOptions) kernelLogSource() health.KernelLog {
	if o.kernelLog == "" {
		return kmsg.Reader{}
	}
	return kmsg.File(o.kernelLog)
}

// resolveExpected settles the order: --expect flags over --config over
// what a recorded snapshot carries.
func (o *checkOptions) resolveExpected(recorded *expect.Expected) error {
	var e expect.Expected
	if recorded != nil {
		e = *recorded
	}
	var stated expect.Expected
	if o.config != "" {
		c, err := expect.LoadConfig(o.config)
		if err != nil {
			return err
		}
		stated = c
		// An enrolled machine's order is its enrolment token's.
		if ordered, enrolled, err := config.EnrolledOrder(o.config); err != nil {
			return err
		} else if enrolled {
			stated = ordered
		}
	}
	var flags expect.Expected
	for _, kv := range o.expects {
		if err := flags.SetList(kv); err != nil {
			return err
		}
	}
	if o.config != "" || len(o.expects) > 0 {
		e = stated
	}
	e.Merge(flags)
	// An ordered model the database does not know is bad input (exit 1):
	// the order cannot be judged, and saying "fail" would blame the card.
	if e.Model != "" {
		if _, err := specdb.Default().Resolve(e.Model); err != nil {
			return fmt.Errorf("the order's model (expected.model / --expect model): %w", err)
		}
	}
	o.expected = e
	return nil
}

// refuse rejects flags that would do nothing in this mode, so that a
// renter who passed one is told rather than silently ignored.
func refuse(cmd *cobra.Command, why string, names ...string) error {
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			return fmt.Errorf("--%s does not apply %s", n, why)
		}
	}
	return nil
}

// liveOnly are the flags that act on the live machine only.
var liveOnly = []string{"host-root", "steal-window", "xid-wait"}

// stressOnly are the flags that choose or force the stress tests.
var stressOnly = []string{"quick", "full", "force", "soak"}

func init() {
	commands = append(commands, func() *cobra.Command {
		o := &checkOptions{}
		cmd := &cobra.Command{
			Use:   "check",
			Short: "Check once that this node is what was ordered and healthy; print a table (or --json)",
			Long: `Runs every check once — GPU inventory and authenticity against the spec
database and the order, GPU health (temperature, clocks, ECC, remapped rows,
XIDs from NVML and the kernel log, other tenants), host checks, the network
(gateway ping against the 2 ms bar, DNS, an HTTP HEAD to the package mirror;
--no-network leaves them out) — and prints
check, verdict, measured value and criterion for each.

Exit status: 0 every check passed (or was skipped), 2 warnings but no
failure, 3 at least one failure, 1 the check could not run.
See docs/probe-check.md.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if _, _, err := o.stress.options(); err != nil {
					return err
				}
				if o.snapshot != "" {
					if err := refuse(cmd, "to a recorded snapshot: it reads and measures nothing live", append(append(liveOnly, stressOnly...), networkOnly...)...); err != nil {
						return err
					}
				}
				var err error
				if o.net, err = o.network.checker(o.config, o.hostRoot); err != nil {
					return err
				}
				ctx, stop := signalContext()
				defer stop()
				r := &checkrun.Runner{Groups: checkGroups(o), Probe: version}
				if !o.noProgress {
					r.Progress = checkrun.TerminalProgress(os.Stderr)
				}
				var rep *checkrun.Report
				if o.snapshot != "" {
					s, err := checkrun.ReadSnapshot(o.snapshot)
					if err != nil {
						return err
					}
					if o.kernelLog != "" {
						// Honoured: the saved log is judged instead of the
						// one the snapshot recorded.
						if s.Kernel, err = kmsg.File(o.kernelLog).Read(ctx); err != nil {
							return fmt.Errorf("--kernel-log: %w", err)
						}
					}
					if err := o.resolveExpected(s.Expected); err != nil {
						return err
					}
					rep = r.Recorded(s, "snapshot:"+o.snapshot)
				} else {
					if err := o.resolveExpected(nil); err != nil {
						return err
					}
					if _, rep, err = r.Live(ctx); err != nil {
						return err
					}
				}
				out := cmd.OutOrStdout()
				if o.json {
					err = rep.WriteJSON(out)
				} else {
					err = rep.WriteTable(out)
				}
				if err != nil {
					return fmt.Errorf("write report: %w", err)
				}
				if rep.ExitCode != checkrun.ExitPass {
					return exitError{code: rep.ExitCode}
				}
				return nil
			},
		}
		o.register(cmd)
		cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON (docs/probe-check.md)")
		cmd.Flags().StringVar(&o.snapshot, "snapshot", "", "judge this recorded snapshot `FILE` (from gpuprobe snapshot) instead of the live machine")
		cmd.Flags().BoolVar(&o.noProgress, "no-progress", false, "no progress bar, even on a terminal")
		return cmd
	})
}
