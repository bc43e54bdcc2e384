// Package robot posts messages to chat robots' webhooks (Feishu/Lark,
// DingTalk, WeCom, a generic signed webhook) the one way they all need: a
// client-side rate limit so the robot is never pushed past its documented
// quota, a request built afresh for every attempt (signatures carry a
// timestamp), the robot's "slow down" answers (HTTP 429, or HTTP 200 with a
// rate-limit error code) waited out with backoff up to a bound, and every
// other failure returned as an error so the application keeps the message
// pending and retries it later. The clock and the sleep are injected, so the
// tests run the limiter and the backoff without waiting.
package robot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/internal/ctxsleep"
)

// Limit is a robot's documented quota: at most N messages in any Per.
type Limit struct {
	N   int
	Per time.Duration
}

// RetryError is an answer that says "later": rate limited, or a transient
// server error. After is what the robot asked for (Retry-After), zero when
// it did not say.
type RetryError struct {
	After time.Duration
	// Limited: the robot said "too many" (HTTP 429, a rate-limit code), so
	// the message was refused, not perhaps delivered (a 5xx may have been).
	Limited bool
	Err     error
}

func (e *RetryError) Error() string { return e.Err.Error() }
func (e *RetryError) Unwrap() error { return e.Err }

// Poster posts to one robot. The zero values of Client, Now, Sleep and
// MaxWait are replaced by defaults in New.
type Poster struct {
	Name    string // "dingtalk", in error messages
	Client  *http.Client
	Now     func() time.Time
	Sleep   func(context.Context, time.Duration) error
	MaxWait time.Duration // total waiting (limiter and backoff) one Post may spend
	// Secrets are taken out of every error Post returns (the webhook URL
	// and its parts, the signing secret: notify.Redact); New's callers set
	// them.
	Secrets []string
	quota   *quota
}

// New returns a poster honouring every one of limits (none: no client-side
// limit; Feishu has one a second and one a minute).
func New(name string, limits ...Limit) *Poster {
	return &Poster{Name: name, quota: newQuota(limits)}
}

func (p *Poster) defaults() {
	if p.Client == nil {
		p.Client = &http.Client{Timeout: RequestTimeout}
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	if p.Sleep == nil {
		p.Sleep = ctxsleep.Sleep
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 30 * time.Second
	}
}

// RequestTimeout bounds one request to a robot (they answer in well under a
// second); a Post leaves this much of its context's time for the request
// after any wait, so a deadline never cuts a request it started.
const RequestTimeout = 10 * time.Second

// maxBody bounds how much of an answer is read: the robots answer with a
// few dozen bytes of JSON.
const maxBody = 64 << 10

// Post sends the request build makes (called again for every attempt, with
// the time of the attempt) and judges the answer with check: nil is
// delivered, a *RetryError is waited out and retried while the budget
// lasts, anything else is returned at once. The error is redacted of the
// poster's Secrets, URLs and anything token-shaped.
//
// The budget is MaxWait, less when ctx's deadline comes sooner (less the
// request's own RequestTimeout): a wait that would not end in time is not
// begun, its booking is given back, and the error is a notify.NotSentError
// saying when the limit frees. A wait cut short (ctx done, or the yield of
// notify.WithYield) gives its booking back too and is a NotSentError: the
// caller knows nothing reached the robot. A request once sent is finished
// under ctx alone.
func (p *Poster) Post(ctx context.Context, build func(now time.Time) (*http.Request, error),
	check func(status int, h http.Header, body []byte) error) error {
	return notify.Redact(p.post(ctx, build, check), p.Secrets...)
}

func (p *Poster) post(ctx context.Context, build func(now time.Time) (*http.Request, error),
	check func(status int, h http.Header, body []byte) error) error {
	p.defaults()
	wctx, stop := notify.WaitContext(ctx)
	defer stop()
	budget := p.budget(ctx)
	var waited time.Duration
	backoff := time.Second
	urgent := notify.IsUrgent(ctx)
	for {
		now := p.Now()
		bctx, move := context.WithCancel(wctx)
		at, by, b := p.quota.reserve(now, urgent, move)
		if d := at.Sub(now); d > 0 {
			if waited+d > budget {
				b.cancel()
				move()
				return &notify.NotSentError{After: d, Err: fmt.Errorf("%s: the robot's limit of %d messages per %s is used up for %s more; leaving the message pending",
					p.Name, by.N, by.Per, d.Round(time.Second))}
			}
			err := p.Sleep(bctx, d)
			move()
			if wctx.Err() == nil && b.wasMoved() {
				// An urgent alert took this turn: book again behind it.
				waited += p.Now().Sub(now)
				continue
			}
			if err != nil {
				b.cancel()
				return &notify.NotSentError{Err: fmt.Errorf("%s: waiting for the rate limit: %w", p.Name, err)}
			}
			waited += d
		}
		move()
		req, err := build(p.Now())
		if err != nil {
			b.cancel()
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		b.keep()
		err = p.do(req, check) // the booking is spent: the robot counts refused requests too
		var re *RetryError
		if !errors.As(err, &re) {
			return err
		}
		wait := re.After
		if wait <= 0 {
			wait, backoff = backoff, 2*backoff
		}
		if waited+wait > budget {
			err = fmt.Errorf("%s: still refused after waiting %s; leaving the message pending: %w", p.Name, waited, err)
			if re.Limited {
				return &notify.NotSentError{After: wait, Err: err}
			}
			return err
		}
		if err := p.Sleep(wctx, wait); err != nil {
			err = fmt.Errorf("%s: waiting to retry: %w", p.Name, err)
			if re.Limited {
				return &notify.NotSentError{Err: err}
			}
			return err
		}
		waited += wait
	}
}

// budget is how long one Post may wait in all: MaxWait, or what ctx's
// deadline leaves after the time a request may take.
func (p *Poster) budget(ctx context.Context) time.Duration {
	b := p.MaxWait
	if dl, ok := ctx.Deadline(); ok {
		b = min(b, max(0, time.Until(dl)-RequestTimeout))
	}
	return b
}

func (p *Poster) do(req *http.Request, check func(int, http.Header, []byte) error) error {
	resp, err := p.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Name, err) // Post redacts the URL
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", p.Name, err)
	}
	if err := check(resp.StatusCode, resp.Header, body); err != nil {
		var re *RetryError
		if errors.As(err, &re) {
			re.Err = fmt.Errorf("%s: %w", p.Name, re.Err)
			return re
		}
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	return nil
}

// HTTPStatus judges the HTTP layer of an answer: 429 and 5xx say "later"
// (with Retry-After when given), any other non-2xx is a failure naming the
// status and the start of the body. It returns nil for 2xx.
func HTTPStatus(status int, h http.Header, body []byte) error {
	if status >= 200 && status < 300 {
		return nil
	}
	err := fmt.Errorf("HTTP %d: %s", status, Excerpt(body))
	if status == http.StatusTooManyRequests || status >= 500 {
		return &RetryError{After: retryAfter(h), Limited: status == http.StatusTooManyRequests, Err: err}
	}
	return err
}

func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// Excerpt is the start of an answer body, for error messages.
func Excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// WebhookURL checks that a configured webhook URL is absolute http(s) with a
// host; field names it in the error (the URL itself is a secret).
func WebhookURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: not an absolute http(s) URL", field)
	}
	return u, nil
}

// CodeAnswer judges a robot's HTTP 200 answer that carries a result code
// (DingTalk and WeCom {"errcode":0,"errmsg":"ok"}, Feishu {"code":0,
// "msg":"success"}): code 0 is delivered, a code in retry says "later", any
// other code is a failure naming it and its message. An answer without the
// code is a failure too: it is not the robot that answered.
func CodeAnswer(body []byte, codeKey, msgKey string, retry ...int) error {
	var r map[string]json.RawMessage
	var code int
	if err := json.Unmarshal(body, &r); err != nil || r[codeKey] == nil || json.Unmarshal(r[codeKey], &code) != nil {
		return fmt.Errorf("answer has no numeric %q: %s", codeKey, Excerpt(body))
	}
	if code == 0 {
		return nil
	}
	var msg string
	_ = json.Unmarshal(r[msgKey], &msg) // a missing message leaves it empty
	err := fmt.Errorf("%s %d: %s", codeKey, code, msg)
	if slices.Contains(retry, code) {
		return &RetryError{Limited: true, Err: fmt.Errorf("rate limited: %w", err)}
	}
	return err
}

// JSONRequest is a POST of body as JSON to rawURL. Its error never contains
// the URL (a secret).
func JSONRequest(ctx context.Context, rawURL string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, errors.New("building the request failed (webhook URL withheld)")
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	return req, nil
}

// CodeCheck is the check of a robot that answers with a result code:
// HTTPStatus first, then CodeAnswer.
func CodeCheck(codeKey, msgKey string, retry ...int) func(int, http.Header, []byte) error {
	return func(status int, h http.Header, body []byte) error {
		if err := HTTPStatus(status, h, body); err != nil {
			return err
		}
		return CodeAnswer(body, codeKey, msgKey, retry...)
	}
}
