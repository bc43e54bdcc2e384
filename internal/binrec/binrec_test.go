package binrec

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// What is written reads back as it was; every cut of it is an error naming
// what was being read, and a byte after the end is one too.
func TestRecordReadsBack(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 2, 3, 4, 5, time.FixedZone("CST", 8*3600))
	var p []byte
	p = AppendUint(p, math.MaxUint64)
	p = AppendInt(p, math.MinInt64)
	p = AppendString(p, "gz-01")
	p = AppendRaw(p, []byte("raw"))
	p = AppendBytes(p, nil)
	p = AppendBytes(p, []byte{})
	p = AppendBytes(p, []byte{0, 255})
	p = AppendFloat(p, -0.5)
	p = AppendTime(p, time.Time{})
	p = AppendTime(p, t0)
	read := func(p []byte) (*Reader, []any) {
		r := NewReader("test record", p)
		return r, []any{r.Uint("u"), r.Int("i"), r.String("s"), string(r.View("raw")), r.Bytes("nil"), r.Bytes("empty"), r.Bytes("bytes"),
			r.Float("f"), r.Time("zero"), r.Time("t")}
	}
	r, got := read(p)
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	want := []any{uint64(math.MaxUint64), int64(math.MinInt64), "gz-01", "raw", []byte(nil), []byte{}, []byte{0, 255}, -0.5, time.Time{}, t0.UTC()}
	for i := range want {
		if g, w := got[i], want[i]; !equal(g, w) {
			t.Errorf("value %d: read %#v, wrote %#v", i, g, w)
		}
	}
	for n := range len(p) {
		r, _ := read(p[:n])
		if err := r.End(); err == nil || !strings.HasPrefix(err.Error(), "test record: ") {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(p), err)
		}
	}
	r, _ = read(append(p, 7))
	if err := r.End(); err == nil || !strings.Contains(err.Error(), "1 bytes after its end") {
		t.Fatalf("a byte after the end: %v", err)
	}
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y := b.([]byte)
		return (x == nil) == (y == nil) && string(x) == string(y)
	case time.Time:
		return x.Equal(b.(time.Time)) && x.Location() == b.(time.Time).Location()
	}
	return a == b
}

// A length or count past what is left is refused before anything is made
// for it, and the first error sticks.
func TestReaderRefusesWhatIsNotThere(t *testing.T) {
	r := NewReader("rec", AppendUint(nil, 1<<40))
	if s := r.View("name"); s != nil || !errors.Is(r.Err(), r.Err()) || !strings.Contains(r.Err().Error(), "rec: name:") {
		t.Fatalf("a 2^40-byte string: %q, %v", s, r.Err())
	}
	first := r.Err()
	r.Fail("later", errors.New("x"))
	if r.Err() != first || r.Uint("u") != 0 {
		t.Fatalf("the first error did not stick: %v", r.Err())
	}
	r = NewReader("rec", AppendUint(nil, 5))
	if n := r.Count("items", 100); n != 0 || r.Err() == nil {
		t.Fatalf("5 items in 0 bytes: %d, %v", n, r.Err())
	}
	r = NewReader("rec", append(AppendUint(nil, 1), 0x80))
	if r.Time("t"); r.Err() == nil || !strings.Contains(r.Err().Error(), "cut short") {
		t.Fatalf("a time cut short: %v", r.Err())
	}
	r = NewReader("rec", AppendUint(AppendInt(AppendUint(nil, 1), 0), uint64(time.Second)))
	if r.Time("t"); r.Err() == nil || !strings.Contains(r.Err().Error(), "nanoseconds") {
		t.Fatalf("a second of nanoseconds: %v", r.Err())
	}
}
