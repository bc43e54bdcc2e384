package demo

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Requests inside the window never reach the server; before and after it
// they do, and the window's start and end are told once each.
func TestFlakyFailsOnlyInsideItsWindow(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer srv.Close()
	var now time.Duration
	var fails, recovers int
	f := &Flaky{From: 10 * time.Second, For: 5 * time.Second, Since: func() time.Duration { return now },
		OnFail: func() { fails++ }, OnRecover: func() { recovers++ }}
	c := &http.Client{Transport: f}
	for _, step := range []struct {
		at   time.Duration
		fail bool
	}{{0, false}, {9999 * time.Millisecond, false}, {10 * time.Second, true}, {12 * time.Second, true},
		{14999 * time.Millisecond, true}, {15 * time.Second, false}, {time.Hour, false}} {
		now = step.at
		before := reached.Load()
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		if got := err != nil; got != step.fail {
			t.Errorf("at %s: failed %v (%v), want %v", step.at, got, err, step.fail)
		}
		if got := reached.Load() > before; got == step.fail {
			t.Errorf("at %s: reached the server %v, want %v", step.at, got, !step.fail)
		}
	}
	if fails != 1 || recovers != 1 || f.Failures() != 3 {
		t.Errorf("told %d starts and %d ends, failed %d requests; want 1, 1, 3", fails, recovers, f.Failures())
	}
}
