// Package poll fetches a provider's status page: one bounded GET with a
// timeout, conditional on what the last fetch returned (ETag and
// Last-Modified, so an unchanged page costs the provider a 304 and the
// backend nothing), parsed by the parser of the format the terms name. It
// also says when to try again after failures (Backoff).
package poll

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/provstatus/atom"
	"github.com/gpusla/gpusla/infra/provstatus/rss"
	"github.com/gpusla/gpusla/infra/provstatus/statuspage"
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

// Fetcher fetches status pages.
type Fetcher struct {
	// Client is the HTTP client (nil: one with Timeout). Its own timeout
	// applies besides Timeout.
	Client  *http.Client
	Timeout time.Duration // 0: DefaultTimeout
	// MaxBytes caps a page (0: provstatus.MaxBytes); a larger one is refused.
	MaxBytes  int
	UserAgent string
}

// Parse reads data in the format the terms name.
func Parse(format terms.StatusFormat, data []byte) ([]provstatus.Incident, error) {
	switch format {
	case terms.FormatStatuspage:
		return statuspage.Parse(data)
	case terms.FormatRSS:
		return rss.Parse(data)
	case terms.FormatAtom:
		return atom.Parse(data)
	}
	return nil, fmt.Errorf("status page format %q: not one of statuspage, rss, atom", format)
}

// Fetch GETs url, conditional on v, and parses the page. An error names
// the URL and what went wrong: the HTTP status (with the start of the
// body), a body over the limit, a timeout, or the parser's error.
func (f *Fetcher) Fetch(ctx context.Context, url string, format terms.StatusFormat, v Validators) (Result, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = provstatus.MaxBytes
	}
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: timeout, CheckRedirect: checkRedirect}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Result{}, fmt.Errorf("status page %s: %w", url, err)
	}
	req.Header.Set("Accept", accept(format))
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
			return Result{}, fmt.Errorf("status page %s: no answer within %s: %w", url, timeout, err)
		}
		return Result{}, fmt.Errorf("status page %s: %w", url, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		if v == (Validators{}) {
			return Result{}, fmt.Errorf("status page %s: 304 Not Modified to a request that was not conditional", url)
		}
		return Result{NotModified: true, Validators: v}, nil
	case resp.StatusCode != http.StatusOK:
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return Result{}, fmt.Errorf("status page %s: HTTP %s: %q", url, resp.Status, strings.TrimSpace(string(head)))
	case resp.ContentLength > int64(limit):
		return Result{}, fmt.Errorf("status page %s: %d bytes announced, more than the %d a status page may be", url, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return Result{}, fmt.Errorf("status page %s: reading the body: %w", url, err)
	}
	if len(body) > limit {
		return Result{}, fmt.Errorf("status page %s: body larger than the %d bytes a status page may be", url, limit)
	}
	incs, err := Parse(format, body)
	if err != nil {
		return Result{}, fmt.Errorf("status page %s: %w", url, err)
	}
	return Result{Incidents: incs, Bytes: len(body),
		Validators: Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}}, nil
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
		return fmt.Errorf("redirected from https to %s (%s)", req.URL.Scheme, req.URL.Redacted())
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
