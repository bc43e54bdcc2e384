package wire

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The quick look says "nothing to look at" only where the token-by-token
// scan finds nothing either: on bodies with every kind of escape, HTML
// escapes, surrogate pairs, lone surrogates in both cases, escaped
// backslashes before "ud800", and bytes that are not UTF-8.
func TestQuickTextLookAgreesWithTheScan(t *testing.T) {
	parts := []string{`a`, `é`, `\u0026`, `\u003c`, `\u00e9`, `\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\uDBFF`, `\udc00x`,
		`\\ud800`, `\\`, `\"`, `\n`, "\xff", `\u0041`, `\ud7ff`, `\ue000`}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := rng.IntN(5); k >= 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		body := []byte(`{"observations":[{"checks":[{"detail":"` + b.String() + `"}]}]}`)
		_, _, quick := badText(body)
		f, why, scanned := scanText(body)
		if quick != scanned {
			t.Fatalf("%s: quick look %v, scan %v (%s: %s)", body, quick, scanned, f, why)
		}
	}
	if _, _, ok := badText([]byte(`{"detail":"rx_bytes=1\u0026tx_bytes=2"}`)); !ok {
		t.Fatal("an HTML escape refused")
	}
	if f, _, ok := badText([]byte(`{"detail":"\uD800"}`)); ok || f != "detail" {
		t.Fatalf("a lone upper-case surrogate escape passed (field %q)", f)
	}
}
