// Command firstgpu reads a backend's export (`gpusla export`, JSON lines
// of docs/events.md) on its standard input and prints the first GPU's
// readings the node sent: the checks of GPU 0 in the first observation
// that holds any. It exits 0 when they are a real card's — a temperature
// read with an NVML UUID ("GPU-…") — and 2 when no card was read (NVML
// missing, no GPU, or no health check stored yet).
//
//	gpusla export --data DIR --node NODE | firstgpu [-node NODE]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

func main() {
	node := flag.String("node", "", "only this node's observations")
	flag.Parse()
	code, err := run(os.Stdin, os.Stdout, *node)
	if err != nil {
		fmt.Fprintln(os.Stderr, "firstgpu:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(in io.Reader, out io.Writer, node string) (int, error) {
	var gpuChecks, machine []events.Check
	var at time.Time
	_, err := events.ReadLog("export", in, func(e *events.Event) error {
		if e.Type != events.TypeObservation || (node != "" && e.Node != node) || len(gpuChecks) > 0 {
			return nil
		}
		var first, wide []events.Check
		for _, c := range e.Checks {
			switch {
			case c.GPU != nil && *c.GPU == 0:
				first = append(first, c)
			case c.GPU == nil && strings.HasPrefix(c.Name, "gpu."):
				wide = append(wide, c)
			}
		}
		if len(first) > 0 {
			gpuChecks, at, machine = first, e.At, wide
		} else if len(machine) < 20 {
			machine = append(machine, wide...) // what the probe said of the GPUs when it read none
		}
		return nil
	})
	if err != nil {
		return 1, err
	}
	show := func(c events.Check) {
		fmt.Fprintf(out, "  %-28s %-5s %s", c.Name, c.Verdict, c.Value)
		if c.Number != nil && c.Value == "" {
			fmt.Fprintf(out, "%g %s", *c.Number, c.Unit)
		}
		if c.UUID != "" {
			fmt.Fprintf(out, "  [%s]", c.UUID)
		}
		fmt.Fprintln(out)
	}
	if len(gpuChecks) == 0 {
		fmt.Fprintln(out, "no reading of GPU 0 was stored; the node's GPU-wide checks:")
		for _, c := range machine {
			show(c)
		}
		return 2, nil
	}
	fmt.Fprintf(out, "GPU 0 as first read, observation at %s:\n", at.UTC().Format(time.RFC3339))
	for _, c := range machine {
		show(c)
	}
	real := false
	for _, c := range gpuChecks {
		show(c)
		if c.Name == "gpu.temperature" && c.Number != nil && strings.HasPrefix(c.UUID, "GPU-") {
			real = true
		}
	}
	if !real {
		fmt.Fprintln(out, "no temperature read with an NVML UUID: not a real card's readings")
		return 2, nil
	}
	return 0, nil
}
