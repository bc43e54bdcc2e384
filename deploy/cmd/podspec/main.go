// Command podspec renders the Helm chart (Helm's own engine, every object
// decoded strictly) and writes what one DaemonSet's probe container runs
// with, so that a machine without Kubernetes can run the probe binary
// exactly as the pod would: deploy/bench/device_daemonset_flags.sh reads it.
//
//	podspec -chart deploy/chart/gpusla [-values FILE] [-set a.b=v]... \
//	        [-daemonset gpusla-gpuprobe] [-node NAME] -out DIR
//
// DIR gets args (the container's arguments, one a line), env (NAME=VALUE
// a line, the downward API's spec.nodeName resolved to -node), mounts (a
// line per volume mount: target, kind, source, ro|rw), security (user,
// capabilities, privileged, no_new_privs, read_only_root) and files/ (the
// ConfigMap files the container mounts, under their mount paths).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gpusla/gpusla/deploy/chartrender"
	"github.com/gpusla/gpusla/deploy/podspec"
)

// sets collects repeated -set flags.
type sets []string

func (s *sets) String() string     { return strings.Join(*s, ",") }
func (s *sets) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var set sets
	chart := flag.String("chart", "deploy/chart/gpusla", "the chart's folder")
	values := flag.String("values", "", "a values file over the chart's own")
	flag.Var(&set, "set", "a value over those, `path.to.key=value` (repeatable; true, false and numbers as YAML reads them)")
	ds := flag.String("daemonset", chartrender.Release+"-gpuprobe", "the DaemonSet whose first container is written")
	node := flag.String("node", "", "the node name the downward API gives (default: the host name)")
	out := flag.String("out", "", "folder to write (required)")
	flag.Parse()
	if err := run(*chart, *values, set, *ds, *node, *out); err != nil {
		fmt.Fprintln(os.Stderr, "podspec:", err)
		os.Exit(1)
	}
}

func run(chart, values string, set []string, ds, node, out string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	if node == "" {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		node = h
	}
	vals, err := chartrender.ReadValues(values)
	if err != nil {
		return err
	}
	for _, kv := range set {
		if err := podspec.SetValue(vals, kv); err != nil {
			return err
		}
	}
	rs, err := chartrender.Render(chart, vals)
	if err != nil {
		return err
	}
	p, err := podspec.Of(rs, ds, node)
	if err != nil {
		return err
	}
	return p.Write(out)
}
