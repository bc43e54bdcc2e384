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

// reportNotice is a month's notice with its PDF.
func reportNotice(pdf []byte) notify.Notice {
	return notify.Notice{Kind: notify.NoticeReport, Contract: "us-example", Title: "SLA report 2026-11",
		Lines: []notify.Line{{{Text: "Claim "}, {Text: "10.00 USD", Strong: true}}, {{Text: "files: "}, {Text: "2026-11/us-example/", Code: true}}},
		File:  &notify.File{Name: "gpusla-2026-11-us-example.pdf", Title: "SLA report 2026-11", Data: pdf}}
}

// The report is uploaded through Slack's three-step external upload, with
// the notice as the comment in the configured channel.
func TestPostNoticeUploadsFile(t *testing.T) {
	n, up := newUploadBot(t, "C-REPORTS")
	pdf := []byte("%PDF-1.3 test report")
	if err := n.PostNotice(context.Background(), reportNotice(pdf)); err != nil {
		t.Fatal(err)
	}
	uploaded, complete := up.got()
	if !bytes.Equal(uploaded, pdf) {
		t.Fatalf("uploaded %q, want the PDF", uploaded)
	}
	if complete.Get("channel_id") != "C-REPORTS" || complete.Get("initial_comment") != "*SLA report 2026-11*\nClaim *10.00 USD*\nfiles: `2026-11/us-example/`" {
		t.Fatalf("complete call %v", complete)
	}
}

func TestConsoleNotice(t *testing.T) {
	var buf bytes.Buffer
	c := &Console{W: &buf}
	if err := c.PostNotice(context.Background(), reportNotice([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	want := "NOTICE SLA report 2026-11\nClaim 10.00 USD\nfiles: 2026-11/us-example/\n(gpusla-2026-11-us-example.pdf, 1 bytes)\n"
	if buf.String() != want {
		t.Fatalf("console: %q, want %q", buf.String(), want)
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
