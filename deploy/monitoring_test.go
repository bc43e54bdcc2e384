package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/daemon"
	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/judge"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// The files the chart ships.
var (
	dashboardFile = filepath.Join(ChartDir, "files", "gpuprobe-dashboard.json")
	rulesFile     = filepath.Join(ChartDir, "files", "gpuprobe-alerts.yaml")
)

// Target labels a Prometheus scrape (the chart's ServiceMonitor) adds to
// every series; an exported label of the same name is renamed
// exported_<name> (honor_labels is off).
var targetLabels = []string{"job", "instance", "namespace", "service", "pod", "container", "endpoint", "node"}

// exported is what the probe's /metrics serves as Prometheus stores it:
// each metric's label names, and the values each label takes.
type exported map[string]map[string]map[string]bool // metric -> label -> values

// probeChecks are checks from the probe's own judges on real inputs: every
// recorded GPU snapshot, a stress report of every precision, and the
// network checks against this machine's loopback.
func probeChecks(t *testing.T) []wire.Check {
	t.Helper()
	snaps, err := filepath.Glob("../probe/checkrun/testdata/snapshots/*.json")
	if err != nil || len(snaps) == 0 {
		t.Fatalf("recorded snapshots: %v", err)
	}
	var cs []wire.Check
	for _, p := range snaps {
		s, err := checkrun.ReadSnapshot(p)
		if err != nil {
			t.Fatal(err)
		}
		exp := s.Expected
		if exp == nil || s.GPU == nil {
			continue
		}
		cs = append(cs, checkrun.JudgeGPU(s, specdb.Default(), *exp)...)
		cs = append(cs, checkrun.JudgeCrossCheck(s)...)
	}
	// A stress run on the recorded H200, so each burn is held to its
	// yardstick (the spec found by the card's PCI ids).
	h200, err := checkrun.ReadSnapshot("../probe/checkrun/testdata/snapshots/h200x2-real.json")
	if err != nil {
		t.Fatal(err)
	}
	pci := h200.GPU.Devices[0].PCI
	rep := &result.Report{GPUs: []*result.GPU{{Index: 0, Static: &result.Static{DeviceID: pci.DeviceID16(), SubsystemID: uint16(pci.SubsystemID >> 16)}}}}
	for _, p := range result.AllPrecisions {
		rep.Burns = append(rep.Burns, result.Burn{GPU: 0, Precision: p, Launches: 10, Checked: 1000, Median: 100, Min: 99, Samples: []float64{100, 100, 100}})
	}
	cs = append(cs, judge.Report(rep)...)
	spec := netcheck.Spec{Gateway: netcheck.Gateway{Address: "127.0.0.1", PingOpts: netcheck.PingOpts{Count: 3, Interval: 10 * time.Millisecond}}}
	spec.SetDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs = append(cs, (&netcheck.Checker{Spec: spec}).Quick(ctx)...)
	return cs
}

// probeExports gathers the daemon's real registry after it observed
// probeChecks, renaming as a scrape does.
func probeExports(t *testing.T) exported {
	t.Helper()
	fams, err := daemon.Families(probeChecks(t))
	if err != nil {
		t.Fatal(err)
	}
	out := exported{}
	for _, f := range fams {
		m := map[string]map[string]bool{}
		for _, l := range targetLabels {
			m[l] = map[string]bool{}
		}
		for _, s := range f.GetMetric() {
			for _, lp := range s.GetLabel() {
				name := lp.GetName()
				for _, tl := range targetLabels {
					if name == tl {
						name = "exported_" + name
					}
				}
				if m[name] == nil {
					m[name] = map[string]bool{}
				}
				m[name][lp.GetValue()] = true
			}
		}
		out[f.GetName()] = m
	}
	return out
}

// Expression is one PromQL expression and where it comes from.
type Expression struct{ Where, Expr string }

// dashboardExprs are the dashboard's queries, its variables' too, with the
// dashboard's variables replaced as Grafana would ($node by a regex).
func dashboardExprs(t *testing.T) []Expression {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query string `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	vars := strings.NewReplacer("$node", ".+", "$gpu", ".*", "$__all", ".*")
	var out []Expression
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, Expression{"panel " + p.Title, vars.Replace(tg.Expr)})
		}
	}
	labelValues := regexp.MustCompile(`^label_values\((.+), *[a-z_]+\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Query)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, v.Query)
			continue
		}
		out = append(out, Expression{"variable " + v.Name, vars.Replace(m[1])})
	}
	return out
}

// ruleExprs are the alert rules' expressions, the file checked by
// Prometheus's own rule file parser first.
func ruleExprs(t *testing.T) []Expression {
	t.Helper()
	raw, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	groups, errs := rulefmt.Parse(raw, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		t.Fatalf("%s: %v", rulesFile, errs)
	}
	var out []Expression
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %q: an alert needs a name, a severity and a summary", r.Alert)
			}
			out = append(out, Expression{"alert " + r.Alert, r.Expr})
		}
	}
	return out
}

// checkSelectors parses e with Prometheus's parser and holds every
// selector in it to what the probe exports: the metric, every label it
// names, and the values an equality or a regex matcher asks for.
func checkSelectors(errorf func(string, ...any), e Expression, ex exported) {
	p := parser.NewParser(parser.Options{})
	expr, err := p.ParseExpr(e.Expr)
	if err != nil {
		errorf("%s: %q does not parse: %v", e.Where, e.Expr, err)
		return
	}
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		fam, ok := ex[vs.Name]
		if !ok {
			errorf("%s: metric %q is not one the probe exports (%s)", e.Where, vs.Name, names(ex))
			return nil
		}
		for _, m := range vs.LabelMatchers {
			if m.Name == model.MetricNameLabel {
				continue
			}
			vals, ok := fam[m.Name]
			if !ok {
				errorf("%s: %s has no label %q", e.Where, vs.Name, m.Name)
				continue
			}
			if _, renamed := fam["exported_"+m.Name]; renamed {
				errorf("%s: %s{%s}: %q is the scrape's own label here; the probe's is exported_%s", e.Where, vs.Name, m, m.Name, m.Name)
				continue
			}
			if len(vals) == 0 {
				continue // a target label: its values are the cluster's
			}
			if !anyMatches(m, vals) {
				errorf("%s: %s{%s} matches none of the values the probe exports: %s", e.Where, vs.Name, m, keys(vals))
			}
		}
		return nil
	})
}

// anyMatches reports whether a selector's matcher asks for a value the
// probe exports: a positive matcher must match one; a negative one must
// leave one.
func anyMatches(m *labels.Matcher, vals map[string]bool) bool {
	for v := range vals {
		if m.Matches(v) {
			return true
		}
	}
	return false
}

func names(ex exported) string { return strings.Join(keysOf(ex), ", ") }

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keys(m map[string]bool) string { return strings.Join(keysOf(m), ", ") }

// Every query of the dashboard and every alert rule parses with
// Prometheus's own parser, and every metric, label and check it names is
// one the probe really exports — the list made from the daemon's
// /metrics registry after the probe's own judges ran, not written by hand.
func TestDashboardAndRulesQueryWhatTheProbeExports(t *testing.T) {
	ex := probeExports(t)
	for _, must := range []string{"gpuprobe_check_verdict", "gpuprobe_check_celsius", "gpuprobe_check_watts", "gpuprobe_check_flop_per_second",
		"gpuprobe_check_seconds", "gpuprobe_check_ratio", "gpuprobe_spool_batches"} {
		if _, ok := ex[must]; !ok {
			t.Fatalf("the probe's registry lacks %s: the inputs do not reach it (%s)", must, names(ex))
		}
	}
	exprs := append(dashboardExprs(t), ruleExprs(t)...)
	if len(exprs) < 20 {
		t.Fatalf("only %d expressions found", len(exprs))
	}
	for _, e := range exprs {
		checkSelectors(t.Errorf, e, ex)
	}
}

// The checker itself: a misspelt metric, a check the probe never reports,
// a label it has no values for, and an expression that does not parse
// are each caught.
func TestSelectorCheckCatchesMistakes(t *testing.T) {
	ex := exported{"gpuprobe_check_celsius": {"check": {"gpu.temperature": true}, "gpu": {"0": true}, "node": {}},
		"gpuprobe_job_last_run_timestamp_seconds": {"job": {}, "exported_job": {"heartbeat": true}}}
	for _, bad := range []string{
		`gpuprobe_check_celcius{check="gpu.temperature"}`,
		`gpuprobe_check_celsius{check="gpu.temp"}`,
		`gpuprobe_check_celsius{check=~"net\\..+"}`,
		`gpuprobe_check_celsius{gpu_index="0"}`,
		`gpuprobe_check_celsius{check="gpu.temperature"`,
		`gpuprobe_job_last_run_timestamp_seconds{job="heartbeat"}`,
	} {
		var got []string
		checkSelectors(func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }, Expression{"case", bad}, ex)
		if len(got) == 0 {
			t.Errorf("%q passed", bad)
		}
	}
	checkSelectors(t.Errorf, Expression{"case", `max by (node) (gpuprobe_check_celsius{node=~".+", check="gpu.temperature", gpu=~".*"}) > 85`}, ex)
}
