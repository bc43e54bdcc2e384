package wire

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func sample() *Batch {
	return &Batch{
		V: Version, ID: "b-1", Node: "node-1", Probe: "test", Seq: 1,
		CreatedAt: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		Observations: []Observation{{
			At: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), Kind: KindCheck,
			Checks: []Check{{Name: "gpu.count", Category: CategoryGPULost, Verdict: Pass, Value: "8"}},
		}},
	}
}

func TestSignVerify(t *testing.T) {
	secret := []byte("s3cret")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	body, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	ts, sig := Sign(secret, now, body)
	if _, err := Verify(secret, now.Add(time.Minute), ts, sig, body); err != nil {
		t.Fatalf("valid signature rejected: %v", err)
	}
	cases := []struct {
		name    string
		secret  []byte
		now     time.Time
		ts, sig string
		body    []byte
		want    error
	}{
		{"missing", secret, now, "", "", body, ErrNoSignature},
		{"other secret", []byte("other"), now, ts, sig, body, ErrBadSignature},
		{"changed body", secret, now, ts, sig, append([]byte(" "), body...), ErrBadSignature},
		{"changed timestamp", secret, now, strconv.FormatInt(now.Unix()+1, 10), sig, body, ErrBadSignature},
		{"old", secret, now.Add(TimestampWindow + time.Second), ts, sig, body, ErrStale},
		{"future", secret, now.Add(-TimestampWindow - time.Second), ts, sig, body, ErrStale},
		{"no prefix", secret, now, ts, strings.TrimPrefix(sig, "v1="), body, ErrBadSignature},
		{"not a number", secret, now, "12a", sig, body, ErrBadTimestamp},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Verify(c.secret, c.now, c.ts, c.sig, c.body); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestDecodeNamesField(t *testing.T) {
	cases := map[string]struct {
		mutate func(*Batch)
		field  string
	}{
		"version":  {func(b *Batch) { b.V = 9 }, "v"},
		"node":     {func(b *Batch) { b.Node = "../etc" }, "node"},
		"seq":      {func(b *Batch) { b.Seq = 0 }, "seq"},
		"prev":     {func(b *Batch) { b.Seq = 2; b.Prev = "xyz" }, "prev"},
		"kind":     {func(b *Batch) { b.Observations[0].Kind = "nap" }, "observations[0].kind"},
		"category": {func(b *Batch) { b.Observations[0].Checks[0].Category = "x" }, "observations[0].checks[0].category"},
		"verdict":  {func(b *Batch) { b.Observations[0].Checks[0].Verdict = "ok" }, "observations[0].checks[0].verdict"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := sample()
			c.mutate(b)
			err := b.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Fatalf("got %v, want an error naming %s", err, c.field)
			}
		})
	}
	if _, err := Decode([]byte(`{"v":"one"}`)); err == nil || !strings.Contains(err.Error(), "v") {
		t.Fatalf("type error not named: %v", err)
	}
}

func TestRoundTripAndChain(t *testing.T) {
	b := sample()
	body, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != b.ID || got.Observations[0].Checks[0].Value != "8" {
		t.Fatalf("round trip lost data: %+v", got)
	}
	next := sample()
	next.Seq, next.ID, next.Prev = 2, "b-2", BodyHash(body)
	if _, err := Encode(next); err != nil {
		t.Fatalf("chained batch rejected: %v", err)
	}
	if BodyHash(body) == BodyHash(append(body, ' ')) {
		t.Fatal("hash ignores a changed byte")
	}
}

// TestCanonicalSignature: every spelling Verify accepts for one MAC has one
// canonical form, the key replay protection remembers.
func TestCanonicalSignature(t *testing.T) {
	secret := []byte("s3cret")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	body := []byte(`{}`)
	ts, sig := Sign(secret, now, body)
	upper := "v1=" + strings.ToUpper(strings.TrimPrefix(sig, "v1="))
	mixed := []byte(sig)
	for i := 3; i < len(mixed); i += 2 {
		mixed[i] = strings.ToUpper(string(mixed[i]))[0]
	}
	for _, s := range []string{sig, upper, string(mixed)} {
		if _, err := Verify(secret, now, ts, s, body); err != nil {
			t.Fatalf("%s does not verify: %v", s, err)
		}
		if c, ok := CanonicalSignature(s); !ok || c != sig {
			t.Fatalf("CanonicalSignature(%s) = %s, %v; want %s", s, c, ok, sig)
		}
	}
	for _, bad := range []string{"", "v1=", "v1=zz", "V1=" + sig[3:], sig[3:]} {
		if c, ok := CanonicalSignature(bad); ok && bad != "v1=" {
			t.Fatalf("CanonicalSignature(%q) = %q, want refused", bad, c)
		}
	}
}

// TestDecodeRefusesBadText: bytes that are not UTF-8, or an escaped lone
// surrogate, anywhere in a batch — any string field, a key, a value of an
// unknown field — refuse the batch naming where, instead of being
// silently replaced with U+FFFD. Valid text, U+FFFD itself and escaped
// surrogate pairs pass.
func TestDecodeRefusesBadText(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	with := func(old, new string) []byte {
		t.Helper()
		b := bytes.Replace(good, []byte(old), []byte(new), 1)
		if bytes.Equal(b, good) {
			t.Fatalf("%q not in %s", old, good)
		}
		return b
	}
	bad := map[string]struct {
		body  []byte
		field string
		msg   string
	}{
		"check name":         {with(`"gpu.count"`, "\"gpu.\xffcount\""), "observations[0].checks[0].name", "not valid UTF-8"},
		"check value":        {with(`"value":"8"`, "\"value\":\"8\xc3\""), "observations[0].checks[0].value", "not valid UTF-8"},
		"probe version":      {with(`"probe":"test"`, "\"probe\":\"t\xed\xa0\x80\""), "probe", "not valid UTF-8"}, // UTF-8-encoded surrogate
		"batch id":           {with(`"id":"b-1"`, "\"id\":\"b-\xc0\xaf\""), "id", "not valid UTF-8"},              // overlong '/'
		"lone high escape":   {with(`"value":"8"`, `"value":"8\ud800"`), "observations[0].checks[0].value", "surrogate"},
		"lone low escape":    {with(`"value":"8"`, `"value":"\uDC00"`), "observations[0].checks[0].value", "surrogate"},
		"high then not low":  {with(`"value":"8"`, `"value":"\ud800\u0041"`), "observations[0].checks[0].value", "surrogate"},
		"unknown field":      {with(`"v":1,`, "\"v\":1,\"extra\":[\"ok\",\"\xfe\"],"), "extra[1]", "not valid UTF-8"},
		"key":                {with(`"v":1,`, "\"k\xff\":1,\"v\":1,"), "k\ufffd (a key)", "not valid UTF-8"},
		"second observation": {bytes.Replace(good, []byte(`]}]}`), []byte("]},{\"at\":\"2026-11-30T10:00:00Z\",\"kind\":\"check\",\"checks\":[{\"name\":\"a\",\"category\":\"host\",\"verdict\":\"pass\"},{\"name\":\"b\",\"category\":\"host\",\"verdict\":\"pass\",\"detail\":\"\x80\"}]}]}"), 1), "observations[1].checks[1].detail", "not valid UTF-8"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			b, err := Decode(c.body)
			var fe *FieldError
			if b != nil || !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("Decode(%q) = %v, %v; want an error naming %q (%s)", c.body, b, err, c.field, c.msg)
			}
		})
	}
	fine := map[string][]byte{
		"replacement char itself":  with(`"value":"8"`, "\"value\":\"8\ufffd\""),
		"escaped pair":             with(`"value":"8"`, `"value":"\ud83d\ude00 \u00e9 \\u0041"`),
		"escaped backslash then u": with(`"value":"8"`, `"value":"\\ud800"`),
		"chinese":                  with(`"value":"8"`, `"value":"八块"`),
	}
	for name, body := range fine {
		if _, err := Decode(body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCheckBounds: each text field of a check at its bound is taken and one
// byte past it is refused naming the field, its length and the bound; a
// batch of MaxBatchChecks distinct checks (name and GPU, over several
// observations) is taken and one more is refused, while the same check
// repeated any number of times is one. ClipCheck brings any text within
// the bounds on a character boundary.
func TestCheckBounds(t *testing.T) {
	fields := []struct {
		name string
		max  int
		set  func(*Check, string)
	}{
		{"name", MaxNameBytes, func(c *Check, s string) { c.Name = s }},
		{"value", MaxValueBytes, func(c *Check, s string) { c.Value = s }},
		{"criterion", MaxValueBytes, func(c *Check, s string) { c.Criterion = s }},
		{"unit", MaxUnitBytes, func(c *Check, s string) { c.Unit = s }},
		{"detail", MaxDetailBytes, func(c *Check, s string) { c.Detail = s }},
	}
	for _, f := range fields {
		b := sample()
		f.set(&b.Observations[0].Checks[0], strings.Repeat("x", f.max))
		if err := b.Validate(); err != nil {
			t.Errorf("%s of %d bytes: %v", f.name, f.max, err)
		}
		f.set(&b.Observations[0].Checks[0], strings.Repeat("x", f.max+1))
		want := fmt.Sprintf("observations[0].checks[0].%s: %d bytes is over the limit of %d", f.name, f.max+1, f.max)
		if err := b.Validate(); err == nil || err.Error() != want {
			t.Errorf("%s of %d bytes: %v, want %q", f.name, f.max+1, err, want)
		}
	}

	distinct := func(n int) *Batch {
		b := sample()
		b.Observations = nil
		for i := 0; i < n; i += 300 {
			o := Observation{At: b.CreatedAt, Kind: KindCheck}
			for j := i; j < min(n, i+300); j++ {
				c := Check{Name: "x", Category: CategoryGPUDegraded, Verdict: Fail}
				if j%2 == 0 {
					c.Name = fmt.Sprintf("x.%d", j)
				} else {
					g := j // the same name on another GPU is another check
					c.GPU = &g
				}
				o.Checks = append(o.Checks, c)
			}
			b.Observations = append(b.Observations, o)
		}
		return b
	}
	if err := distinct(MaxBatchChecks).Validate(); err != nil {
		t.Errorf("%d distinct checks: %v", MaxBatchChecks, err)
	}
	err := distinct(MaxBatchChecks + 1).Validate()
	if want := fmt.Sprintf("observations: %d distinct checks (name and GPU) is over the limit of %d a batch", MaxBatchChecks+1, MaxBatchChecks); err == nil || err.Error() != want || !TooManyChecks(err) {
		t.Errorf("%d distinct checks: %v, want %q", MaxBatchChecks+1, err, want)
	}
	same := sample()
	for range 10 {
		same.Observations = append(same.Observations, Observation{At: same.CreatedAt, Kind: KindCheck,
			Checks: slices.Repeat([]Check{{Name: "x", Category: CategoryGPUDegraded, Verdict: Fail}}, MaxChecks)})
	}
	if err := same.Validate(); err != nil {
		t.Errorf("one check repeated: %v", err)
	}

	c := Check{Name: "n", Value: strings.Repeat("é", MaxValueBytes), Criterion: "short", Unit: strings.Repeat("u", 100),
		Detail: strings.Repeat("日本", MaxDetailBytes)}
	ClipCheck(&c)
	b := sample()
	c.Category, c.Verdict = CategoryHost, Pass
	b.Observations[0].Checks[0] = c
	if err := b.Validate(); err != nil {
		t.Fatalf("clipped: %v", err)
	}
	for _, s := range []string{c.Value, c.Unit, c.Detail} {
		if !utf8.ValidString(s) || !strings.HasSuffix(s, "…") {
			t.Errorf("clipped %q", s)
		}
	}
	if c.Criterion != "short" || len(c.Value) > MaxValueBytes || len(c.Value) < MaxValueBytes-4 || len(c.Detail) > MaxDetailBytes {
		t.Errorf("clipped %+v", c)
	}
}
