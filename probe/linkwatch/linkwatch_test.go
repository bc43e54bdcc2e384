package linkwatch

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/wire"
)

// listen opens a loopback listener on addr ("127.0.0.1:0" for a free
// port) that accepts and closes every connection.
func listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	ln, _ := listenCounting(t, addr)
	return ln
}

// listenCounting is listen that also counts the connections it accepted.
func listenCounting(t *testing.T, addr string) (net.Listener, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln, &accepted
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// recorder collects what a watcher emits; its clock moves 5 s per call,
// so every dial has its own instant.
type recorder struct {
	mu  sync.Mutex
	obs []wire.Observation
	t   time.Time
}

func (r *recorder) emit(o wire.Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs = append(r.obs, o)
}

func (r *recorder) now() time.Time {
	r.t = r.t.Add(5 * time.Second)
	return r.t
}

func (r *recorder) got() []wire.Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.Observation(nil), r.obs...)
}

func newWatcher(addr string, r *recorder) *Watcher {
	r.t = time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("CST", 8*3600))
	return &Watcher{Addr: addr, Every: time.Second, Emit: r.emit, Now: r.now}
}

// A listener that is open, then closed (the port refuses), then open
// again: exactly one fail, dated at the first failed dial and naming the
// last success, then one pass naming when the link went.
func TestOneFailThenOnePassAcrossACut(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	addr := ln.Addr().String()
	r := &recorder{}
	w := newWatcher(addr, r)
	ctx := context.Background()
	w.Check(ctx) // 10:00:05 (+08:00) reached: unknown → reachable, nothing said
	w.Check(ctx) // 10:00:10 reached
	ln.Close()
	w.Check(ctx) // 10:00:15 refused: the fail
	w.Check(ctx) // 10:00:20 refused: already said
	listen(t, addr)
	w.Check(ctx) // 10:00:25 reached: the pass
	w.Check(ctx) // 10:00:30 reached
	got := r.got()
	if len(got) != 2 {
		t.Fatalf("%d observations, want 2 (one fail, one pass): %+v", len(got), got)
	}
	fail, pass := got[0], got[1]
	wantFail := wire.Check{Name: CheckName, Category: wire.CategoryConnectivity, Verdict: wire.Fail,
		Value: "tcp " + addr + " unreachable", Detail: "last reached at 2026-03-01T02:00:10Z; "}
	c := fail.Checks[0]
	if !fail.At.Equal(time.Date(2026, 3, 1, 2, 0, 15, 0, time.UTC)) || fail.At.Location() != time.UTC || fail.Kind != wire.KindCheck ||
		len(fail.Checks) != 1 || c.Name != wantFail.Name || c.Category != wantFail.Category || c.Verdict != wantFail.Verdict ||
		c.Value != wantFail.Value || !strings.HasPrefix(c.Detail, wantFail.Detail) || !strings.Contains(c.Detail, "refused") {
		t.Errorf("fail observation %v %s %+v, want at 02:00:15Z %+v (and the dial error)", fail.At, fail.Kind, fail.Checks, wantFail)
	}
	wantPass := wire.Check{Name: CheckName, Category: wire.CategoryConnectivity, Verdict: wire.Pass,
		Value: "tcp " + addr + " reached", Detail: "unreachable since 2026-03-01T02:00:15Z"}
	if !pass.At.Equal(time.Date(2026, 3, 1, 2, 0, 25, 0, time.UTC)) || pass.Kind != wire.KindCheck ||
		len(pass.Checks) != 1 || pass.Checks[0] != wantPass {
		t.Errorf("pass observation %v %s %+v, want at 02:00:25Z %+v", pass.At, pass.Kind, pass.Checks, wantPass)
	}
	// Both are valid observations of a batch.
	b := wire.Batch{V: wire.Version, ID: "b1", Node: "n1", Seq: 1, CreatedAt: pass.At, Observations: got}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
}

// An address never reached claims nothing, however often it fails; once
// reached (unknown → reachable, still nothing), a later failure is said.
func TestNeverReachedClaimsNothing(t *testing.T) {
	addr := freeAddr(t)
	r := &recorder{}
	w := newWatcher(addr, r)
	for range 3 {
		w.Check(context.Background())
	}
	if got := r.got(); len(got) != 0 || w.State() != Unknown {
		t.Fatalf("never reached, yet %d observations (state %v): %+v", len(got), w.State(), got)
	}
	ln := listen(t, addr)
	w.Check(context.Background())
	if got := r.got(); len(got) != 0 || w.State() != Reachable {
		t.Fatalf("first reach emitted %+v (state %v), want nothing", got, w.State())
	}
	ln.Close()
	w.Check(context.Background())
	if got := r.got(); len(got) != 1 || got[0].Checks[0].Verdict != wire.Fail {
		t.Fatalf("a failure after a success: %+v, want one fail", got)
	}
}

// A dial cut short by the daemon stopping says nothing about the link.
func TestCancelledDialSaysNothing(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	r := &recorder{}
	w := newWatcher(ln.Addr().String(), r)
	w.Check(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.Check(ctx)
	if got := r.got(); len(got) != 0 || w.State() != Reachable {
		t.Fatalf("a cancelled dial emitted %+v (state %v)", got, w.State())
	}
}

// Run dials at its period with the real clock: a cut is seen within a few
// periods, and the link's return too; with no period it returns at once.
func TestRunSeesACutAndItsEnd(t *testing.T) {
	ln, accepted := listenCounting(t, "127.0.0.1:0")
	addr := ln.Addr().String()
	r := &recorder{}
	w := &Watcher{Addr: addr, Every: 20 * time.Millisecond, Emit: r.emit}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	waitFor := func(n int) {
		t.Helper()
		waitfor.True(t, fmt.Sprintf("observation %d", n), func() bool { return len(r.got()) >= n })
	}
	waitfor.True(t, "the link reached a few times", func() bool { return accepted.Load() >= 3 })
	before := time.Now().UTC()
	ln.Close()
	waitFor(1)
	listen(t, addr)
	waitFor(2)
	cancel()
	<-done
	got := r.got()
	if len(got) != 2 || got[0].Checks[0].Verdict != wire.Fail || got[1].Checks[0].Verdict != wire.Pass ||
		got[0].At.Before(before.Add(-time.Second)) || !got[1].At.After(got[0].At) {
		t.Fatalf("got %+v, want a fail after %v then a later pass", got, before)
	}
	off := &Watcher{Addr: addr, Emit: r.emit}
	off.Run(context.Background()) // returns: off
}

func TestTimeoutAndAddr(t *testing.T) {
	for every, want := range map[time.Duration]time.Duration{
		5 * time.Second: 2 * time.Second, time.Second: 500 * time.Millisecond, 20 * time.Millisecond: 10 * time.Millisecond,
	} {
		if got := (&Watcher{Every: every}).Timeout(); got != want {
			t.Errorf("every %v: timeout %v, want %v", every, got, want)
		}
	}
	for raw, want := range map[string]string{
		"https://sla.example.com/v1/batches":      "sla.example.com:443",
		"http://127.0.0.1/v1/batches":             "127.0.0.1:80",
		"http://127.0.0.1:8080/v1/batches":        "127.0.0.1:8080",
		"https://[::1]:8443/v1/batches":           "[::1]:8443",
		"https://abc.lambda-url.aws/v1/batches?x": "abc.lambda-url.aws:443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := Addr(u); got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
}
