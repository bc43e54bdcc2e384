package demo

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Flaky is an http.RoundTripper that fails every request while Since()
// is in [From, From+For), as a cut network link would, and otherwise hands
// it to Next (nil: net/http's default transport). OnFail and OnRecover,
// when set, are called once as the failing window begins and ends.
type Flaky struct {
	From, For time.Duration
	Since     func() time.Duration
	Next      http.RoundTripper
	OnFail    func()
	OnRecover func()

	mu       sync.Mutex
	failing  bool
	failures int
}

// RoundTrip fails the request inside the window, as a dropped connection:
// the request never reaches the backend.
func (f *Flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	el := f.Since()
	in := el >= f.From && el < f.From+f.For
	f.mu.Lock()
	was := f.failing
	f.failing = in
	if in {
		f.failures++
	}
	f.mu.Unlock()
	switch {
	case in && !was && f.OnFail != nil:
		f.OnFail()
	case !in && was && f.OnRecover != nil:
		f.OnRecover()
	}
	if in {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("demo: link down for %s more", (f.From + f.For - el).Round(time.Second))
	}
	next := f.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// Failures is how many requests were failed.
func (f *Flaky) Failures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failures
}
