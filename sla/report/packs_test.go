package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/terms"
)

// packDir holds the term packs modelled on published SLAs, each with a
// golden month: <pack>.yaml (terms, citing its source), <pack>.events.jsonl
// (the month's log), <pack>.report.json / .md (the expected report) and
// <pack>.md (the figures worked by hand).
var packDir = filepath.Join("..", "..", "testdata", "terms", "packs")

// The hand-worked figures of each pack's note, checked against the engine
// besides the golden files, so a changed golden cannot drift from the note.
var packs = []struct {
	pack, node        string
	claimable, charge float64
	credit            float64
	deadline          string
}{
	{"aws-ec2-instance", "p5-01", 99.2921, 23616.00, 2361.60, "2026-06-01T00:00:00Z"},
	{"gce-single-instance", "a3-01", 99.7558, 20832.00, 2083.20, "2026-05-31T00:00:00Z"},
	{"alibaba-ecs", "gn7-01", 99.5968, 178560.00, 17856.00, "2026-04-04T14:00:00+08:00"},
	{"gpuhub-network", "4090-01", 99.6864, 372.00, 2.00, "2026-05-01T00:00:00Z"},
	{"hostedai-gpu", "h100-01", 99.3952, 14820.48, 1482.05, "2026-05-01T00:00:00Z"},
	{"ucloud-sdu", "ucloud-gpu-01", 91.9246, 15320.00, 0, "2026-05-01T00:00:00+02:00"},
}

func TestTermPacks(t *testing.T) {
	for _, p := range packs {
		t.Run(p.pack, func(t *testing.T) {
			tm, err := terms.ReadFile(filepath.Join(packDir, p.pack+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, note := range []string{p.pack + ".md"} {
				if _, err := os.Stat(filepath.Join(packDir, note)); err != nil {
					t.Fatalf("the pack's worked figures: %v", err)
				}
			}
			b, err := NewBuilder(tm, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC)})
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
			eq(t, "claimable uptime", n.Uptime.ClaimablePercent, p.claimable)
			eq(t, "charge", n.Billing.Charge, p.charge)
			eq(t, "credit", n.Credit.Amount, p.credit)
			eq(t, "claim deadline", n.ClaimDeadline, p.deadline)
			var out bytes.Buffer
			if err := JSON(&out, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("..", "..", packDir, p.pack+".report.json"), out.Bytes())
			out.Reset()
			if err := Markdown(&out, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("..", "..", packDir, p.pack+".report.md"), out.Bytes())
		})
	}
}
