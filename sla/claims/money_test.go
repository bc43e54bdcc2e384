package claims

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseCents(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Cents
		bad  string
	}{
		{in: "1200", want: 120000}, {in: "1200.5", want: 120050}, {in: "1200.50", want: 120050}, {in: "0.05", want: 5},
		{in: ".5", want: 50}, {in: "-2361.60", want: -236160}, {in: "0", want: 0},
		{in: "1,200.00", bad: "not a plain decimal"}, {in: "$5", bad: "not a plain decimal"}, {in: "1e3", bad: "not a plain decimal"},
		{in: "12.345", bad: "more than two decimals"}, {in: "", bad: "not a plain decimal"}, {in: "5.", bad: "not a plain decimal"},
		{in: "--5", bad: "not a plain decimal"}, {in: " 5", bad: "not a plain decimal"}, {in: "99999999999999", bad: "more than"},
	} {
		got, err := ParseCents(tc.in)
		switch {
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("ParseCents(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.bad)
		case tc.bad == "" && (err != nil || got != tc.want):
			t.Errorf("ParseCents(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	// Exact sums: what float64 gets wrong.
	a, _ := ParseCents("0.10")
	b, _ := ParseCents("0.20")
	fa, fb := 0.1, 0.2
	if (a+b).String() != "0.30" || fa+fb == 0.3 {
		t.Fatal("cents do not add exactly")
	}
}

func TestRoundCents(t *testing.T) {
	for in, want := range map[string]Cents{"-12.345": -1235, "-12.3449999": -1234, "0.005": 1, "0.0049": 0, "7": 700, "-0.1": -10, "2361.6000000000": 236160} {
		if got, err := RoundCents(in); err != nil || got != want {
			t.Errorf("RoundCents(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := RoundCents("1,5"); err == nil {
		t.Error("RoundCents accepted a comma")
	}
}

func TestCentsJSON(t *testing.T) {
	var v struct{ A, B, C Cents }
	if err := json.Unmarshal([]byte(`{"A": 1180.8, "B": "2361.60", "C": -0.05}`), &v); err != nil || v.A != 118080 || v.B != 236160 || v.C != -5 {
		t.Fatalf("unmarshal: %+v %v", v, err)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"A":1180.80,"B":2361.60,"C":-0.05}` {
		t.Fatalf("marshal: %s", out)
	}
	if err := json.Unmarshal([]byte(`{"A": 1.005}`), &v); err == nil {
		t.Fatal("a third decimal was accepted")
	}
}

func TestShare(t *testing.T) {
	for _, tc := range []struct {
		part, whole Cents
		want        float64
	}{{118080, 236160, 50}, {1, 3, 33.3}, {2, 3, 66.7}, {1, 0, 0}, {5, 1000, 0.5}, {1, 2000, 0.1}, {1, 2001, 0}} {
		if got := Share(tc.part, tc.whole); got != tc.want {
			t.Errorf("Share(%d, %d) = %v, want %v", tc.part, tc.whole, got, tc.want)
		}
	}
}
