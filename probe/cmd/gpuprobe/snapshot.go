package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/probe/checkrun"
)

func init() {
	commands = append(commands, func() *cobra.Command {
		o := &checkOptions{}
		var outPath, note string
		cmd := &cobra.Command{
			Use:   "snapshot",
			Short: "Write every raw GPU, kernel-log and host reading to a JSON file",
			Long: `Records what ` + "`gpuprobe check`" + ` reads — every NVML reading of every GPU, the
kernel log's NVRM lines, the host's /proc and /sys readings — and the order
(--expect, --config) into one JSON file. ` + "`gpuprobe check --snapshot FILE`" + ` judges it
later, exactly as it judges a live machine.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if err := refuse(cmd, "to `gpuprobe snapshot`: it records readings and runs no stress or network test", append(append(stressOnly, "no-stress", "no-network"), networkOnly...)...); err != nil {
					return err
				}
				ctx, stop := signalContext()
				defer stop()
				if err := o.resolveExpected(nil); err != nil {
					return err
				}
				r := &checkrun.Runner{Groups: checkGroups(o), Probe: version, Progress: checkrun.TerminalProgress(os.Stderr)}
				s, err := r.Take(ctx)
				if err != nil {
					return err
				}
				s.Hostname, _ = os.Hostname()
				s.Note = note
				if !o.expected.IsZero() {
					e := o.expected
					s.Expected = &e
				}
				if err := checkrun.WriteSnapshot(outPath, s); err != nil {
					return err
				}
				gpus := 0
				if s.GPU != nil {
					gpus = len(s.GPU.Devices)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d GPUs%s\n", outPath, gpus, map[bool]string{true: " (GPU error: " + s.GPUError + ")", false: ""}[s.GPUError != ""])
				return nil
			},
		}
		o.register(cmd)
		cmd.Flags().StringVarP(&outPath, "output", "o", "gpuprobe-snapshot.json", "file to write")
		cmd.Flags().StringVar(&note, "note", "", "free text stored with the snapshot (what it represents)")
		return cmd
	})
}
