package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/internal/logtext"
)

func init() {
	commands = append(commands, func() *cobra.Command {
		var (
			port int
			bind string
			bin  string
		)
		cmd := &cobra.Command{
			Use:   "iperf-server",
			Short: "Serve as the iperf3 peer for another node's bandwidth check (runs iperf3 -s)",
			Long: `iperf-server runs "iperf3 -s" on this node so that a peer's gpuprobe can measure
the bandwidth between the two (network.iperf3 in the peer's config). It
restarts iperf3 if it exits and stops it on SIGTERM.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if port < 1 || port > 65535 {
					return fmt.Errorf("--port %d: must be 1 to 65535", port)
				}
				path, err := exec.LookPath(bin)
				if err != nil {
					return fmt.Errorf("--iperf3 %s: %w (install the iperf3 package)", bin, err)
				}
				log := logtext.JSON(os.Stderr, slog.LevelInfo)
				ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
				defer stop()
				return serveIperf(ctx, log, path, port, bind)
			},
		}
		cmd.Flags().IntVar(&port, "port", 5201, "TCP port to listen on")
		cmd.Flags().StringVar(&bind, "bind", "", "address to listen on (default all)")
		cmd.Flags().StringVar(&bin, "iperf3", "iperf3", "the iperf3 binary")
		return cmd
	})
}

// serveIperf keeps one iperf3 server running until ctx ends. A server that
// keeps dying is restarted with a growing pause, not in a tight loop.
func serveIperf(ctx context.Context, log *slog.Logger, bin string, port int, bind string) error {
	args := []string{"-s", "-p", strconv.Itoa(port)}
	if bind != "" {
		args = append(args, "-B", bind)
	}
	pause := time.Second
	for {
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		start := time.Now()
		if err := c.Start(); err != nil {
			return fmt.Errorf("start %s: %w", bin, err)
		}
		log.Info("iperf3 server listening", "port", port, "bind", bind, "pid", c.Process.Pid)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-ctx.Done():
			c.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				c.Process.Kill()
				<-done
			}
			return nil
		case err := <-done:
			if time.Since(start) > time.Minute {
				pause = time.Second
			}
			log.Warn("iperf3 server exited; restarting", "err", err, "retry_in", pause)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(pause):
			}
			pause = min(2*pause, time.Minute)
		}
	}
}
