package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/terms"
)

// packDir holds the term packs modelled on published SLAs, each with its
// golden months: <pack>.yaml (terms, citing its sources), <pack>.events.jsonl
// (the log), <pack>.report.json / .md (March 2026's expected report),
// <pack>.<YYYY-MM>.report.json / .md (another month's) and <pack>.md (the
// figures worked by hand).
var packDir = filepath.Join("..", "..", "testdata", "terms", "packs")

// packMonth is one golden month of a pack: the hand-worked figures of the
// pack's note, checked against the engine besides the golden files, so a
// changed golden cannot drift from the note; and the terms the pack could
// only source from a secondary page (the claim says they are unverified).
type packMonth struct {
	pack, node        string
	month             time.Month
	claimable, charge float64
	credit            float64
	deadline          string
	unverified        string // the contract's unverified_terms, comma-joined
}

var packs = []packMonth{
	{"aws-ec2-instance", "p5-01", time.March, 99.2921, 23616.00, 2361.60, "2026-06-01T00:00:00Z", "billing.clock_hour_rule,claim,claim.channel,claim.credit_within,claim.include,claim.subject,uptime.credit_cap,uptime.denominator,uptime.downtime_period,uptime.minimum_credit,uptime.target,uptime.tiers,uptime.unavailable"},
	{"gce-single-instance", "a3-01", time.March, 99.7555, 20804.00, 2080.40, "2026-05-01T00:00:00-07:00", "timezone,uptime.downtime_period,uptime.tiers"},
	{"alibaba-ecs", "gn7-01", time.March, 99.5968, 178560.00, 17856.00, "2026-04-04T14:00:00+08:00", "claim,claim.include,uptime.denominator,uptime.downtime_period,uptime.target,uptime.tiers,uptime.unavailable"},
	{"gpuhub-network", "4090-01", time.March, 99.6864, 372.00, 2.00, "2026-05-01T00:00:00Z", "claim,uptime.credit_cap,uptime.target"},
	{"gpuhub-network", "4090-01", time.April, 99.9074, 360.00, 0.50, "2026-05-31T00:00:00Z", "claim,uptime.credit_cap,uptime.target"},
	{"hostedai-gpu", "h100-01", time.March, 99.3952, 14820.48, 1482.04, "2026-04-09T10:00:00Z", "claim,credits,maintenance,support,uptime.credit_cap,uptime.denominator,uptime.target,uptime.tiers,uptime.unavailable"},
	{"ucloud-sdu", "ucloud-gpu-01", time.March, 91.9246, 15320.00, 0, "2026-05-01T00:00:00+02:00", "claim"},
	{"tencent-cvm", "gt4-01", time.March, 99.9731, 148800.00, 14880.00, "2026-05-31T00:00:00+08:00", "maintenance"},
	{"tencent-cvm", "gt4-01", time.April, 98.9977, 144000.00, 36000.00, "2026-06-30T00:00:00+08:00", "maintenance"},
	{"yandex-compute-vm", "y-gpu-01", time.March, 99.9485, 17856.00, 1785.60, "2026-04-15T00:00:00+03:00", "claim"},
	{"yandex-compute-vm", "y-gpu-01", time.April, 94.9977, 17280.00, 5184.00, "2026-05-15T00:00:00+03:00", "claim"},
	{"jdcloud-vm", "jd-gpu-01", time.March, 99.9731, 119040.00, 3199.99, "2026-05-01T00:00:00+08:00", "claim,maintenance"},
	{"jdcloud-vm", "jd-gpu-01", time.April, 98.9977, 115200.00, 115200.00, "2026-05-31T00:00:00+08:00", "claim,maintenance"},
	{"jdcloud-dcps", "dcps-01", time.March, 99.5004, 44640.00, 22300.00, "2026-05-01T00:00:00+08:00", "claim,maintenance"},
	{"jdcloud-dcps", "dcps-01", time.April, 99.0023, 43200.00, 43100.00, "2026-05-31T00:00:00+08:00", "claim,maintenance"},
	{"tencent-car", "car-01", time.March, 98.9987, 1488.00, 74.40, "2026-05-31T00:00:00+08:00", "maintenance"},
	{"tencent-car", "car-01", time.April, 96.9977, 1440.00, 144.00, "2026-06-30T00:00:00+08:00", "maintenance"},
	{"tencent-intl-cvm", "intl-gn7-01", time.March, 99.9722, 1152.00, 115.20, "2026-05-31T00:00:00+08:00", "maintenance"},
	{"tencent-intl-cvm", "intl-gn7-01", time.April, 94.9977, 2304.00, 2304.00, "2026-06-30T00:00:00+08:00", "maintenance"},
	{"coreweave-single-instance", "cw-h100-01", time.March, 99.0009, 25296.00, 0, "2026-04-11T00:00:00Z", ""},
	{"coreweave-single-instance", "cw-h100-01", time.April, 89.9977, 24480.00, 12240.00, "2026-05-11T00:00:00Z", ""},
}

// golden is the month's golden file name: March keeps the pack's plain
// name, other months carry theirs.
func (p packMonth) golden(ext string) string {
	if p.month == time.March {
		return p.pack + ".report." + ext
	}
	return fmt.Sprintf("%s.2026-%02d.report.%s", p.pack, int(p.month), ext)
}

func TestTermPacks(t *testing.T) {
	for _, p := range packs {
		t.Run(fmt.Sprintf("%s/%s", p.pack, p.month), func(t *testing.T) {
			tm, err := terms.ReadFile(filepath.Join(packDir, p.pack+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(packDir, p.pack+".md")); err != nil {
				t.Fatalf("the pack's worked figures: %v", err)
			}
			// As of the 2nd of the next month, noon UTC.
			asOf := time.Date(2026, p.month+1, 2, 12, 0, 0, 0, time.UTC)
			b, err := NewBuilder(tm, Options{Year: 2026, Month: p.month, AsOf: asOf})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(packDir, p.pack+".events.jsonl")
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := b.ReadLog(path, f); err != nil {
				t.Fatal(err)
			}
			r, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			n := node(t, r, p.node)
			eq(t, "claimable uptime", n.Uptime.Claimable(), p.claimable)
			eq(t, "charge", n.Billing.Charge, p.charge)
			eq(t, "credit", n.Credit.Amount, p.credit)
			eq(t, "claim deadline", n.ClaimDeadline, p.deadline)
			eq(t, "unverified terms", strings.Join(r.Contracts[0].Unverified, ","), p.unverified)
			var out bytes.Buffer
			if err := JSON(&out, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("..", "..", packDir, p.golden("json")), out.Bytes())
			out.Reset()
			if err := Markdown(&out, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("..", "..", packDir, p.golden("md")), out.Bytes())
		})
	}
}

// Every pack cites its sources, and its note names each term the claim
// will call unverified (cited only by a secondary page, or by none), so
// the pack says so itself.
func TestPackSourcesCoverEveryFigure(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(packDir, "*.yaml"))
	if err != nil || len(files) < 6 {
		t.Fatalf("packs: %v %v", files, err)
	}
	for _, file := range files {
		tms, err := terms.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tm := tms[0]
		if !strings.Contains(string(must(os.ReadFile(file))), "\nsources:") {
			t.Errorf("%s has no sources: list (an empty one says no published text was found)", filepath.Base(file))
			continue
		}
		note, err := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".md")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tm.Unverified() {
			if !strings.Contains(string(note), "`"+k+"`") {
				t.Errorf("%s: the note does not say that %s is unverified", filepath.Base(file), k)
			}
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
