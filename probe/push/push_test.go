package push

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/push/pushtest"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

var secret = []byte("node-secret-for-tests")

type rig struct {
	sp   *spool.Spool
	recv *pushtest.Receiver
	snd  *Sender
	stop func()
}

func newRig(t *testing.T) *rig {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sp, err := spool.Open(spool.Options{Dir: t.TempDir(), MaxBytes: 8 << 20, Node: "node-1", Probe: "test", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	recv, err := pushtest.Start("node-1", secret)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{sp: sp, recv: recv}
	r.snd = &Sender{URL: recv.URL(), Node: "node-1", Secret: secret, Queue: sp,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 80 * time.Millisecond, Log: quiet}
	t.Cleanup(func() {
		if r.stop != nil {
			r.stop()
		}
		recv.Close()
		sp.Close()
	})
	return r
}

func (r *rig) start() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.snd.Run(ctx) }()
	r.stop = func() { cancel(); wg.Wait() }
}

func (r *rig) append(t *testing.T, n int) {
	t.Helper()
	for range n {
		if _, err := r.sp.Append([]wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitEmpty waits until the spool has been drained (everything acked).
func (r *rig) waitEmpty(t *testing.T) {
	t.Helper()
	waitfor.True(t, "the spool drained", func() bool { n, _ := r.sp.Stats(); return n == 0 })
}

// waitFailures waits until the sender has failed n more times than before
// with an error saying want.
func (r *rig) waitFailures(t *testing.T, n uint64, want string) {
	t.Helper()
	from := r.snd.Stats().Failures
	waitfor.True(t, fmt.Sprintf("%d more failed attempts saying %q", n, want), func() bool {
		st := r.snd.Stats()
		return st.Failures >= from+n && strings.Contains(st.LastError, want)
	})
}

func TestDeliversInOrderWithUnbrokenChain(t *testing.T) {
	r := newRig(t)
	r.append(t, 5)
	r.start()
	r.append(t, 5)
	r.waitEmpty(t)
	n, err := r.recv.CheckChain()
	if err != nil || n != 10 {
		t.Fatalf("chain: n=%d err=%v", n, err)
	}
}

// The backend goes away (refused, then 503) while batches keep coming; when
// it is back, it holds every batch exactly once and in order.
func TestBackendDownThenUpGetsEverythingOnce(t *testing.T) {
	r := newRig(t)
	r.start()
	r.append(t, 3)
	r.waitEmpty(t)
	if err := r.recv.SetMode(pushtest.Refused); err != nil {
		t.Fatal(err)
	}
	// Each phase lasts until the sender has retried in it a few times.
	r.append(t, 4)
	r.waitFailures(t, 2, "refused")
	if err := r.recv.SetMode(pushtest.Unavailable); err != nil {
		t.Fatal(err)
	}
	r.append(t, 4)
	r.waitFailures(t, 2, "503")
	if c := r.recv.Counts(); c.Stored != 3 {
		t.Fatalf("receiver stored %d while down, want 3", c.Stored)
	}
	if st := r.snd.Stats(); st.Failures < 2 || !strings.Contains(st.LastError, "503") {
		t.Fatalf("sender did not see the outage: %+v", st)
	}
	if err := r.recv.SetMode(pushtest.Up); err != nil {
		t.Fatal(err)
	}
	r.append(t, 2)
	r.waitEmpty(t)
	n, err := r.recv.CheckChain()
	if err != nil || n != 13 {
		t.Fatalf("chain after outage: n=%d err=%v", n, err)
	}
}

// Retrying a batch the backend already stored (ack lost) is harmless: the
// receiver answers "duplicate" and stores nothing twice.
func TestResendAfterLostAckIsDeduplicated(t *testing.T) {
	r := newRig(t)
	r.append(t, 2)
	it, _, _ := r.sp.Oldest()
	// Deliver batch 1 by hand and "lose" the ack: it stays in the spool.
	s := &Sender{URL: r.recv.URL(), Node: "node-1", Secret: secret, Queue: r.sp}
	s.defaults()
	if res, why := s.attempt(context.Background(), it); res != acked {
		t.Fatalf("first attempt: %v", why)
	}
	r.start()
	r.waitEmpty(t)
	c := r.recv.Counts()
	if c.Stored != 2 || c.Duplicates != 1 {
		t.Fatalf("counts %+v, want 2 stored 1 duplicate", c)
	}
	if _, err := r.recv.CheckChain(); err != nil {
		t.Fatal(err)
	}
}

// A probe clock 10 minutes off would make every signature stale; the sender
// learns the offset from the 401's Date header and signs in backend time,
// and reports the skew measured from the ack in the next batch.
func TestClockSkewIsMeasuredAndReported(t *testing.T) {
	r := newRig(t)
	r.recv.SetClockOffset(-10 * time.Minute) // the backend is 10 min behind the probe
	r.append(t, 1)
	r.start()
	r.waitEmpty(t)
	st := r.snd.Stats()
	if !st.SkewKnown || (st.ClockSkew-10*time.Minute).Abs() > 2*time.Second {
		t.Fatalf("measured skew %v, want about +10m", st.ClockSkew)
	}
	r.append(t, 1)
	r.waitEmpty(t)
	bs := r.recv.Batches()
	if got := bs[len(bs)-1].ClockSkewMS; (time.Duration(got)*time.Millisecond - 10*time.Minute).Abs() > 2*time.Second {
		t.Fatalf("next batch reports clock_skew_ms %d, want about 600000", got)
	}
	// The first attempt was refused as stale; that is the only 401 allowed.
	if c := r.recv.Counts(); c.BadSignatures != 1 {
		t.Fatalf("%d requests refused, want exactly the first stale one", c.BadSignatures)
	}
}

// A probe with the wrong secret gets 401s; nothing is lost, and once the
// secret is fixed (the daemon builds a new sender on reload) all arrive.
func TestWrongSecretLosesNothing(t *testing.T) {
	r := newRig(t)
	r.snd.Secret = []byte("wrong")
	r.append(t, 3)
	r.start()
	r.waitFailures(t, 2, "401")
	if c := r.recv.Counts(); c.Stored != 0 || c.BadSignatures == 0 {
		t.Fatalf("counts with wrong secret: %+v", c)
	}
	if st := r.snd.Stats(); !strings.Contains(st.LastError, "401") {
		t.Fatalf("last error %q does not say 401", st.LastError)
	}
	r.stop()
	r.snd = &Sender{URL: r.recv.URL(), Node: "node-1", Secret: secret, Queue: r.sp, MinBackoff: 10 * time.Millisecond}
	r.start()
	r.waitEmpty(t)
	if c := r.recv.Counts(); c.Stored != 3 {
		t.Fatalf("stored %d after fixing the secret, want 3", c.Stored)
	}
}

// A batch the backend refuses for good (400) is moved aside so the queue
// keeps moving, and the next batch reports it as dropped.
func TestRejectedBatchDoesNotBlockTheQueue(t *testing.T) {
	r := newRig(t)
	r.recv.RefuseSeq(2, "observations[0].kind", "a future backend's stricter schema")
	r.append(t, 3)
	r.start()
	r.waitEmpty(t)
	r.append(t, 1)
	r.waitEmpty(t)
	bs := r.recv.Batches()
	if len(bs) != 3 || bs[0].Seq != 1 || bs[1].Seq != 3 || bs[2].Seq != 4 {
		t.Fatalf("stored %d batches", len(bs))
	}
	d := bs[2].Dropped
	if d == nil || d.FromSeq != 2 || d.ToSeq != 2 || !strings.Contains(d.Reason, "observations[0].kind") {
		t.Fatalf("batch 4 drop report %+v", d)
	}
	if st := r.snd.Stats(); st.Rejected != 1 {
		t.Fatalf("sender stats %+v", st)
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	for n := 1; n <= 12; n++ {
		want := min(time.Second<<(n-1), time.Minute)
		for range 50 {
			d := Backoff(n, time.Second, time.Minute)
			if d < want/2 || d > want {
				t.Fatalf("retry %d: %v outside [%v, %v]", n, d, want/2, want)
			}
		}
	}
}

// The backend refuses an identical signed request as a replay, so retries
// of one batch must never reuse a signature, however fast they come.
func TestRetriesNeverReuseASignature(t *testing.T) {
	r := newRig(t)
	if err := r.recv.SetMode(pushtest.Unavailable); err != nil {
		t.Fatal(err)
	}
	r.append(t, 1)
	r.start()
	// Retries of one batch come fast (10–80 ms apart) but each is signed
	// anew: let a few of them reach the backend, then let one through.
	waitfor.True(t, "three attempts at the batch", func() bool { return len(r.recv.Signatures()) >= 3 })
	r.recv.SetMode(pushtest.Up)
	r.waitEmpty(t)
	sigs := r.recv.Signatures()
	seen := map[string]bool{}
	for _, s := range sigs {
		if seen[s] {
			t.Fatalf("signature %s sent twice in %d requests", s, len(sigs))
		}
		seen[s] = true
	}
	if len(sigs) < 4 {
		t.Fatalf("only %d attempts: three refused and the one taken", len(sigs))
	}
}

// logCount counts the sender's log records by level, and the lines that
// say delivery is back, as a slog handler (the sender logs from its own
// goroutine while the test reads).
type logCount struct {
	mu           sync.Mutex
	warn, debug  int
	again        int
	againHasSpan bool
}

func (c *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCount) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *logCount) WithGroup(string) slog.Handler            { return c }
func (c *logCount) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch r.Level {
	case slog.LevelWarn:
		c.warn++
	case slog.LevelDebug:
		c.debug++
	}
	if r.Message == "delivering again" {
		c.again++
		r.Attrs(func(a slog.Attr) bool {
			c.againHasSpan = c.againHasSpan || a.Key == "failing_for" && a.Value.Duration() > 0
			return true
		})
	}
	return nil
}

func (c *logCount) counts() (warn, debug, again int, span bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.warn, c.debug, c.again, c.againHasSpan
}

// An outage is one warning, however many retries it takes, and its end one
// line saying how long it lasted; the retries between are debug lines.
// Two outages are two warnings.
func TestOneWarningPerOutage(t *testing.T) {
	r := newRig(t)
	logs := &logCount{}
	r.snd.Log = slog.New(logs)
	r.start()
	for outage := 1; outage <= 2; outage++ {
		if err := r.recv.SetMode(pushtest.Unavailable); err != nil {
			t.Fatal(err)
		}
		r.append(t, 2)
		r.waitFailures(t, 4, "503")
		if err := r.recv.SetMode(pushtest.Up); err != nil {
			t.Fatal(err)
		}
		r.waitEmpty(t)
		warn, debug, again, span := logs.counts()
		if warn != outage || debug < 3*outage || again != outage || !span {
			t.Fatalf("after %d outages of 4+ failed attempts: %d warnings, %d debug lines, %d lines saying delivery is back (with how long it failed: %v)",
				outage, warn, debug, again, span)
		}
	}
}
