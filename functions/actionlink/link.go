// Package actionlink lets the chat robots that cannot call back into gpusla
// (Feishu/Lark, DingTalk and WeCom group robots, the generic webhook) offer
// "Request replacement" on a hardware alert: each delivery carries a signed,
// expiring link
//
//	GET {public base URL}/v1/actions/replacement?exp=…&incident=…&node=…&sig=…
//
// whose sig is HMAC-SHA256, with a secret only the backend holds, over the
// action, the node, the incident and the expiry. The link opens a
// confirmation page (the contract's report.lang); only the page's POST,
// carrying a token derived from the same signature, opens the replacement
// through the Requester (functions/replacement), and the ticket store's
// conditional create decides that it happens once: a second POST, or a Slack
// button for the same incident, answers "already requested" with the ticket.
// A GET never changes anything, because chat apps fetch links for previews.
//
// Everything a request carries is checked before anything else is done with
// it: sizes and syntax first, then the signature in constant time, then the
// expiry. A bad signature and a link naming no known node or incident get
// the same answer, so the links cannot be used to enumerate nodes.
package actionlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// PathReplacement is the route of the replacement link.
const PathReplacement = "/v1/actions/replacement"

// ActionReplacement is the action a replacement link is signed for: the
// scope of its signature, so a signature made for one action is worth
// nothing for another.
const ActionReplacement = "replacement"

// DefaultTTL is how long a link is good for: long enough for a weekend
// alert to be acted on on Monday, short enough that an old chat message is
// not a standing capability.
const DefaultTTL = 72 * time.Hour

// MinSecret is the shortest signing secret accepted.
const MinSecret = 32

// Bounds on what a link may carry. Node ids and incident ids are far
// shorter (app node ids are at most 64 characters; incident ids a kind, a
// time and a check); anything longer is refused before it is hashed.
const (
	MaxQuery    = 1024
	maxNode     = 128
	maxIncident = 256
	maxExp      = 12 // digits of Unix seconds
	sigLen      = 43 // base64url, no padding, of 32 bytes
)

// The errors of a link. ErrInvalid is also the answer for a well-signed
// link whose node or incident is unknown: the two are not told apart.
var (
	ErrMalformed = errors.New("the link is malformed")
	ErrTooLarge  = errors.New("the link is over the size limit")
	ErrInvalid   = errors.New("the link is not valid")
	ErrExpired   = errors.New("the link has expired")
)

var sigEncoding = base64.RawURLEncoding.Strict()

// Signer signs and checks links with one secret. Rotating the secret (a new
// file or SSM parameter) makes every earlier link invalid.
type Signer struct {
	secret []byte
	base   *url.URL
	ttl    time.Duration
	now    func() time.Time
}

// NewSigner returns a signer whose links start with base (the backend's
// public URL, as people's browsers reach it) and last ttl (DefaultTTL when
// 0). now is the clock (time.Now when nil).
func NewSigner(secret []byte, base string, ttl time.Duration, now func() time.Time) (*Signer, error) {
	if len(secret) < MinSecret {
		return nil, fmt.Errorf("action link secret: %d bytes, at least %d are needed", len(secret), MinSecret)
	}
	u, err := ParseBase(base)
	if err != nil {
		return nil, err
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Signer{secret: append([]byte(nil), secret...), base: u, ttl: ttl, now: now}, nil
}

// Base is the public URL the links start with.
func (s *Signer) Base() string { return s.base.String() }

// ParseBase checks a public base URL: absolute http(s), a host, no query,
// fragment or user info (the links are pasted into chats).
func ParseBase(base string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("public URL %q: want an absolute http(s) URL without query, fragment or user, such as https://gpusla.example.com", base)
	}
	return u, nil
}

// Link is what a verified link says.
type Link struct {
	Action     string
	Node       string
	IncidentID string
	Expires    time.Time
	sig        []byte
}

// mac is the signature of the canonical form: each part length-prefixed,
// so no two different links share one.
func (s *Signer) mac(label, action, node, incident string, exp int64) []byte {
	m := hmac.New(sha256.New, s.secret)
	for _, p := range []string{label, action, node, incident, strconv.FormatInt(exp, 10)} {
		fmt.Fprintf(m, "%d:%s\n", len(p), p)
	}
	return m.Sum(nil)
}

// ReplacementURL is the replacement link of an incident, valid from now for
// the signer's ttl.
func (s *Signer) ReplacementURL(node, incidentID string) (string, error) {
	if node == "" || incidentID == "" || len(node) > maxNode || len(incidentID) > maxIncident {
		return "", fmt.Errorf("action link: node %q / incident %q: empty or too long", node, incidentID)
	}
	exp := s.now().Add(s.ttl).Unix()
	q := url.Values{
		"node":     {node},
		"incident": {incidentID},
		"exp":      {strconv.FormatInt(exp, 10)},
		"sig":      {sigEncoding.EncodeToString(s.mac("gpusla-action-link/1", ActionReplacement, node, incidentID, exp))},
	}
	u := *s.base
	u.Path = strings.TrimRight(u.Path, "/") + PathReplacement
	u.RawQuery = q.Encode()
	return u.String(), nil
}

var linkParams = []string{"exp", "incident", "node", "sig"}

// Verify checks a link's parameters for action at now: each of node,
// incident, exp and sig exactly once and nothing else, within its size,
// then the signature (constant time), then the expiry.
func (s *Signer) Verify(action string, q url.Values) (Link, error) {
	if len(q) != len(linkParams) {
		return Link{}, fmt.Errorf("%w: want the parameters %s", ErrMalformed, strings.Join(linkParams, ", "))
	}
	for _, k := range linkParams {
		if len(q[k]) != 1 || q[k][0] == "" {
			return Link{}, fmt.Errorf("%w: parameter %s: want it once", ErrMalformed, k)
		}
	}
	node, inc, expS, sigS := q["node"][0], q["incident"][0], q["exp"][0], q["sig"][0]
	switch {
	case len(node) > maxNode:
		return Link{}, fmt.Errorf("%w: node: longer than %d bytes", ErrTooLarge, maxNode)
	case len(inc) > maxIncident:
		return Link{}, fmt.Errorf("%w: incident: longer than %d bytes", ErrTooLarge, maxIncident)
	case len(expS) > maxExp || strings.TrimLeft(expS, "0123456789") != "" || expS[0] == '0':
		return Link{}, fmt.Errorf("%w: exp: want Unix seconds", ErrMalformed)
	case len(sigS) != sigLen:
		return Link{}, ErrInvalid
	}
	exp, err := strconv.ParseInt(expS, 10, 64)
	if err != nil {
		return Link{}, fmt.Errorf("%w: exp: want Unix seconds", ErrMalformed)
	}
	// Strict decoding: one encoding per signature, so a link cannot be
	// varied (as upper-cased hex could) and still pass.
	sig, err := sigEncoding.DecodeString(sigS)
	if err != nil || !hmac.Equal(sig, s.mac("gpusla-action-link/1", action, node, inc, exp)) {
		return Link{}, ErrInvalid
	}
	l := Link{Action: action, Node: node, IncidentID: inc, Expires: time.Unix(exp, 0).UTC(), sig: sig}
	if !s.now().Before(l.Expires) {
		return l, ErrExpired
	}
	return l, nil
}

// Token is the confirmation page's form token: derived from the link's
// signature with the same secret, so only a page this backend rendered for
// this very link can post it, and nothing is kept per link.
func (s *Signer) Token(l Link) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("gpusla-action-form/1\n"))
	m.Write(l.sig)
	return sigEncoding.EncodeToString(m.Sum(nil))
}

// CheckToken compares a posted token with l's in constant time.
func (s *Signer) CheckToken(l Link, token string) bool {
	return hmac.Equal([]byte(token), []byte(s.Token(l)))
}

// Values are l's link parameters (the page's hidden form fields).
func (l Link) Values() url.Values {
	return url.Values{"node": {l.Node}, "incident": {l.IncidentID}, "exp": {strconv.FormatInt(l.Expires.Unix(), 10)},
		"sig": {sigEncoding.EncodeToString(l.sig)}}
}
