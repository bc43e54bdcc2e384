package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify/route"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/wire"
)

// TestServeAlertLink, end to end through `gpusla serve`: a node's lost GPU
// opens an incident; the alert reaches a Feishu bot (a receiver on
// loopback) as a card whose button is the signed link; the link, fetched
// from serve as a browser would, shows the Chinese confirmation page (the
// contract's report.lang); its form's POST opens the hardware ticket with
// the evidence pack written; posting again answers "already requested".
func TestServeAlertLink(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(filepath.Join(data, wiring.TermsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, wiring.TermsDir, "cn.yaml"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	st, box, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: wiring.NoNotifier{}, Box: box, Log: wiring.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "acme", Contract: "cn-example",
		OrderedAt: time.Now().Add(-time.Hour), GPUModel: "H200", GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	// The Feishu bot: records each card, answers as Feishu does.
	var mu sync.Mutex
	var cards []json.RawMessage
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MsgType string          `json:"msg_type"`
			Card    json.RawMessage `json:"card"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/open-apis/bot/v2/hook/tok" || json.Unmarshal(body, &req) != nil || req.MsgType != "interactive" {
			w.Write([]byte(`{"code":19001,"msg":"param invalid"}`))
			return
		}
		mu.Lock()
		cards = append(cards, req.Card)
		mu.Unlock()
		w.Write([]byte(`{"code":0,"msg":"success"}`))
	}))
	defer bot.Close()
	alerts, err := route.Parse("test.yaml", []byte("alerts:\n  channels:\n    ops:\n      type: feishu\n      webhook_url: "+bot.URL+"/open-apis/bot/v2/hook/tok\n"))
	if err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	c := Config{Listen: addr, Data: data, Watchdog: "@every 1m", Demo: "off", Alerts: alerts}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, c, wiring.Env{PublicURL: base}, true, slog.New(slog.DiscardHandler)) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	waitfor.True(t, "serve up", func() bool {
		resp, err := http.Get(base + httpapi.PathHealth)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})

	// The node reports 7 of 8 GPUs.
	p := &apptest.Probe{Node: n.ID, Secret: secret}
	now := time.Now().UTC()
	_, body := p.Batch(now, wire.Observation{At: now, Kind: wire.KindHeartbeat}, apptest.Check(now,
		wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}))
	ir := p.Request(now, body)
	req, _ := http.NewRequest(http.MethodPost, base+httpapi.PathBatches, bytes.NewReader(body))
	req.Header.Set(wire.HeaderNode, ir.Node)
	req.Header.Set(wire.HeaderTimestamp, ir.Timestamp)
	req.Header.Set(wire.HeaderSignature, ir.Signature)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ingest: %d", resp.StatusCode)
	}

	// The card arrives (the sender goroutine) with the button.
	var link string
	waitfor.True(t, "a card with a button at the bot", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, raw := range cards {
			var card struct {
				Elements []struct {
					Tag     string `json:"tag"`
					Actions []struct {
						Tag, Type, URL string
					} `json:"actions"`
				} `json:"elements"`
			}
			_ = json.Unmarshal(raw, &card)
			for _, e := range card.Elements {
				for _, a := range e.Actions {
					if e.Tag == "action" && a.Tag == "button" {
						link = a.URL
					}
				}
			}
		}
		return link != ""
	})
	if !strings.HasPrefix(link, base+actionlink.PathReplacement+"?") {
		t.Fatalf("the button opens %q, want a link under %s", link, base)
	}

	get := func(u string) (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, page := get(link)
	if code != http.StatusOK || !strings.Contains(page, "申请更换物理机") || !strings.Contains(page, "GPU 掉卡") {
		t.Fatalf("GET the link: %d\n%s", code, page)
	}
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([a-z]+)" value="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		form.Set(m[1], strings.ReplaceAll(m[2], "&#43;", "+"))
	}
	action := regexp.MustCompile(`<form method="post" action="([^"]+)">`).FindStringSubmatch(page)
	if len(action) != 2 {
		t.Fatalf("no form on the page:\n%s", page)
	}
	target, _ := url.Parse(link)
	target = target.ResolveReference(&url.URL{Path: action[1]})
	post := func() (int, string) {
		resp, err := http.PostForm(target.String(), form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, answer := post()
	if code != http.StatusCreated || !strings.Contains(answer, "已申请更换：硬件工单 T-") || !strings.Contains(answer, "请更换物理机") {
		t.Fatalf("POST the form: %d\n%s", code, answer)
	}
	packs, _ := filepath.Glob(filepath.Join(data, "replacements", "*.zip"))
	if len(packs) != 1 {
		t.Fatalf("evidence packs in the data folder: %v", packs)
	}
	code, again := post()
	if code != http.StatusConflict || !strings.Contains(again, "已申请过") {
		t.Fatalf("POST again: %d\n%s", code, again)
	}
}
