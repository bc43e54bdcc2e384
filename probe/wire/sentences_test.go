package wire

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

var updateEnglishOnly = flag.Bool("update-english-only", false, "rewrite testdata/english-only.txt")

// Every sentence the probe lists is one its source uses, and the texts its
// source sends as English only are exactly testdata/english-only.txt (the
// keys it uses that are not sentences yet, and the texts it builds with
// fmt or by joining strings): a new English sentence in the probe fails
// here until it is a sentence with its Chinese, or is listed as left.
func TestProbeSentencesAreTheSourcesKeys(t *testing.T) {
	coded, uncoded := probeTexts(t)
	for _, s := range Sentences {
		if _, ok := coded[s]; !ok {
			t.Errorf("sentence %q is used nowhere in the probe", s)
		}
	}
	var left []string
	for _, k := range sorted(coded) {
		if !known[k] && words(k) {
			left = append(left, "key\t"+strconvQuote(k)+"\t"+fileOf(coded[k]))
		}
	}
	for _, k := range sorted(uncoded) {
		left = append(left, "fmt\t"+strconvQuote(k)+"\t"+fileOf(uncoded[k]))
	}
	got := strings.Join(left, "\n") + "\n"
	const file = "testdata/english-only.txt"
	if *updateEnglishOnly {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the probe's English-only texts changed (go test ./probe/wire -run %s -update-english-only, and review):\n%s", t.Name(), got)
	}
}

// fileOf is the probe's file of a place (../health/bus.go:12): health/bus.go.
func fileOf(at string) string {
	at = strings.TrimPrefix(at, "../")
	if i := strings.LastIndexByte(at, ':'); i >= 0 {
		at = at[:i]
	}
	return at
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Each coded text reads back as its English, through JSON, with numbers
// in the probe's own digits.
func TestSayRoundTrips(t *testing.T) {
	c := Check{Name: "gpu.count", Category: CategoryGPULost, Verdict: Fail}
	c.SetCriterion("%d (ordered)", 8)
	c.SetDetail("%d usable GPUs, the order says %d", 1, 8)
	c.SetValue("gen %d (gen %d now)", 4, 1)
	if c.Detail != "1 usable GPUs, the order says 8" || c.DetailText == nil || c.CriterionText == nil || c.ValueText == nil {
		t.Fatalf("%+v", c)
	}
	mem := Check{Name: "gpu.order.memory", Category: CategoryInventory, Verdict: Fail}
	mem.SetDetail("%.0f MiB (%.1f GiB) per GPU, the order says %g GB", 81559.0, 81559.0/1024, 141.0)
	nested := Check{Name: "gpu.order.model", Category: CategoryInventory, Verdict: Warn}
	nested.SetDetail("the order cannot be verified: %s", T("%s: not in the readings", "memory"))
	b := testBatch(c, mem, nested)
	body, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"detail_text":{"key":"%d usable GPUs, the order says %d","args":[1,8]}`) {
		t.Fatalf("wire form: %s", body)
	}
	got, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range got.Observations[0].Checks {
		if c.DetailText.String() != c.Detail {
			t.Errorf("check %d: %q reads back as %q", i, c.Detail, c.DetailText.String())
		}
	}
	if mem.Detail != "81559 MiB (79.6 GiB) per GPU, the order says 141 GB" {
		t.Errorf("%q", mem.Detail)
	}
	// An unknown key, or one fmt would print otherwise, goes as English.
	if en, coded := Say("a sentence nobody listed %d", 3); coded != nil || en != "a sentence nobody listed 3" {
		t.Errorf("unknown key coded: %q %v", en, coded)
	}
	if _, coded := Say("%.0f W of %.0f W", float32(0.1), 300.0); coded == nil {
		t.Log("float32 read back the same")
	}
}

func testBatch(cs ...Check) *Batch {
	at := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	return &Batch{V: Version, ID: "b1", Node: "gz-01", Probe: "test", Seq: 1, CreatedAt: at,
		Observations: []Observation{{At: at, Kind: KindCheck, Checks: cs}}}
}

// A batch's coded text is refused, naming the field, where its key is not
// one of the probe's sentences (at any depth), its arguments do not fit
// the key, or its English is not the field's; a batch with no coded texts
// (an older probe) is accepted.
func TestCodedTextsValidated(t *testing.T) {
	n := func(f float64) Arg { return Arg{N: &f} }
	s := func(v string) Arg { return Arg{S: &v} }
	base := func() Check {
		return Check{Name: "gpu.count", Category: CategoryGPULost, Verdict: Fail, Detail: "1 usable GPUs, the order says 8",
			DetailText: &Text{Key: "%d usable GPUs, the order says %d", Args: []Arg{n(1), n(8)}}}
	}
	for _, tc := range []struct {
		name, field, msg string
		edit             func(c *Check)
	}{
		{"valid", "", "", func(c *Check) {}},
		{"older probe", "", "", func(c *Check) { c.DetailText = nil }},
		{"unknown key", "detail_text", "is not one of the probe's sentences", func(c *Check) { c.DetailText.Key = "%d usable GPUs, the order wants %d" }},
		{"too few args", "detail_text", "args: 1, the key takes 2", func(c *Check) { c.DetailText.Args = c.DetailText.Args[:1] }},
		{"string for %d", "detail_text", "args[1]: %d takes a whole number", func(c *Check) { c.DetailText.Args[1] = s("8") }},
		{"fraction for %d", "detail_text", "args[0]: %d takes a whole number", func(c *Check) { c.DetailText.Args[0] = n(1.5) }},
		{"says otherwise", "detail_text", "but the detail is", func(c *Check) { c.DetailText.Args[1] = n(1) }},
		{"criterion mismatch", "criterion_text", "but the criterion is", func(c *Check) {
			c.Criterion, c.CriterionText = "8 (ordered)", &Text{Key: "%d (ordered)", Args: []Arg{n(4)}}
		}},
		{"unknown nested key", "value_text", "is not one of the probe's sentences", func(c *Check) {
			c.Value, c.ValueText = "x", &Text{Key: "the order cannot be verified: %s", Args: []Arg{{T: &Text{Key: "made up"}}}}
		}},
		{"too many args", "detail_text", "over the limit", func(c *Check) {
			c.DetailText.Args = slices.Repeat([]Arg{n(1)}, 20)
		}},
	} {
		c := base()
		tc.edit(&c)
		b := testBatch(c)
		body, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Decode(body)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "observations[0].checks[0]."+tc.field || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s: got %v, want %s: …%s…", tc.name, err, tc.field, tc.msg)
		}
	}
	// An argument that is neither a string, a number nor a sentence.
	body := `{"v":1,"id":"b1","node":"gz-01","probe":"t","seq":1,"prev":"","created_at":"2026-12-07T08:00:00Z","observations":[{"at":"2026-12-07T08:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"gpu_lost","verdict":"fail","detail":"1 usable GPUs, the order says 8","detail_text":{"key":"%d usable GPUs, the order says %d","args":[true,8]}}]}]}`
	if _, err := Decode([]byte(body)); err == nil || !strings.Contains(err.Error(), "a string, a number or a sentence") {
		t.Errorf("a boolean argument: %v", err)
	}
}

// The spool's clip codes the probe's literal sentences, and sends alone an
// English that was cut or changed after it was coded.
func TestClipCodesAndDropsStale(t *testing.T) {
	c := Check{Name: "gpu.count", Criterion: "at least one GPU", Value: "8"}
	c.SetDetail("%d usable GPUs, the order says %d", 1, 8)
	c.Detail += " and more"
	ClipCheck(&c)
	if c.CriterionText == nil || c.CriterionText.Key != "at least one GPU" {
		t.Errorf("literal sentence not coded: %+v", c.CriterionText)
	}
	if c.ValueText != nil || c.DetailText != nil {
		t.Errorf("a number or a changed English coded: %+v %+v", c.ValueText, c.DetailText)
	}
	long := Check{Name: "gpu.model"}
	long.SetDetail("spec db entry %s: %s", "h200", strings.Repeat("x", MaxDetailBytes))
	ClipCheck(&long)
	if long.DetailText != nil || !strings.HasSuffix(long.Detail, "…") {
		t.Errorf("clipped detail kept its coded form")
	}
}
