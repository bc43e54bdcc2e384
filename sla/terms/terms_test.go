package terms

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/incident"
)

func TestExamples(t *testing.T) {
	cn, err := ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	us, err := ReadFile("../../testdata/terms/us-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := cn[0]
	if c.Contract != "cn-example" || c.Uptime.Target != 99.9 || len(c.Uptime.Tiers) != 3 || c.Uptime.CreditCap != 50 {
		t.Fatalf("cn: %+v", c.Uptime)
	}
	if h, k := c.Calendar.Day(calendar.Date{Year: 2026, Month: 2, Day: 14}); k != calendar.ExtraWorkd || !h.Open {
		t.Errorf("2026-02-14 should be an adjusted working Saturday, got %v", k)
	}
	if _, k := c.Calendar.Day(calendar.Date{Year: 2026, Month: 10, Day: 7}); k != calendar.Holiday {
		t.Errorf("2026-10-07 should be a holiday, got %v", k)
	}
	if r := c.Support.Response["P1"]; r.BusinessHours != 15*time.Minute || r.OffHours != 30*time.Minute {
		t.Errorf("P1 %+v", r)
	}
	if strings.Join(c.Support.Priorities, ",") != "P1,P2,P3" {
		t.Errorf("priorities %v", c.Support.Priorities)
	}
	u := us[0]
	if u.Claim.BillingCycles != 2 || !u.Uptime.Unavailable[incident.GPUDegraded] || u.Billing.StartsAt != FromDelivery {
		t.Fatalf("us: %+v", u)
	}
	loc := u.Calendar.Loc
	_, end := calendar.MonthBounds(2026, time.March, loc)
	if got := u.Claim.Deadline(end, loc); !got.Equal(time.Date(2026, 6, 1, 0, 0, 0, 0, loc)) {
		t.Errorf("us claim deadline %v", got)
	}
	if got := c.Claim.Deadline(time.Date(2026, 4, 1, 0, 0, 0, 0, c.Calendar.Loc), c.Calendar.Loc); !got.Equal(time.Date(2026, 5, 1, 0, 0, 0, 0, c.Calendar.Loc)) {
		t.Errorf("cn claim deadline %v", got)
	}
}

const minimal = `contract: x
provider: P
currency: USD
timezone: UTC
business_hours:
  monday: "09:00-17:00"
uptime:
  target: 99.5
  tiers:
    - {min: 99.0, max: 99.5, credit: 10}
    - {min: 95.0, max: 99.0, credit: 30}
claim:
  within_days: 30
billing:
  price_per_gpu_hour: 2
`

func TestMinimalDefaults(t *testing.T) {
	ts, err := Parse("m.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	x := ts[0]
	if x.Detection.FailureThreshold != DefaultFailureThreshold || x.Billing.StartsAt != FromOrder || !x.Uptime.Unavailable[incident.Unreachable] {
		t.Fatalf("defaults: %+v", x)
	}
}

func TestMultipleDocuments(t *testing.T) {
	two := minimal + "---\n" + strings.Replace(minimal, "contract: x", "contract: y", 1)
	ts, err := Parse("two.yaml", []byte(two))
	if err != nil || len(ts) != 2 || ts[1].Contract != "y" {
		t.Fatalf("%v %d", err, len(ts))
	}
	_, err = Parse("dup.yaml", []byte(minimal+"---\n"+minimal))
	if err == nil || !strings.Contains(err.Error(), "already defined") {
		t.Fatalf("duplicate contract: %v", err)
	}
}

// errCase edits a valid contract (old → new) and names the error it must
// give: line, field and a part of the message.
type errCase struct {
	name, old, new string
	line           int
	field, msg     string
}

func TestErrorsNameFileLineField(t *testing.T) {
	cases := []errCase{
		{"unknown field", "currency: USD", "currency: USD\ncolour: red", 4, "colour", "unknown field"},
		{"unknown nested field", "  target: 99.5", "  target: 99.5\n  targett: 99", 9, "uptime.targett", "unknown field"},
		{"bad zone", "timezone: UTC", "timezone: Mars/Olympus", 4, "timezone", "not an IANA time zone"},
		{"hours backwards", `"09:00-17:00"`, `"17:00-09:00"`, 6, "business_hours.monday", "end before they start"},
		{"negative duration", "uptime:", "maintenance:\n  notice: -5m\nuptime:", 8, "maintenance.notice", "negative duration"},
		{"overlapping tiers", "{min: 95.0, max: 99.0", "{min: 95.0, max: 99.2", 11, "uptime.tiers[1].max", "overlaps"},
		{"unordered tiers", "    - {min: 99.0, max: 99.5, credit: 10}\n    - {min: 95.0, max: 99.0, credit: 30}", "    - {min: 95.0, max: 99.0, credit: 30}\n    - {min: 99.0, max: 99.5, credit: 10}", 11, "uptime.tiers[1].max", "highest uptime down"},
		{"tier above target", "max: 99.5, credit: 10", "max: 99.7, credit: 10", 10, "uptime.tiers[0].max", "above the uptime target"},
		{"missing field", "currency: USD\n", "", 1, "currency", "missing"},
		{"not a currency", "currency: USD", "currency: XYZ", 3, "currency", "not an ISO 4217 code"},
		{"whole yen", "currency: USD", "currency: JPY", 3, "currency", "JPY's minor unit is the whole of a unit, not a hundredth"},
		{"thousandths", "currency: USD", "currency: KWD", 3, "currency", "KWD's minor unit is 1/1000 of a unit, not a hundredth"},
		{"bad percent", "target: 99.5", "target: 199.5", 8, "uptime.target", "percentage"},
		{"bad clock", "uptime:", "support:\n  response:\n    P1: {business_hours: 15m, clock: lunar}\nuptime:", 9, "support.response.P1.clock", "lunar"},
		{"bad kind", "  target: 99.5", "  target: 99.5\n  unavailable: [unreachable, sad]", 9, "uptime.unavailable[1]", "unknown incident kind"},
		{"bad date", "uptime:", "holidays:\n  - 2026-02-30\nuptime:", 8, "holidays[0]", "not a date"},
		{"duplicate key", "currency: USD", "currency: USD\ncurrency: CNY", 4, "currency", "given twice"},
		{"bad report lang", "currency: USD", "currency: USD\nreport: {lang: fr}", 4, "report.lang", "not a language"},
		{"unknown report field", "currency: USD", "currency: USD\nreport: {language: zh}", 4, "report.language", "unknown field"},
		{"unknown clause", "currency: USD", "currency: USD\nclauses: {uptime: '4.1', coffee: '9'}", 4, "clauses.coffee", "unknown field"},
		{"empty clause id", "currency: USD", "currency: USD\nclauses:\n  uptime: ''", 5, "clauses.uptime", "must not be empty"},
		{"empty renter", "currency: USD", "currency: USD\nrenter: ' '", 4, "renter", "must not be empty"},
		{"zero minimum credit", "  target: 99.5", "  target: 99.5\n  minimum_credit: 0", 9, "uptime.minimum_credit", "not an amount above 0"},
		{"minimum credit not a number", "  target: 99.5", "  target: 99.5\n  minimum_credit: a dollar", 9, "uptime.minimum_credit", "not a number"},
	}
	checkErrors(t, minimal, cases)
}

func checkErrors(t *testing.T, base string, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(base, c.old, c.new, 1)
			if src == base {
				t.Fatalf("test case did not change the input")
			}
			_, err := Parse("bad.yaml", []byte(src))
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a terms Error", err)
			}
			if te.File != "bad.yaml" || te.Line != c.line || te.Field != c.field || !strings.Contains(te.Msg, c.msg) {
				t.Fatalf("got %q (line %d field %q), want line %d field %q containing %q", err, te.Line, te.Field, c.line, c.field, c.msg)
			}
		})
	}
}

func TestStepPenalty(t *testing.T) {
	p := StepPenalty{Percent: 10, Per: 12 * time.Hour, Max: 50}
	for _, c := range []struct {
		late time.Duration
		want float64
	}{{0, 0}, {time.Minute, 10}, {12 * time.Hour, 10}, {12*time.Hour + time.Second, 20}, {1000 * time.Hour, 50}} {
		if got := p.For(c.late); got != c.want {
			t.Errorf("For(%v) = %v, want %v", c.late, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte("contract: [\n"))
	f.Add([]byte("a: &x {b: *x}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		for _, x := range ts {
			if x.Calendar == nil || x.Calendar.Loc == nil || x.Contract == "" {
				t.Fatalf("accepted terms without calendar or id: %+v", x)
			}
			for i, tier := range x.Uptime.Tiers {
				if tier.Max <= tier.Min || (i > 0 && tier.Max > x.Uptime.Tiers[i-1].Min) {
					t.Fatalf("accepted bad tiers %+v", x.Uptime.Tiers)
				}
			}
		}
	})
}

func TestPaperwork(t *testing.T) {
	src := minimal + "renter: 星河智能 Galaxy AI\ncontract_number: EC-2026-0042\nreport: {lang: zh}\nclauses:\n  uptime: '§4.1'\n  support.response: '§5.2'\n"
	ts, err := Parse("dir/p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := ts[0].Paperwork
	if w.Renter != "星河智能 Galaxy AI" || w.ContractNumber != "EC-2026-0042" || w.Lang != "zh" {
		t.Fatalf("paperwork %+v", w)
	}
	lines := strings.Split(src, "\n")
	lineOf := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		t.Fatalf("no line %q", prefix)
		return 0
	}
	for key, want := range map[string]string{
		"uptime":               "§4.1 (p.yaml:" + strconv.Itoa(lineOf("uptime:")) + ")",
		"uptime.tiers":         "p.yaml:" + strconv.Itoa(lineOf("  tiers:")),
		"support.response":     "§5.2", // no support section: the id alone
		"claim":                "p.yaml:" + strconv.Itoa(lineOf("claim:")),
		"uptime.credit_cap":    "§4.1 (p.yaml:" + strconv.Itoa(lineOf("uptime:")) + ")", // not given: its section
		"hardware_replacement": "p.yaml",                                                // section absent, no id
	} {
		if got := ts[0].Clause(key).String(); got != want {
			t.Errorf("clause %s = %q, want %q", key, got, want)
		}
	}
	ts, err = Parse("m.yaml", []byte(minimal))
	if err != nil || ts[0].Paperwork.Lang != "en" {
		t.Fatalf("default lang: %v %+v", err, ts[0].Paperwork)
	}
}

func TestDetectionDefinitive(t *testing.T) {
	base := minimal
	ts, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if !ts[0].Detection.IsDefinitive("gpu.burn.fp32.errors") || ts[0].Detection.IsDefinitive("gpu.bw.h2d") {
		t.Fatalf("default definitive list: %v", ts[0].Detection.Definitive)
	}
	ts, err = Parse("t.yaml", []byte(base+"detection:\n  definitive: [gpu.bw.*]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !ts[0].Detection.IsDefinitive("gpu.bw.h2d") || ts[0].Detection.IsDefinitive("gpu.memtest") {
		t.Fatalf("replaced list: %v", ts[0].Detection.Definitive)
	}
	ts, err = Parse("t.yaml", []byte(base+"detection:\n  definitive: []\n"))
	if err != nil || ts[0].Detection.IsDefinitive("gpu.memtest") {
		t.Fatalf("empty list: %v %v", err, ts[0].Detection.Definitive)
	}
	_, err = Parse("t.yaml", []byte(base+"detection:\n  definitive:\n    - gpu.memtest\n    - \"gpu mem\"\n"))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:19: detection.definitive[1]") {
		t.Fatalf("want an error naming t.yaml:19: detection.definitive[1], got %v", err)
	}
	_, err = Parse("t.yaml", []byte(base+"detection:\n  definitive: gpu.memtest\n"))
	if err == nil || !strings.Contains(err.Error(), "detection.definitive: must be a list") {
		t.Fatalf("want a list error, got %v", err)
	}
}

// delivery.counts_until: first_heartbeat by default (the meaning before the
// field existed), acceptance_passed when given; anything else is an error
// naming the file, the line and the field.
func TestDeliveryCountsUntil(t *testing.T) {
	ts, err := Parse("m.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if got := ts[0].Delivery.CountsUntil; got != UntilFirstHeartbeat {
		t.Errorf("no delivery section: counts_until %q, want %q", got, UntilFirstHeartbeat)
	}
	for src, want := range map[string]DeliveryEnd{
		"delivery: {within: 48h}":                                  UntilFirstHeartbeat,
		"delivery: {within: 48h, counts_until: first_heartbeat}":   UntilFirstHeartbeat,
		"delivery: {within: 48h, counts_until: acceptance_passed}": UntilAcceptancePassed,
	} {
		ts, err := Parse("m.yaml", []byte(strings.Replace(minimal, "claim:", src+"\nclaim:", 1)))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := ts[0].Delivery.CountsUntil; got != want {
			t.Errorf("%s: counts_until %q, want %q", src, got, want)
		}
	}
	checkErrors(t, minimal, []errCase{
		{"bad counts_until", "claim:", "delivery:\n  within: 48h\n  counts_until: first_boot\nclaim:", 14, "delivery.counts_until", `"first_boot" is neither "first_heartbeat" nor "acceptance_passed"`},
		{"counts_until not a string", "claim:", "delivery:\n  within: 48h\n  counts_until: [acceptance_passed]\nclaim:", 14, "delivery.counts_until", ""},
		{"counts_until misspelt", "claim:", "delivery:\n  within: 48h\n  count_until: acceptance_passed\nclaim:", 14, "delivery.count_until", "unknown field"},
	})
}

// ReadPath reads a file, or a folder's *.yaml and *.yml files in name
// order and nothing else there.
func TestReadPath(t *testing.T) {
	if ts, err := ReadPath("../../testdata/terms/cn-example.yaml"); err != nil || len(ts) != 1 || ts[0].Contract != "cn-example" {
		t.Fatalf("file: %v, %v", ts, err)
	}
	dir := t.TempDir()
	for _, name := range []string{"us-example.yaml", "cn-example.yaml"} {
		b, err := os.ReadFile("../../testdata/terms/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "us-example.yaml" {
			name = "b.yml"
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "old.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadPath(dir)
	if err != nil || len(ts) != 2 || ts[0].Contract != "us-example" || ts[1].Contract != "cn-example" {
		t.Fatalf("folder: %v, %v", ts, err)
	}
	if _, err := ReadPath(filepath.Join(dir, "absent")); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Fatalf("absent path: %v", err)
	}
}
