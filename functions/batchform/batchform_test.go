package batchform

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/msg"
)

func num(v float64) *float64 { return &v }
func gpu(g int) *int         { return &g }
func str(s string) *string   { return &s }

// sample is a batch with every field the form carries, optional ones both
// set and unset, times outside UTC and the edges of numbers.
func sample() *wire.Batch {
	cst := time.FixedZone("CST", 8*3600)
	t0 := time.Date(2026, 3, 14, 3, 5, 0, 123456789, cst)
	return &wire.Batch{V: wire.Version, ID: "gz-00001-b42", Node: "gz-00001", Probe: "1.4.0", Seq: 42, Prev: strings.Repeat("ab", 32),
		Chain: "c-1", CreatedAt: t0, ClockSkewMS: -1500, Dropped: &wire.Drop{Batches: 3, FromSeq: 38, ToSeq: 40, Reason: "spool full"},
		Observations: []wire.Observation{
			{At: t0.Add(-30 * time.Second), Kind: wire.KindHeartbeat},
			{At: t0, Kind: wire.KindCheck, Checks: []wire.Check{
				{Name: "gpu.burn.fp32", Category: wire.CategoryPerformance, Verdict: wire.Pass, Value: "51.20 TFLOP/s", Criterion: "≥ 41 TFLOP/s",
					Number: num(51.2), Unit: "TFLOP/s", GPU: gpu(0), UUID: "GPU-0000"},
				{Name: "gpu.burn.fp32", Category: wire.CategoryPerformance, Verdict: wire.Fail, Number: num(-math.MaxFloat64), GPU: gpu(7)},
				{Name: "usage.net.eth0", Category: wire.CategoryHost, Verdict: wire.Pass, Detail: "rx_bytes=1&tx_bytes=2", Number: num(0)},
				{Name: "gpu.xid.79", Category: wire.CategoryGPUDegraded, Verdict: wire.Warn, Value: "XID 79", Number: num(math.Copysign(0, -1)), GPU: gpu(-1)},
				{Name: "gpu.count", Category: wire.CategoryInventory, Verdict: wire.Pass, Criterion: "8 (ordered)",
					CriterionText: &wire.Text{Key: "%d (ordered)", Args: []wire.Arg{{N: num(8)}}},
					ValueText:     &wire.Text{Key: "made up", Args: []wire.Arg{}},
					DetailText: &wire.Text{Key: "the order cannot be verified: %s", Args: []wire.Arg{{T: &wire.Text{Key: "k", Args: []wire.Arg{{S: str("gz-01")}}}},
						{S: str("")}, {}}}},
			}},
		}}
}

func utc(b *wire.Batch) *wire.Batch {
	c := *b
	c.CreatedAt = c.CreatedAt.UTC()
	c.Observations = append([]wire.Observation(nil), b.Observations...)
	for i := range c.Observations {
		c.Observations[i].At = c.Observations[i].At.UTC()
	}
	return &c
}

func TestFormIsTheBatch(t *testing.T) {
	for name, b := range map[string]*wire.Batch{
		"every field": sample(),
		"bare":        {V: wire.Version, ID: "x", Node: "n", Seq: 1, CreatedAt: time.Unix(0, 0).UTC()},
		"zero time":   {V: wire.Version, ID: "x", Node: "n", Seq: 1},
		"empty lists": {V: wire.Version, ID: "x", Node: "n", Seq: 1, Observations: []wire.Observation{{Kind: wire.KindCheck, Checks: []wire.Check{}}}},
	} {
		got, err := Decode(Append(nil, b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := utc(b); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded\n%+v\nwant\n%+v", name, got, want)
		}
	}
}

// TestDecoderIsDecode reads batches one after another with one Decoder,
// as the books read a node's month: each is the batch Decode reads alone,
// whether its strings are the batch before's, at other places of the
// table, or none of them; a damaged form between them changes nothing.
func TestDecoderIsDecode(t *testing.T) {
	a, b, c := sample(), sample(), sample()
	b.ID, b.Seq, b.Prev = "gz-00001-b43", 43, strings.Repeat("cd", 32)
	b.Observations[1].Checks[0].Value = "50.10 TFLOP/s"
	c.Dropped = nil // every later string one place earlier in the table
	c.Observations[1].Checks[2].Detail = "rx_bytes=3&tx_bytes=4"
	var d Decoder
	for i, bt := range []*wire.Batch{a, b, a, c, {V: wire.Version, ID: "x", Node: "n", Seq: 1}, b} {
		form := Append(nil, bt)
		if i == 3 {
			if _, err := d.Decode(form[:len(form)-3]); err == nil {
				t.Fatal("a cut form decoded")
			}
		}
		got, err := d.Decode(form)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		alone, err := Decode(form)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, alone) || !reflect.DeepEqual(got, utc(bt)) {
			t.Errorf("batch %d: decoded\n%+v\nwant\n%+v", i, got, utc(bt))
		}
	}
}

// TestFormIsTheBody holds the form to the batch its body decodes to: what
// the books read from either is the same.
func TestFormIsTheBody(t *testing.T) {
	b := sample()
	cs := b.Observations[1].Checks
	cs[len(cs)-1].ValueText, cs[len(cs)-1].DetailText = nil, nil // keys no probe sends
	// Marshalled, not Encoded: the sample holds GPU index -1, which a
	// batch coming in may no longer carry (wire.MaxGPUIndex) but a body
	// stored before may, and its form must say what it says.
	body, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	fromBody, err := wire.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	fromForm, err := Decode(Append(nil, fromBody))
	if err != nil {
		t.Fatal(err)
	}
	if want := utc(fromBody); !reflect.DeepEqual(fromForm, want) {
		t.Errorf("form\n%+v\nbody\n%+v", fromForm, want)
	}
}

// TestDamagedFormIsRefused cuts, extends and flips the form: every damage
// is an error naming what could not be read (or a batch that is still a
// whole form), never a panic or a batch read past its end.
func TestDamagedFormIsRefused(t *testing.T) {
	p := Append(nil, sample())
	for n := 0; n < len(p); n++ {
		if _, err := Decode(p[:n]); err == nil {
			t.Errorf("cut to %d of %d bytes: decoded", n, len(p))
		} else if !strings.HasPrefix(err.Error(), "batch form: ") {
			t.Errorf("cut to %d: error %q does not say what it read", n, err)
		}
	}
	if _, err := Decode(append(bytes.Clone(p), 0)); err == nil || !strings.Contains(err.Error(), "1 bytes after its end") {
		t.Errorf("a byte after the end: %v", err)
	}
	v2 := bytes.Clone(p)
	v2[len(magic)-1] = 2
	if _, err := Decode(v2); err == nil || !strings.Contains(err.Error(), "version 2 unknown") {
		t.Errorf("version 2: %v", err)
	}
	if _, err := Decode([]byte(`{"v":1}`)); err == nil || Is([]byte(`{"v":1}`)) {
		t.Errorf("a JSON body read as a form: %v", err)
	}
	for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		b := sample()
		b.Observations[1].Checks[0].Number = num(v)
		if _, err := Decode(Append(nil, b)); err == nil || !strings.Contains(err.Error(), "check number") {
			t.Errorf("number %v, which no body can carry: %v", v, err)
		}
	}
	// Sentences nested as deep as a batch may nest them read back; one
	// deeper is refused before it is read.
	for depth := msg.MaxCodedDepth; depth <= msg.MaxCodedDepth+1; depth++ {
		text := &wire.Text{Key: "innermost"}
		for range depth - 1 {
			text = &wire.Text{Key: "%s", Args: []wire.Arg{{T: text}}}
		}
		deep := sample()
		deep.Observations[1].Checks[4].DetailText = text
		_, err := Decode(Append(nil, deep))
		if refused := err != nil && strings.Contains(err.Error(), "nested more than"); refused != (depth > msg.MaxCodedDepth) {
			t.Errorf("sentences nested %d deep: %v", depth, err)
		}
	}
	for i := len(magic); i < len(p); i++ {
		q := bytes.Clone(p)
		q[i] ^= 0xff
		_, _ = Decode(q) // must not panic
	}
}

// TestFormBoundsItsCounts: a count past the protocol's limits or past what
// is left is refused before anything is made for it.
func TestFormBoundsItsCounts(t *testing.T) {
	head := func(tableLen uint64) []byte {
		return binary.AppendUvarint([]byte(magic), tableLen)
	}
	if _, err := Decode(head(1 << 40)); err == nil || !strings.Contains(err.Error(), "string table") {
		t.Errorf("a table of 2^40 strings: %v", err)
	}
	p := Append(nil, &wire.Batch{V: wire.Version, ID: "x", Node: "n", Seq: 1})
	// The last byte is the observation count (0: none): claim the limit + 1.
	q := binary.AppendUvarint(bytes.Clone(p[:len(p)-1]), wire.MaxObservations+2)
	if _, err := Decode(q); err == nil || !strings.Contains(err.Error(), "observations") {
		t.Errorf("%d observations: %v", wire.MaxObservations+1, err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, sample()))
	f.Add(Append(nil, &wire.Batch{V: wire.Version, ID: "x", Node: "n", Seq: 1}))
	f.Fuzz(func(t *testing.T, p []byte) {
		b, err := Decode(p)
		if err != nil {
			return
		}
		// What it read, written again, reads the same.
		again, err := Decode(Append(nil, b))
		if err != nil || !bytes.Equal(Append(nil, again), Append(nil, b)) {
			t.Fatalf("read %+v, written and read again %+v (%v)", b, again, err)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	p := Append(nil, sample())
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := Decode(p); err != nil {
			b.Fatal(err)
		}
	}
}
