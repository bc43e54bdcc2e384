package poll

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus/provstatustest"
	"github.com/gpusla/gpusla/sla/terms"
)

// page serves a recorded document with an ETag and Last-Modified, and
// answers a matching conditional request with 304, as a status page's CDN
// does.
func page(t *testing.T, file, ctype string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	body := provstatustest.Document(t, file)
	var full atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `W/"v1"`)
		w.Header().Set("Last-Modified", "Mon, 30 Nov 2026 10:05:11 GMT")
		if r.Header.Get("If-None-Match") == `W/"v1"` || r.Header.Get("If-Modified-Since") == "Mon, 30 Nov 2026 10:05:11 GMT" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &full
}

// local is a page on a test server: on 127.0.0.1, so allowed explicitly
// (provider_status_page.allow_private), as the terms must for any page
// inside a network.
func local(url string, format terms.StatusFormat) *terms.ProviderPage {
	return &terms.ProviderPage{URL: url, Format: format, AllowPrivate: true}
}

func TestFetchEachFormatConditionally(t *testing.T) {
	for _, c := range []struct {
		format       terms.StatusFormat
		file, ctype  string
		firstTitle   string
		wantOpenLast bool
	}{
		{terms.FormatStatuspage, "incidents.json", "application/json", "GPU instances unreachable in cn-east-2", false},
		{terms.FormatRSS, "history.rss", "application/rss+xml", "GPU instances unreachable in cn-east-2", true},
		{terms.FormatAtom, "history.atom", "application/atom+xml", "GPU instances unreachable in cn-east-2", true},
	} {
		t.Run(string(c.format), func(t *testing.T) {
			srv, full := page(t, c.file, c.ctype)
			f := &Fetcher{UserAgent: "gpusla-test"}
			res, err := f.Fetch(context.Background(), local(srv.URL+"/"+c.file, c.format), Validators{})
			if err != nil {
				t.Fatal(err)
			}
			if res.NotModified || len(res.Incidents) != 3 || res.Incidents[0].Title != c.firstTitle ||
				res.Validators.ETag != `W/"v1"` || res.Validators.LastModified != "Mon, 30 Nov 2026 10:05:11 GMT" || res.Bytes == 0 {
				t.Fatalf("first fetch %+v", res)
			}
			if got := !res.Incidents[2].Resolved; got != c.wantOpenLast {
				t.Fatalf("incident 2 resolved = %v", res.Incidents[2].Resolved)
			}
			// Sent back, either validator gets a 304 and nothing to parse.
			for _, v := range []Validators{res.Validators, {ETag: `W/"v1"`}, {LastModified: res.Validators.LastModified}} {
				again, err := f.Fetch(context.Background(), local(srv.URL+"/"+c.file, c.format), v)
				if err != nil || !again.NotModified || again.Incidents != nil || again.Validators != v {
					t.Fatalf("conditional fetch with %+v: %+v, %v", v, again, err)
				}
			}
			if full.Load() != 1 {
				t.Fatalf("%d full responses, want 1", full.Load())
			}
		})
	}
}

func TestFetchRefuses(t *testing.T) {
	big := strings.Repeat("x", 2048)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			http.Error(w, "upstream exploded", http.StatusInternalServerError)
		case "/big":
			_, _ = w.Write([]byte(big)) // Content-Length is set
		case "/big-chunked":
			w.(http.Flusher).Flush() // no Content-Length: the limit is found while reading
			_, _ = w.Write([]byte(big))
		case "/slow":
			<-r.Context().Done()
		case "/304":
			w.WriteHeader(http.StatusNotModified)
		case "/html":
			_, _ = w.Write([]byte("<html><body>Our status page moved</body></html>"))
		}
	}))
	defer srv.Close()
	f := &Fetcher{MaxBytes: 1024, Timeout: 200 * time.Millisecond}
	for _, c := range []struct {
		path   string
		format terms.StatusFormat
		msg    string
	}{
		{"/500", terms.FormatStatuspage, `HTTP 500 Internal Server Error`},
		{"/big", terms.FormatStatuspage, "2048 bytes announced, more than the 1024"},
		{"/big-chunked", terms.FormatStatuspage, "body larger than the 1024 bytes"},
		{"/slow", terms.FormatStatuspage, "no answer within 200ms"},
		{"/304", terms.FormatStatuspage, "not conditional"},
		{"/html", terms.FormatAtom, "root is <html>"},
		{"/html", terms.FormatStatuspage, "not JSON"},
	} {
		_, err := f.Fetch(context.Background(), local(srv.URL+c.path, c.format), Validators{})
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), srv.URL+c.path) {
			t.Errorf("%s (%s): got %v, want the URL and %q", c.path, c.format, err, c.msg)
		}
		if err != nil && strings.Contains(err.Error(), "upstream exploded") {
			t.Errorf("%s: the error carries the answer's body: %v", c.path, err)
		}
	}
	if _, err := Parse("html", nil, nil); err == nil || !strings.Contains(err.Error(), `"html"`) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestBackoff(t *testing.T) {
	for _, c := range []struct {
		every    time.Duration
		failures int
		want     time.Duration
	}{
		{5 * time.Minute, 0, 5 * time.Minute},
		{5 * time.Minute, 1, 10 * time.Minute},
		{5 * time.Minute, 3, 40 * time.Minute},
		{5 * time.Minute, 7, 6 * time.Hour}, // 640 min, capped
		{5 * time.Minute, 1000, 6 * time.Hour},
		{24 * time.Hour, 2, 24 * time.Hour}, // never shorter than the schedule
	} {
		if got := Backoff(c.every, c.failures); got != c.want {
			t.Errorf("Backoff(%s, %d) = %s, want %s", c.every, c.failures, got, c.want)
		}
	}
}

func TestFetchRedirects(t *testing.T) {
	page := provstatustest.Document(t, "history.rss")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/history.rss", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/history.rss":
			_, _ = w.Write(page)
		}
	}))
	defer srv.Close()
	f := &Fetcher{}
	if res, err := f.Fetch(context.Background(), local(srv.URL+"/moved", terms.FormatRSS), Validators{}); err != nil || len(res.Incidents) != 3 {
		t.Fatalf("a moved page: %v, %v", res, err)
	}
	if _, err := f.Fetch(context.Background(), local(srv.URL+"/loop", terms.FormatRSS), Validators{}); err == nil || !strings.Contains(err.Error(), "more than 5 redirects") {
		t.Fatalf("a redirect loop: %v", err)
	}
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+"/history.rss", http.StatusFound)
	}))
	defer tls.Close()
	f = &Fetcher{TLS: tls.Client().Transport.(*http.Transport).TLSClientConfig}
	if _, err := f.Fetch(context.Background(), local(tls.URL+"/x", terms.FormatRSS), Validators{}); err == nil || !strings.Contains(err.Error(), "from https to http") {
		t.Fatalf("a downgrade: %v", err)
	}
}

// An RSS page of a Chinese provider dates its items in "CST": read in the
// page's zone (the contract's Asia/Shanghai) it is +08:00, not US Central
// (a 14-hour shift).
func TestFetchReadsZoneNamesInThePageZone(t *testing.T) {
	doc := `<rss version="2.0"><channel><item><guid>inc-1</guid><title>GPU 节点不可达</title><pubDate>Mon, 30 Nov 2026 18:15:00 CST</pubDate></item></channel></rss>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(doc)) }))
	defer srv.Close()
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	page := local(srv.URL, terms.FormatRSS)
	page.Zone = sh
	res, err := (&Fetcher{}).Fetch(context.Background(), page, Validators{})
	if err != nil || len(res.Incidents) != 1 {
		t.Fatalf("fetch: %+v %v", res, err)
	}
	if got, want := res.Incidents[0].Start, time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("started %s, want %s (18:15 China Standard Time)", got, want)
	}
}
