package actionlink_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app/apptest"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)

var secret = []byte("0123456789abcdef0123456789abcdef")

func signer(t *testing.T, key []byte, clock *apptest.Clock) *actionlink.Signer {
	t.Helper()
	s, err := actionlink.NewSigner(key, "https://gpusla.example.com/base/", time.Hour, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func query(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/base"+actionlink.PathReplacement {
		t.Fatalf("path %q", u.Path)
	}
	return u.Query()
}

// TestSignVerify: a link verifies for its own action and what it names;
// changing any parameter, the action, or the secret (a rotation) makes it
// invalid; past its expiry it is expired.
func TestSignVerify(t *testing.T) {
	clock := apptest.NewClock(t0)
	s := signer(t, secret, clock)
	link, err := s.ReplacementURL("gz-01", "gpu_lost@20261130T100030.000Z")
	if err != nil {
		t.Fatal(err)
	}
	q := query(t, link)
	l, err := s.Verify(actionlink.ActionReplacement, q)
	if err != nil || l.Node != "gz-01" || l.IncidentID != "gpu_lost@20261130T100030.000Z" || !l.Expires.Equal(t0.Add(time.Hour)) {
		t.Fatalf("Verify = %+v, %v", l, err)
	}
	for _, c := range []struct{ key, val string }{
		{"node", "gz-02"}, {"incident", "gpu_lost@20261130T100031.000Z"}, {"exp", "1999999999"},
	} {
		bad := url.Values{}
		for k, v := range q {
			bad[k] = v
		}
		bad.Set(c.key, c.val)
		if _, err := s.Verify(actionlink.ActionReplacement, bad); !errors.Is(err, actionlink.ErrInvalid) {
			t.Errorf("%s changed: %v, want ErrInvalid", c.key, err)
		}
	}
	if _, err := s.Verify("other", q); !errors.Is(err, actionlink.ErrInvalid) {
		t.Errorf("another action: %v, want ErrInvalid (the signature is scoped to its action)", err)
	}
	rotated := signer(t, []byte(strings.Repeat("r", 32)), clock)
	if _, err := rotated.Verify(actionlink.ActionReplacement, q); !errors.Is(err, actionlink.ErrInvalid) {
		t.Errorf("after rotating the secret: %v, want ErrInvalid", err)
	}
	clock.Advance(time.Hour - time.Second)
	if _, err := s.Verify(actionlink.ActionReplacement, q); err != nil {
		t.Errorf("a second before expiry: %v", err)
	}
	clock.Advance(time.Second)
	if _, err := s.Verify(actionlink.ActionReplacement, q); !errors.Is(err, actionlink.ErrExpired) {
		t.Errorf("at expiry: %v, want ErrExpired", err)
	}
}

// TestSignatureVariants: every byte of the signature matters, and no other
// spelling of the same signature passes (upper case, padding, a
// non-canonical last character).
func TestSignatureVariants(t *testing.T) {
	clock := apptest.NewClock(t0)
	s := signer(t, secret, clock)
	link, _ := s.ReplacementURL("gz-01", "gpu_lost@20261130T100030.000Z")
	q := query(t, link)
	sig := q.Get("sig")
	variants := []string{strings.ToUpper(sig), strings.ToLower(sig), sig + "=", sig[:len(sig)-1], sig + "A"}
	// The last of 43 characters carries 4 bits and 2 unused ones: changing
	// only the unused bits is the same bytes in lax decoding.
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", sig[len(sig)-1])
	variants = append(variants, sig[:len(sig)-1]+string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last^1]))
	for i := range sig {
		b := []byte(sig)
		b[i] ^= 1
		variants = append(variants, string(b))
	}
	for _, v := range variants {
		if v == sig {
			continue
		}
		bad := url.Values{"node": q["node"], "incident": q["incident"], "exp": q["exp"], "sig": {v}}
		if _, err := s.Verify(actionlink.ActionReplacement, bad); err == nil {
			t.Errorf("signature %q accepted (the signed one is %q)", v, sig)
		}
	}
}

// TestShapeCheckedFirst: missing, repeated or extra parameters and sizes
// over the limits are refused as such, before any signature is computed.
func TestShapeCheckedFirst(t *testing.T) {
	clock := apptest.NewClock(t0)
	s := signer(t, secret, clock)
	link, _ := s.ReplacementURL("gz-01", "gpu_lost@20261130T100030.000Z")
	good := query(t, link)
	with := func(edit func(url.Values)) url.Values {
		v := url.Values{}
		for k, x := range good {
			v[k] = append([]string(nil), x...)
		}
		edit(v)
		return v
	}
	for name, c := range map[string]struct {
		q    url.Values
		want error
	}{
		"missing sig":    {with(func(v url.Values) { v.Del("sig") }), actionlink.ErrMalformed},
		"node twice":     {with(func(v url.Values) { v.Add("node", "gz-02") }), actionlink.ErrMalformed},
		"extra":          {with(func(v url.Values) { v.Set("lang", "en") }), actionlink.ErrMalformed},
		"exp not digits": {with(func(v url.Values) { v.Set("exp", "1e9") }), actionlink.ErrMalformed},
		"exp negative":   {with(func(v url.Values) { v.Set("exp", "-1") }), actionlink.ErrMalformed},
		"exp too long":   {with(func(v url.Values) { v.Set("exp", "1234567890123") }), actionlink.ErrMalformed},
		"long node":      {with(func(v url.Values) { v.Set("node", strings.Repeat("n", 129)) }), actionlink.ErrTooLarge},
		"long incident":  {with(func(v url.Values) { v.Set("incident", strings.Repeat("i", 257)) }), actionlink.ErrTooLarge},
		"empty node":     {with(func(v url.Values) { v.Set("node", "") }), actionlink.ErrMalformed},
	} {
		if _, err := s.Verify(actionlink.ActionReplacement, c.q); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := actionlink.NewSigner(secret[:31], "https://x.example", 0, nil); err == nil {
		t.Error("a 31-byte secret was accepted")
	}
	for _, base := range []string{"", "gpusla.example.com", "ftp://x.example", "https://x.example/?a=1", "https://u:p@x.example", "https://x.example/#f"} {
		if _, err := actionlink.NewSigner(secret, base, 0, nil); err == nil {
			t.Errorf("public URL %q accepted", base)
		}
	}
}

// TestToken: the form token belongs to its link: another link's token, or
// one made with another secret, does not pass.
func TestToken(t *testing.T) {
	clock := apptest.NewClock(t0)
	s := signer(t, secret, clock)
	a, _ := s.ReplacementURL("gz-01", "gpu_lost@20261130T100030.000Z")
	b, _ := s.ReplacementURL("gz-02", "gpu_lost@20261130T100030.000Z")
	la, _ := s.Verify(actionlink.ActionReplacement, query(t, a))
	lb, _ := s.Verify(actionlink.ActionReplacement, query(t, b))
	if !s.CheckToken(la, s.Token(la)) {
		t.Fatal("a link's own token refused")
	}
	if s.CheckToken(la, s.Token(lb)) || s.CheckToken(la, "") {
		t.Fatal("another link's token, or none, accepted")
	}
	if other := signer(t, []byte(strings.Repeat("o", 32)), clock); s.CheckToken(la, other.Token(la)) {
		t.Fatal("a token made with another secret accepted")
	}
}
