package poll

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gpusla/gpusla/infra/provstatus/provstatustest"
	"github.com/gpusla/gpusla/sla/terms"
)

// fakeDNS answers names from a table; a name with several answers in
// turn gives them one lookup after the other (the last one repeated), as a
// rebinding server does.
type fakeDNS struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	asked   map[string]int
}

func (d *fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	seq, ok := d.answers[host]
	if !ok {
		return nil, errors.New("no such host " + host)
	}
	if d.asked == nil {
		d.asked = map[string]int{}
	}
	i := min(d.asked[host], len(seq)-1)
	d.asked[host]++
	return seq[i], nil
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

// counted is a status page server on 127.0.0.1 that counts its requests
// and redirects /to?u=URL to URL.
func counted(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	page := provstatustest.Document(t, "history.rss")
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if to := r.URL.Query().Get("u"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func port(srv *httptest.Server) string { u, _ := url.Parse(srv.URL); return u.Port() }

// The poller followed a 302 to the metadata service
// and fetched any address the terms named. Now every host is resolved and
// judged before it is asked anything, and again at the dial.
func TestFetchStaysOutside(t *testing.T) {
	srv, hits := counted(t)
	other, otherHits := counted(t)
	dns := &fakeDNS{answers: map[string][][]netip.Addr{
		"status.example.test":   {addrs("127.0.0.1")},
		"public.example.test":   {addrs("93.184.215.14", "127.0.0.1")},        // one answer inside
		"rebind.example.test":   {addrs("93.184.215.14"), addrs("127.0.0.1")}, // public, then loopback
		"metadata.example.test": {addrs("::ffff:169.254.169.254")},            // a mapped metadata address
		"ecs.example.test":      {addrs("fd00:ec2::254")},
	}}
	f := &Fetcher{Resolver: dns}
	named := "http://status.example.test:" + port(srv)
	for _, c := range []struct {
		name  string
		page  *terms.ProviderPage
		want  string
		other bool // the request to reach other's server, not srv
	}{
		{"loopback literal, not allowed", &terms.ProviderPage{URL: srv.URL + "/history.rss"}, "a loopback address", false},
		{"a name resolving to 127.0.0.1, not allowed", &terms.ProviderPage{URL: named + "/history.rss"}, "status.example.test (127.0.0.1)", false},
		{"a public name also answering 127.0.0.1", &terms.ProviderPage{URL: "http://public.example.test:" + port(srv) + "/"}, "public.example.test (127.0.0.1): a loopback address", false},
		{"rebinding between the check and the dial", &terms.ProviderPage{URL: "http://rebind.example.test:" + port(srv) + "/"}, "rebind.example.test (127.0.0.1)", false},
		{"localhost", &terms.ProviderPage{URL: "http://localhost:" + port(srv) + "/"}, "localhost: a loopback address", false},
		{"redirect to the metadata service", local(srv.URL+"/to?u="+url.QueryEscape("http://169.254.169.254/latest/meta-data/iam/security-credentials/"), terms.FormatRSS), "169.254.169.254: a cloud metadata address", false},
		{"redirect to mapped metadata", local(srv.URL+"/to?u="+url.QueryEscape("http://[::ffff:a9fe:a9fe]/latest/"), terms.FormatRSS), "a cloud metadata address", false},
		{"redirect to IPv6 metadata", local(srv.URL+"/to?u="+url.QueryEscape("http://[fd00:ec2::254]/latest/"), terms.FormatRSS), "a cloud metadata address", false},
		{"redirect to a name of metadata", local(srv.URL+"/to?u="+url.QueryEscape("http://metadata.example.test/"), terms.FormatRSS), "metadata.example.test (::ffff:169.254.169.254): a cloud metadata address", false},
		{"redirect to GCP's metadata name", local(srv.URL+"/to?u="+url.QueryEscape("http://metadata.google.internal/computeMetadata/v1/"), terms.FormatRSS), "metadata.google.internal: a cloud metadata address", false},
		{"metadata even when allowed", &terms.ProviderPage{URL: "http://ecs.example.test/", AllowPrivate: true}, "a cloud metadata address", false},
		// The allowance is the page's own host: a redirect from it to another
		// private host is refused.
		{"allowed host redirecting to 127.0.0.1", &terms.ProviderPage{URL: named + "/to?u=" + url.QueryEscape(other.URL+"/history.rss"), Format: terms.FormatRSS, AllowPrivate: true}, "127.0.0.1: a loopback address", true},
	} {
		before, beforeOther := hits.Load(), otherHits.Load()
		_, err := f.Fetch(context.Background(), c.page, Validators{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want refused: %q", c.name, err, c.want)
		}
		if otherHits.Load() != beforeOther {
			t.Errorf("%s: the refused target was asked", c.name)
		}
		if !c.other && !strings.Contains(c.page.URL, "/to?") && hits.Load() != before {
			t.Errorf("%s: the refused page was asked", c.name)
		}
	}
	// Allowed, the page's own host is fetched — through the resolver, and
	// through a redirect that stays on it.
	res, err := f.Fetch(context.Background(), &terms.ProviderPage{URL: named + "/to?u=" + url.QueryEscape(named+"/history.rss"), Format: terms.FormatRSS, AllowPrivate: true}, Validators{})
	if err != nil || len(res.Incidents) != 3 {
		t.Fatalf("the allowed host: %v %v", res, err)
	}
}

// The dialer's own check refuses what the socket would connect to, in case
// an address ever reached it unchecked.
func TestDialControl(t *testing.T) {
	g := guard{allowHost: "status.example.test"}
	for addr, ok := range map[string]bool{"127.0.0.1:80": false, "[::ffff:127.0.0.1]:80": false, "169.254.169.254:80": false, "93.184.215.14:443": true} {
		if err := g.control("other.example.test")("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("control(%s): %v", addr, err)
		}
	}
	if err := g.control("status.example.test")("tcp", "10.0.0.5:80", nil); err != nil {
		t.Errorf("the allowed host at a private address: %v", err)
	}
	if err := g.control("status.example.test")("tcp", "169.254.169.254:80", nil); err == nil {
		t.Error("the allowed host at the metadata address was let through")
	}
}

// A failure's reason carries no byte of the answer: not the body of an
// error page, not a value a parser quotes, not a redirect's URL; at most
// MaxReason runes.
func TestReasonHoldsNoBody(t *testing.T) {
	secret := "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			http.Error(w, secret, http.StatusInternalServerError)
		case "/json":
			_, _ = w.Write([]byte(`{"page":{"id":"x"},"incidents":[{"id":"1","name":"t","created_at":"` + secret + `"}]}`))
		case "/rss":
			_, _ = w.Write([]byte(`<rss version="` + secret + `"><channel></channel></rss>`))
		}
	}))
	defer srv.Close()
	f := &Fetcher{}
	for _, c := range []struct {
		path   string
		format terms.StatusFormat
		want   string
	}{{"/500", terms.FormatStatuspage, "HTTP 500"}, {"/json", terms.FormatStatuspage, "statuspage"}, {"/rss", terms.FormatRSS, "rss.version"}} {
		_, err := f.Fetch(context.Background(), local(srv.URL+c.path, c.format), Validators{})
		if err == nil {
			t.Fatalf("%s: fetched", c.path)
		}
		r := Reason(err)
		if strings.Contains(r, "AKIA") || strings.Contains(r, "EXAMPLEKEY") || !strings.Contains(r, c.want) {
			t.Errorf("%s: reason %q (error %v)", c.path, r, err)
		}
	}
	long := errors.New(strings.Repeat("x", 500) + ` "quoted"`)
	if r := Reason(long); len([]rune(r)) != MaxReason || !strings.HasSuffix(r, "…") {
		t.Errorf("a long reason is %d runes", len([]rune(r)))
	}
	if r := Reason(errors.New("line 3: pubDate: \"Mon, 30 Nov\" is not a date\n\tmore")); r != `line 3: pubDate: "…" is not a date more` {
		t.Errorf("reason %q", r)
	}
}
