package main

import (
	"os"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/loadgen"
)

func init() {
	commands = append(commands, newLoadgenCmd)
}

func newLoadgenCmd() *cobra.Command {
	var (
		o          loadgen.Options
		cpuprofile string
	)
	cmd := &cobra.Command{
		Use:   "loadgen",
		Short: "Measure ingest throughput of the serve stack against a no-op HTTP handler (loopback)",
		Long: `Registers --nodes simulated nodes in a fresh data folder, starts the same HTTP
stack as ` + "`gpusla serve`" + ` (httpapi, application, embedded store) on a loopback port and
drives it with --workers concurrent clients pushing real signed, hash-chained
heartbeat batches (two heartbeats each, every node's batches in order, one at
a time, as a probe does), and a no-op handler (reads the body, answers a
fixed ack) with the same generator, --rounds times each, alternating which
goes first, at every concurrency level in --workers. Each run stops after
--duration or --max-batches. Prints every run's batches/s, latency p50/p99/
max and CPU per batch, each level's medians and ratio to the no-op handler,
the peak throughput of each (a closed-loop generator measures throughput
only once the target is saturated), and the store operations per batch.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Check(); err != nil {
				return err
			}
			if cpuprofile != "" {
				pf, err := os.Create(cpuprofile)
				if err != nil {
					return err
				}
				defer pf.Close()
				if err := pprof.StartCPUProfile(pf); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			return loadgen.Run(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Nodes, "nodes", 1000, "simulated nodes")
	f.IntSliceVar(&o.Workers, "workers", []int{64, 128, 256}, "concurrent clients; a list measures each level")
	f.IntVar(&o.MaxBatches, "max-batches", 200000, "stop each run after this many batches")
	f.DurationVar(&o.Duration, "duration", 5*time.Second, "stop each run after this long")
	f.IntVar(&o.Rounds, "rounds", 3, "rounds; each runs a serve/no-op pair at every --workers level, alternating which goes first, and medians are reported")
	f.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of both runs to this file (samples labelled run=serve or run=no-op)")
	f.StringVar(&o.Data, "data", "", "fresh data folder for the store (default: a temp folder, removed after)")
	return cmd
}
