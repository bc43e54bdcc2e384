package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The message signed is the decimal Unix timestamp, a '.', then the body, so
// that neither can be changed or swapped without breaking the signature.
func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Sign returns the header value for body signed at t.
func Sign(secret []byte, t time.Time, body []byte) (ts, sig string) {
	ts = strconv.FormatInt(t.Unix(), 10)
	return ts, "v1=" + hex.EncodeToString(mac(secret, ts, body))
}

// SetHeaders signs body and sets the three headers on an outgoing request.
func SetHeaders(h http.Header, node string, secret []byte, t time.Time, body []byte) {
	ts, sig := Sign(secret, t, body)
	h.Set(HeaderNode, node)
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, sig)
	h.Set("Content-Type", "application/json")
}

// Reasons Verify rejects a request; all of them mean 401.
var (
	ErrNoSignature  = errors.New("missing signature headers")
	ErrBadTimestamp = errors.New("timestamp is not a Unix time")
	ErrStale        = errors.New("timestamp outside the allowed window")
	ErrBadSignature = errors.New("signature does not match")
)

// Verify checks a signature in constant time and the timestamp against now.
// It returns the signed time. Call it before looking at the body at all.
func Verify(secret []byte, now time.Time, ts, sig string, body []byte) (time.Time, error) {
	if ts == "" || sig == "" {
		return time.Time{}, ErrNoSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(ts) > 12 {
		return time.Time{}, ErrBadTimestamp
	}
	signed := time.Unix(sec, 0)
	if d := now.Sub(signed); d > TimestampWindow || d < -TimestampWindow {
		return signed, ErrStale
	}
	got, ok := decodeSignature(sig)
	if !ok || !hmac.Equal(got, mac(secret, ts, body)) {
		return signed, ErrBadSignature
	}
	return signed, nil
}

func decodeSignature(sig string) ([]byte, bool) {
	hexsig, ok := strings.CutPrefix(sig, "v1=")
	if !ok {
		return nil, false
	}
	got, err := hex.DecodeString(hexsig)
	return got, err == nil
}

// CanonicalSignature is the one spelling of a signature header: "v1=" and
// lowercase hex. hex decoding accepts either case, so "v1=AB…" and "v1=ab…"
// verify alike; replay protection must remember this form, or a replay
// with the hex upper-cased would pass as a new request.
func CanonicalSignature(sig string) (string, bool) {
	got, ok := decodeSignature(sig)
	if !ok {
		return "", false
	}
	return "v1=" + hex.EncodeToString(got), true
}
