package slack

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/slack-go/slack/slacktest"

	"github.com/gpusla/gpusla/infra/notify"
)

// The report is uploaded through Slack's three-step external upload, with
// the summary as the comment in the configured channel.
func TestPostReportUploadsFile(t *testing.T) {
	n, up := newUploadBot(t, "C-REPORTS")
	pdf := []byte("%PDF-1.3 test report")
	if err := n.PostReport(context.Background(), notify.ReportFile{Name: "gpusla-2026-11-us-example.pdf", Title: "SLA report 2026-11",
		Summary: "*SLA report 2026-11* claim 10.00 USD", Data: pdf}); err != nil {
		t.Fatal(err)
	}
	uploaded, complete := up.got()
	if !bytes.Equal(uploaded, pdf) {
		t.Fatalf("uploaded %q, want the PDF", uploaded)
	}
	if complete.Get("channel_id") != "C-REPORTS" || !strings.Contains(complete.Get("initial_comment"), "claim 10.00 USD") {
		t.Fatalf("complete call %v", complete)
	}
}

func TestConsoleReport(t *testing.T) {
	var buf bytes.Buffer
	c := &Console{W: &buf}
	if err := c.PostReport(context.Background(), notify.ReportFile{Name: "r.pdf", Summary: "claim", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if err := c.PostText(context.Background(), "deadline soon"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "REPORT r.pdf (1 bytes)") || !strings.Contains(buf.String(), "NOTICE deadline soon") {
		t.Fatalf("console: %q", buf.String())
	}
}

// uploads records Slack's three-step external upload as slacktest serves it.
type uploads struct {
	mu       sync.Mutex
	uploaded []byte
	complete url.Values
}

func (u *uploads) got() ([]byte, url.Values) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.uploaded, u.complete
}

// newUploadBot is a bot notifier posting to channel, against slacktest
// with the upload steps recorded.
func newUploadBot(t *testing.T, channel string) (*Notifier, *uploads) {
	up := &uploads{}
	var srvURL string
	srv := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/files.getUploadURLExternal", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"ok":true,"upload_url":%q,"file_id":"F123"}`, srvURL+"/upload-target")
		})
		c.Handle("/upload-target", func(w http.ResponseWriter, r *http.Request) {
			up.mu.Lock()
			defer up.mu.Unlock()
			_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if b := params["boundary"]; b != "" {
				mr := multipart.NewReader(r.Body, b)
				if p, err := mr.NextPart(); err == nil {
					up.uploaded, _ = io.ReadAll(p)
				}
			} else {
				up.uploaded, _ = io.ReadAll(r.Body)
			}
			w.WriteHeader(200)
		})
		c.Handle("/files.completeUploadExternal", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			up.mu.Lock()
			up.complete, _ = url.ParseQuery(string(body))
			up.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok":true,"files":[{"id":"F123","title":"SLA report"}]}`)
		})
	})
	srv.Start()
	t.Cleanup(srv.Stop)
	srvURL = strings.TrimSuffix(srv.GetAPIURL(), "/")
	n, err := New(Config{BotToken: "xoxb-test", Channel: channel, APIURL: srv.GetAPIURL()})
	if err != nil {
		t.Fatal(err)
	}
	return n, up
}
