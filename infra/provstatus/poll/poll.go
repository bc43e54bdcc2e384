// Package poll fetches a provider's status page: one bounded GET with a
// timeout, conditional on what the last fetch returned (ETag and
// Last-Modified, so an unchanged page costs the provider a 304 and the
// backend nothing), parsed by the parser of the format the terms name. It
// also says when to try again after failures (Backoff).
package poll

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/provstatus/atlassian"
	"github.com/gpusla/gpusla/infra/provstatus/atom"
	"github.com/gpusla/gpusla/infra/provstatus/rss"
	"github.com/gpusla/gpusla/sla/terms"
)

// DefaultTimeout bounds one fetch, connection to last byte.
const DefaultTimeout = 20 * time.Second

// Validators are what the last successful fetch returned, sent back so
// the server can answer 304 Not Modified.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// Result is one fetch's outcome.
type Result struct {
	// NotModified: the server answered 304; Incidents is nil and the
	// validators are the ones sent.
	NotModified bool
	Incidents   []provstatus.Incident
	Validators  Validators
	Bytes       int
}

// Fetcher fetches status pages, from public addresses only (guard.go):
// it makes its own client, with no proxy (a proxy would make the address
// checks moot) and no connection kept between fetches (each fetch's
// allowance is its own page's).
type Fetcher struct {
	Timeout time.Duration // 0: DefaultTimeout
	// MaxBytes caps a page (0: provstatus.MaxBytes); a larger one is refused.
	MaxBytes  int
	UserAgent string
	// Resolver looks hosts up (nil: the system's).
	Resolver Resolver
	// TLS, when set, is the TLS configuration (tests trust their own CA).
	TLS *tls.Config
}

// MaxReason bounds the poll error a failed fetch leaves (Reason).
const MaxReason = 200

var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Reason is a failed fetch's error as the poll state keeps it — and so as
// the log, the export (status_page_polled) and report.json show it: what
// went wrong (the status, the refused address, the parser's line and
// field) without a byte of what the server sent. Quoted text (values a
// parser quotes from the page, a redirect's URL) is cut out, space
// collapsed, and the whole held to MaxReason runes.
func Reason(err error) string { return ReasonText(err.Error()) }

// ReasonText is Reason of an error's text (a stored one, say).
func ReasonText(s string) string {
	s = quoted.ReplaceAllString(s, `"…"`)
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if r := []rune(s); len(r) > MaxReason {
		s = string(r[:MaxReason-1]) + "…"
	}
	return s
}

// shown is a page URL as errors name it: scheme, host and path, never its
// query (where an access key may sit).
func shown(u *url.URL) string { return u.Scheme + "://" + u.Host + u.EscapedPath() }

// Parse reads data in the format the terms name, published from zone (the
// page's zone: zone names in RSS dates are read by it; nil is none).
func Parse(format terms.StatusFormat, data []byte, zone *time.Location) ([]provstatus.Incident, error) {
	switch format {
	case terms.FormatStatuspage:
		return atlassian.Parse(data)
	case terms.FormatRSS:
		return rss.ParseIn(data, zone)
	case terms.FormatAtom:
		return atom.Parse(data)
	}
	return nil, fmt.Errorf("status page format %q: not one of statuspage, rss, atom", format)
}

// Fetch GETs the page, conditional on v, and parses it. An error names
// the page (without its query) and what went wrong: an address refused,
// the HTTP status (never the body: it is not the page, and may be
// anything the address answers), a body over the limit, a timeout, or
// the parser's error.
func (f *Fetcher) Fetch(ctx context.Context, page *terms.ProviderPage, v Validators) (Result, error) {
	u, err := url.Parse(page.URL)
	if err != nil || u.Hostname() == "" {
		return Result{}, fmt.Errorf("status page: %q is not a URL with a host", page.URL)
	}
	where := shown(u)
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	g := guard{resolver: f.Resolver}
	if page.AllowPrivate {
		g.allowHost = strings.ToLower(u.Hostname())
	}
	// Refused before any request; the dial checks again what it connects to.
	if _, err := g.resolve(ctx, u.Hostname()); err != nil {
		return Result{}, fmt.Errorf("status page %s: %w", where, err)
	}
	client, done := f.client(g)
	defer done()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page.URL, nil)
	if err != nil {
		return Result{}, fmt.Errorf("status page %s: %w", where, err)
	}
	req.Header.Set("Accept", accept(page.Format))
	if f.UserAgent != "" {
		req.Header.Set("User-Agent", f.UserAgent)
	}
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("status page %s: no answer within %s: %w", where, timeout, err)
		}
		return Result{}, fmt.Errorf("status page %s: %w", where, err)
	}
	defer resp.Body.Close()
	return f.read(resp, where, page, v)
}

// read judges an answer and parses its body.
func (f *Fetcher) read(resp *http.Response, where string, page *terms.ProviderPage, v Validators) (Result, error) {
	limit := f.MaxBytes
	if limit <= 0 {
		limit = provstatus.MaxBytes
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		if v == (Validators{}) {
			return Result{}, fmt.Errorf("status page %s: 304 Not Modified to a request that was not conditional", where)
		}
		return Result{NotModified: true, Validators: v}, nil
	case resp.StatusCode != http.StatusOK:
		return Result{}, fmt.Errorf("status page %s: HTTP %s", where, resp.Status)
	case resp.ContentLength > int64(limit):
		return Result{}, fmt.Errorf("status page %s: %d bytes announced, more than the %d a status page may be", where, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return Result{}, fmt.Errorf("status page %s: reading the body: %w", where, err)
	}
	if len(body) > limit {
		return Result{}, fmt.Errorf("status page %s: body larger than the %d bytes a status page may be", where, limit)
	}
	incs, err := Parse(page.Format, body, page.Zone)
	if err != nil {
		return Result{}, fmt.Errorf("status page %s: %w", where, err)
	}
	return Result{Incidents: incs, Bytes: len(body),
		Validators: Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}}, nil
}

// client is one fetch's HTTP client, guarded by g at every dial and
// redirect; done releases it.
func (f *Fetcher) client(g guard) (*http.Client, func()) {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.dial,
		TLSClientConfig:       f.TLS,
		DisableKeepAlives:     true,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: DefaultTimeout,
	}
	c := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if err := checkRedirect(req, via); err != nil {
			return err
		}
		// The target's host is judged before it is asked anything.
		_, err := g.resolve(req.Context(), req.URL.Hostname())
		return err
	}}
	return c, tr.CloseIdleConnections
}

// MaxRedirects bounds the redirects a fetch follows.
const MaxRedirects = 5

// checkRedirect follows a page that moved, but never from https down to
// http (the page's contents would travel unprotected), nor endlessly.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("more than %d redirects", MaxRedirects)
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirected from https to %s (%s)", req.URL.Scheme, shown(req.URL))
	}
	return nil
}

func accept(f terms.StatusFormat) string {
	switch f {
	case terms.FormatRSS:
		return "application/rss+xml, application/xml;q=0.9, text/xml;q=0.8"
	case terms.FormatAtom:
		return "application/atom+xml, application/xml;q=0.9, text/xml;q=0.8"
	}
	return "application/json"
}

// MaxBackoff is the longest wait after failures.
const MaxBackoff = 6 * time.Hour

// Backoff is how long to wait before the next fetch after failures
// failures in a row: every, doubled per failure, at most MaxBackoff (or
// every, when that is longer). No failure: every.
func Backoff(every time.Duration, failures int) time.Duration {
	d := every
	for i := 0; i < failures && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, max(MaxBackoff, every))
}
