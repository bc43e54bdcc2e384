// Package push delivers spooled batches to the backend: strictly in order,
// one at a time, each signed at the moment it is sent, retried with
// exponential backoff and jitter until the backend acknowledges it. It never
// deletes anything itself; it tells the queue (the spool) what was acked.
//
// Step 5 of the observation pipeline (read, judge, observe, spool, push):
// signed delivery of the spooled batches to the backend.
package push

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// Queue is what the sender needs from the spool.
type Queue interface {
	Oldest() (spool.Item, bool, error)
	Ack(seq uint64) error
	Reject(seq uint64, why string) error
	SetClockSkew(ms int64)
	Ready() <-chan struct{}
}

// Client is the HTTP client of the pushes: timeout per request, and for an
// https backend the certificates in roots trusted instead of the system's
// (nil: the system's). rt carries the requests (nil: net/http's default
// transport); a transport of another kind than *http.Transport (a test's,
// the demo's) is used as it is.
func Client(timeout time.Duration, roots *x509.CertPool, rt http.RoundTripper) *http.Client {
	if roots != nil {
		base, ok := rt.(*http.Transport)
		if rt == nil {
			base, ok = http.DefaultTransport.(*http.Transport)
		}
		if ok {
			t := base.Clone()
			t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
			rt = t
		}
	}
	return &http.Client{Timeout: timeout, Transport: rt}
}

// Sender pushes batches from a Queue to URL.
type Sender struct {
	URL        string
	Node       string
	Secret     []byte
	Queue      Queue
	Client     *http.Client     // default: 30 s timeout
	MinBackoff time.Duration    // first retry delay, default 1 s
	MaxBackoff time.Duration    // cap on the delay, default 5 min
	Now        func() time.Time // default time.Now
	Log        *slog.Logger

	mu    sync.Mutex
	stats Stats
	// skew is probe clock minus backend clock, last measured. Signatures
	// are timestamped in backend time so that a drifting node clock does not
	// get every batch rejected as stale.
	skew time.Duration
	// lastSeq/lastTS remember the last signature's batch and second: the
	// backend rejects an identical signed request as a replay, so a retry
	// of the same batch must be signed in a later second.
	lastSeq uint64
	lastTS  int64
}

// Stats describe delivery so far, for logs and /metrics.
type Stats struct {
	Acked       uint64
	Duplicates  uint64
	Rejected    uint64
	Failures    uint64
	LastAck     time.Time
	LastError   string
	ClockSkew   time.Duration
	SkewKnown   bool
	Consecutive int // failed attempts in a row
}

// Stats returns a snapshot.
func (s *Sender) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// outcome of one attempt.
type outcome int

const (
	acked outcome = iota
	retry
	reject
)

// Run delivers until ctx is done. It returns nil on cancellation and an
// error only if the queue itself fails (a disk error), which the daemon
// treats as fatal.
func (s *Sender) Run(ctx context.Context) error {
	s.defaults()
	failures := 0
	var failingSince time.Time
	for {
		it, ok, err := s.Queue.Oldest()
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		if !ok {
			select {
			case <-ctx.Done():
				return nil
			case <-s.Queue.Ready():
				continue
			}
		}
		res, why := s.attempt(ctx, it)
		if ctx.Err() != nil {
			return nil
		}
		switch res {
		case acked:
			if failures > 0 {
				s.Log.Info("delivering again", "seq", it.Seq, "failed_attempts", failures, "failing_for", s.Now().Sub(failingSince).Round(time.Second))
			}
			failures = 0
			if err := s.Queue.Ack(it.Seq); err != nil {
				return fmt.Errorf("push: %w", err)
			}
			continue
		case reject:
			failures = 0
			s.Log.Error("backend refused batch for good; moved aside and reported as dropped",
				"seq", it.Seq, "id", it.ID, "reason", why)
			if err := s.Queue.Reject(it.Seq, why); err != nil {
				return fmt.Errorf("push: %w", err)
			}
			continue
		}
		failures++
		d := Backoff(failures, s.MinBackoff, s.MaxBackoff)
		// One warning per episode: its first failure says why; the retries
		// that follow are debug lines, and the delivery that ends it says
		// how long it lasted.
		lvl := slog.LevelDebug
		if failures == 1 {
			lvl, failingSince = slog.LevelWarn, s.Now()
		}
		s.Log.Log(ctx, lvl, "delivery failed, retrying until the backend takes it", "seq", it.Seq, "attempt", failures, "retry_in", d.Round(time.Millisecond), "reason", why)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

func (s *Sender) defaults() {
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if s.MinBackoff <= 0 {
		s.MinBackoff = time.Second
	}
	if s.MaxBackoff < s.MinBackoff {
		s.MaxBackoff = max(5*time.Minute, s.MinBackoff)
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Log == nil {
		s.Log = slog.Default()
	}
}

// Backoff is the delay before retry number n (1-based): exponential from
// min, capped at max, with "full jitter" (uniform in [d/2, d]) so that a
// fleet that lost the backend at the same moment does not retry in lockstep.
func Backoff(n int, min, max time.Duration) time.Duration {
	d := min
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d/2 + rand.N(d/2+1)
}

func (s *Sender) attempt(ctx context.Context, it spool.Item) (outcome, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(it.Body))
	if err != nil {
		return s.fail(retry, fmt.Sprintf("build request: %v", err))
	}
	s.mu.Lock()
	skew := s.skew
	s.mu.Unlock()
	sent := s.Now()
	signAt := sent.Add(-skew)
	if it.Seq == s.lastSeq && signAt.Unix() == s.lastTS {
		wait := time.Unix(s.lastTS+1, 0).Sub(signAt)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return s.fail(retry, ctx.Err().Error())
		case <-t.C:
		}
		sent = s.Now()
		signAt = sent.Add(-skew)
	}
	s.lastSeq, s.lastTS = it.Seq, signAt.Unix()
	wire.SetHeaders(req.Header, s.Node, s.Secret, signAt, it.Body)
	resp, err := s.Client.Do(req)
	if err != nil {
		return s.fail(retry, err.Error())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	got := s.Now()
	if err != nil {
		return s.fail(retry, fmt.Sprintf("read answer: %v", err))
	}
	if resp.StatusCode != http.StatusOK {
		// Without an Ack, the Date header is the only clock reading we
		// get; it is enough to recover from a stale-timestamp 401.
		if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
			s.measure(sent, got, d, false)
		}
		msg := fmt.Sprintf("HTTP %d: %s", resp.StatusCode, errorText(body))
		switch resp.StatusCode {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			// The same bytes will be refused forever; keeping them at the
			// head of the queue would block every later batch.
			return s.fail(reject, msg)
		case http.StatusUnauthorized:
			return s.fail(retry, msg+" (check the node secret and the clock)")
		}
		return s.fail(retry, msg)
	}
	var ack wire.Ack
	if err := json.Unmarshal(body, &ack); err != nil {
		return s.fail(retry, fmt.Sprintf("answer is not an ack: %v", err))
	}
	if ack.ID != it.ID {
		return s.fail(retry, fmt.Sprintf("ack is for batch %q, sent %q", ack.ID, it.ID))
	}
	if !ack.ServerTime.IsZero() {
		s.measure(sent, got, ack.ServerTime, true)
	}
	s.mu.Lock()
	s.stats.Acked++
	if ack.Status == wire.AckDuplicate {
		s.stats.Duplicates++
	}
	s.stats.LastAck = got
	s.stats.LastError = ""
	s.stats.Consecutive = 0
	s.mu.Unlock()
	return acked, ""
}

// measure estimates probe-minus-backend clock skew, assuming the backend
// read its clock halfway through the round trip. Only precise readings (an
// Ack's millisecond time) are reported in batches; the Date header's
// one-second reading only steers signing.
func (s *Sender) measure(sent, got, server time.Time, precise bool) {
	mid := sent.Add(got.Sub(sent) / 2)
	skew := mid.Sub(server)
	if !precise && skew.Abs() < 2*time.Second {
		return
	}
	s.mu.Lock()
	s.skew = skew
	if precise {
		s.stats.ClockSkew = skew
		s.stats.SkewKnown = true
	}
	s.mu.Unlock()
	if precise {
		s.Queue.SetClockSkew(skew.Milliseconds())
	}
}

func (s *Sender) fail(o outcome, why string) (outcome, string) {
	s.mu.Lock()
	s.stats.LastError = why
	if o == reject {
		s.stats.Rejected++
	} else {
		s.stats.Failures++
		s.stats.Consecutive++
	}
	s.mu.Unlock()
	return o, why
}

func errorText(body []byte) string {
	var e wire.Error
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		if e.Field != "" {
			return e.Field + ": " + e.Error
		}
		return e.Error
	}
	if len(body) > 200 {
		body = body[:200]
	}
	if len(body) == 0 {
		return "(no body)"
	}
	return string(body)
}
