package daemon

import (
	"net/http"
	"net/url"

	"github.com/gpusla/gpusla/probe/linkwatch"
	"github.com/gpusla/gpusla/probe/wire"
)

// linkWatcher is the watch of the link to the backend for this config
// (probe/linkwatch: the node's own, finer record of when it lost and
// regained the backend, which the backend's heartbeat dating cannot give),
// or nil when backend.link_check is off or the pushes go through a proxy:
// a direct dial then says nothing of the path the batches take. It dials
// through the push transport's dialer where it has one, so a test or demo
// transport that dials differently is followed.
func (in *instance) linkWatcher() *linkwatch.Watcher {
	every := in.cfg.Backend.LinkEvery
	if every <= 0 {
		return nil
	}
	u, err := url.Parse(in.cfg.Backend.URL)
	if err != nil {
		return nil // config.Load refuses such a URL
	}
	w := &linkwatch.Watcher{Addr: linkwatch.Addr(u), Every: every, Now: in.d.Now, Log: in.d.Log, Emit: in.linkChanged}
	base, _ := in.d.Transport.(*http.Transport)
	if in.d.Transport == nil {
		base, _ = http.DefaultTransport.(*http.Transport)
	}
	if base == nil {
		return w
	}
	if base.Proxy != nil {
		if p, err := base.Proxy(&http.Request{URL: u}); p != nil || err != nil {
			in.d.Log.Info("backend link watch off: pushes go through a proxy", "backend", in.cfg.Backend.URL, "proxy", p, "err", err)
			return nil
		}
	}
	if base.DialContext != nil {
		w.Dial = base.DialContext
	}
	return w
}

// linkChanged spools a link observation like any check: a fail is pushed
// at once (spooled while the link is down, it goes at the first retry
// that gets through), the pass with the next push.
func (in *instance) linkChanged(o wire.Observation) {
	in.met.observe(o.Checks)
	fail := false
	for _, c := range o.Checks {
		fail = fail || c.Verdict == wire.Fail
	}
	in.append([]wire.Observation{o}, fail)
}
