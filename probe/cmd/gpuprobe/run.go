package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/internal/logtext"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/crosscheck"
	"github.com/gpusla/gpusla/probe/daemon"
	"github.com/gpusla/gpusla/probe/enrol"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/kube"
	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/ownwork"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress"
	"github.com/gpusla/gpusla/probe/stress/judge"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/usage"
	"github.com/gpusla/gpusla/probe/wire"
)

func init() {
	commands = append(commands, func() *cobra.Command {
		var path string
		cmd := &cobra.Command{
			Use:   "run",
			Short: "Run the probe daemon: scheduled checks, spooled and pushed to the backend",
			Long: `run watches the node around the clock (docs/probe.md): a heartbeat every 30 s,
host and GPU health every 5 min, network checks every 15 min, GPU stress and
bandwidth daily in the quiet window when the GPUs are idle. Every result is
written to the spool before it is sent and deleted only when the backend
acknowledged it. SIGHUP reloads the config; SIGTERM stops cleanly.

With an enrol: section instead of node: and secret_file:, the first start
registers the node with the renter's enrolment token (its id: node:, else
$NODE_NAME, else the host name) and keeps its id and secret in enrol.state
(mode 0600); later starts read them from there (docs/probe.md, "Installing
on a fleet").`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				log := logtext.JSON(os.Stderr, slog.LevelInfo)
				ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
				defer stop()
				hup := make(chan os.Signal, 1)
				signal.Notify(hup, syscall.SIGHUP)
				defer signal.Stop(hup)
				reload := make(chan struct{}, 1)
				go func() {
					for range hup {
						select {
						case reload <- struct{}{}:
						default:
						}
					}
				}()
				// One record of the probe's own GPU work for the process's
				// life, across reloads: the health job skips its idleness
				// checks while the stress job burns.
				own := ownwork.New(ownwork.DefaultPath(), log)
				if err := enrolFirst(ctx, path, log); err != nil {
					return err
				}
				d := &daemon.Daemon{ConfigPath: path, Version: version, Build: jobBuilder(own), Log: log, Reload: reload}
				return d.Run(ctx)
			},
		}
		cmd.Flags().StringVar(&path, "config", config.DefaultPath, "the probe's YAML config `FILE`")
		return cmd
	})
}

// enrolFirst registers the probe with the renter's token on its first
// start when the config has an enrol: section (probe/enrol); a config
// that does not parse is left for the daemon to report.
func enrolFirst(ctx context.Context, path string, log *slog.Logger) error {
	c, err := config.LoadForEnrol(path)
	if err != nil || !c.Enrol.Enabled() {
		return nil
	}
	return (&enrol.Enroller{Config: c, Version: version, Log: log}).Ensure(ctx)
}

// jobBuilder wires the checks of each part of the probe into the daemon's
// schedule, one line each: the health job is the host checks plus the GPU
// inventory, authenticity and health checks of `gpuprobe check` (live
// through NVML and the kernel log, or replayed from gpu_snapshot). own is
// shared by the health and stress jobs.
func jobBuilder(own *ownwork.Recorder) daemon.Builder {
	return func(cfg *config.Config) (daemon.Jobs, error) {
		net := &netcheck.Checker{Spec: cfg.Network}
		return daemon.Jobs{
			Health: func(ctx context.Context) []wire.Check {
				cs := host.Collect(ctx, host.Reader{Root: cfg.HostRoot}, cfg.Expected)
				if cfg.GPUSnapshot != "" {
					return append(cs, replayGPU(cfg.GPUSnapshot, cfg.Expected)...)
				}
				nv := nvmlread.New()
				nv.Own = own.State
				exp := cfg.Expected
				return append(cs, checkrun.Collect(ctx,
					checkrun.GPUGroup(gpuSource(cfg, nv), checkrun.KernelLogReader(), specdb.Default(), &exp),
					checkrun.CrossCheckGroup(cfg.HostRoot, crosscheck.ReadCUDA))...)
			},
			Network: net.Quick,
			Usage:   func(context.Context) []wire.Check { return usage.Reader{Root: cfg.HostRoot}.Collect() },
			Stress: func(ctx context.Context) []wire.Check {
				return append(gpuStress(ctx, cfg.Stress, own), net.Bandwidth(ctx)...)
			},
			GPUsIdle: func(ctx context.Context, maxPct float64) (bool, string, error) {
				return gpusIdle(ctx, gpuSource(cfg, nvmlread.New()), maxPct)
			},
		}, nil
	}
}

// gpuSource is where the daemon reads the GPUs: NVML, with every process
// of a pod marked as the renter's own work where kubernetes.renter_pods
// says pods are (probe/kube).
func gpuSource(cfg *config.Config, nv gpu.Source) gpu.Source {
	if !cfg.Kubernetes.Renter {
		return nv
	}
	return kube.RenterSource{Inner: nv, Pods: kube.Pods{Proc: cfg.Proc()}}
}

// gpuStress runs the burns (stress.burn each, and the stress.soak soak),
// bandwidth and memory tests.
func gpuStress(ctx context.Context, c config.Stress, own stress.OwnWork) []wire.Check {
	o := stress.DefaultOptions()
	o.Own, o.Burn, o.Soak = own, c.Burn, c.Soak
	rep, err := stress.Run(ctx, o)
	return stressChecks(ctx, rep, err)
}

// stressChecks are the daemon's results of a stress run (judge.RunChecks).
func stressChecks(ctx context.Context, rep *result.Report, err error) []wire.Check {
	return judge.RunChecks(ctx, rep, err)
}

// gpusIdle reads GPU utilisation through NVML: the stress job must not
// compete with the renter's own work.
// On a cluster the renter runs, a GPU that one of its pods holds is busy
// however low its utilisation reads at that moment.
func gpusIdle(ctx context.Context, src gpu.Source, maxPct float64) (bool, string, error) {
	snap, err := src.Read(ctx)
	if err != nil {
		return false, "", err
	}
	if len(snap.Devices) == 0 {
		return false, "", fmt.Errorf("NVML lists no GPUs")
	}
	if held := kube.PodsOnGPUs(snap); len(held) > 0 {
		return false, "held by the renter's Kubernetes pods: " + strings.Join(held, ", "), nil
	}
	for i, d := range snap.Devices {
		if d.UtilizationGPU == nil {
			return false, "", fmt.Errorf("GPU %d does not report utilisation", i)
		}
		if float64(*d.UtilizationGPU) > maxPct {
			return false, fmt.Sprintf("GPU %d at %d %% utilisation (idle means ≤ %g %%)", i, *d.UtilizationGPU, maxPct), nil
		}
	}
	return true, "", nil
}

// replayGPU judges the GPU readings of a recorded snapshot (config
// gpu_snapshot), read afresh each time so the file can be swapped while the
// daemon runs. The order is the config's, else the snapshot's own.
func replayGPU(path string, exp expect.Expected) []wire.Check {
	s, err := checkrun.ReadSnapshot(path)
	if err != nil {
		return []wire.Check{{Name: "gpu.snapshot", Category: wire.CategoryHost, Verdict: wire.Fail,
			Criterion: "the configured gpu_snapshot can be read", Detail: err.Error()}}
	}
	if exp.IsZero() && s.Expected != nil {
		exp = *s.Expected
	}
	return append(checkrun.JudgeGPU(s, specdb.Default(), exp), checkrun.JudgeCrossCheck(s)...)
}
