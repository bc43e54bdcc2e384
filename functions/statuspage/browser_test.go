package statuspage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	demonode "github.com/gpusla/gpusla/functions/demo"
	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
)

const browserToken = "browser-test-status-token-0123456789"

// demoTerms are the demo node's contract for this test: cn-example's terms
// (Asia/Shanghai, documents in Chinese) under the id "demo", on the public
// page showing the GPUs.
func demoTerms(t *testing.T, dir string) {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(raw), "contract: cn-example ", "contract: demo ", 1)
	if doc == string(raw) {
		t.Fatal("cn-example.yaml: no contract line to rename")
	}
	doc += "\nstatus_page:\n  public: true\n  show: [gpus]\n"
	if err := os.MkdirAll(filepath.Join(dir, "terms"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terms", "demo.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// seedDemo registers the demo node as `gpusla serve` does and gives it a
// past: a two-hour outage three days ago, alerted, with a ticket the
// provider answered, and a 30-second GPU loss (below the contract's
// one-minute minimum: not counted) the day before.
func seedDemo(t *testing.T, data string, now time.Time) {
	t.Helper()
	st, box, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.DiscardHandler)
	svc, err := app.New(app.Config{Store: st, Notifier: wiring.NoNotifier{}, Box: box, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := demonode.Setup(ctx, demonode.Config{Mode: "on", Data: data}, svc, st, box, log); err != nil {
		t.Fatal(err)
	}
	first := now.AddDate(0, 0, -10)
	if _, err := st.PutState(ctx, store.NodeState{Node: demonode.NodeID, LastReceivedAt: now.Add(-time.Minute), LastHeartbeatAt: now.Add(-time.Minute), FirstHeartbeatAt: first}, 0); err != nil {
		t.Fatal(err)
	}
	out := now.AddDate(0, 0, -3).Truncate(time.Hour)
	blip := now.AddDate(0, 0, -4).Truncate(time.Hour)
	incs := []store.Incident{
		{Node: demonode.NodeID, Kind: "unreachable", Start: out, End: out.Add(2 * time.Hour), ConfirmedAt: out.Add(15 * time.Second), Counted: true, Cause: "no_data",
			Evidence: "no heartbeat from demo-host.lan (192.168.77.12)"},
		{Node: demonode.NodeID, Kind: "gpu_lost", Check: "gpu.count", Start: blip, End: blip.Add(30 * time.Second), Counted: true, Cause: "check_failed",
			Failed: []notify.FailedCheck{{Name: "gpu.count", Verdict: "fail", Value: "1 of 2 GPUs"}}},
	}
	for _, inc := range incs {
		inc.ID = store.CheckIncidentID(inc.Kind, inc.Start, inc.Check)
		if err := st.CreateIncident(ctx, inc); err != nil {
			t.Fatal(err)
		}
	}
	unreachableID := store.IncidentID("unreachable", out)
	if err := st.CreateAlert(ctx, store.AlertRecord{Node: demonode.NodeID, IncidentID: unreachableID, Kind: notify.AlertUnreachable, Version: 1,
		CreatedAt: out.Add(15 * time.Second), SentAt: out.Add(20 * time.Second), Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms(filepath.Join(data, "terms"))
	if err != nil {
		t.Fatal(err)
	}
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	tk, _, err := desk.Open(ctx, app.OpenRequest{Node: demonode.NodeID, Priority: "P1", Summary: "demo-host.lan down", ProviderRef: "GZ-TICKET-4411",
		At: out.Add(10 * time.Minute), By: "ops", Key: "k", IncidentID: unreachableID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := desk.Record(ctx, tk.ID, app.EventRequest{Type: "provider_responded", At: out.Add(25 * time.Minute), Key: "r"}); err != nil {
		t.Fatal(err)
	}
}

// TestPageInHeadlessChromium runs `gpusla serve` (serve.Run, the demo on)
// on loopback with the demo node's data and loads the status page in
// Debian's headless Chromium, public and with the token, in Chinese (the
// contract's language) and English: the rendered DOM shows the legend,
// the past outage's timeline in Asia/Shanghai time with the zone named,
// the verdicts with their reasons, the language, and in public none of the
// node's names or addresses. Each view is also taken as a 1280-wide PNG
// (kept in $GPUSLA_SCREENSHOT_DIR when set: docs/img/ holds them).
func TestPageInHeadlessChromium(t *testing.T) {
	bin := testenv.Chromium(t)
	if out, err := exec.Command("fc-list", ":lang=zh", "family").Output(); err != nil || len(bytes.TrimSpace(out)) == 0 {
		// Without one the Chinese screenshots show boxes (scripts/setup.sh
		// installs fonts-noto-cjk).
		testenv.Missing(t, "no CJK font (fc-list :lang=zh): %v", err)
	}
	data := t.TempDir()
	demoTerms(t, data)
	now := time.Now().UTC()
	seedDemo(t, data, now)
	// A provider scorecard stored as the report job stores one, in this
	// month's folder so that it is the newest (the job's start-up run
	// stores last month's, which has no node in service): sla/scorecard's
	// golden two providers.
	sc := filepath.Join(data, wiring.ReportsDir, now.Format("2006-01"), "demo", "scorecard.json")
	if err := os.MkdirAll(filepath.Dir(sc), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sc, statuspage.GoldenScorecard(t), 0o600); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := serve.Config{Listen: addr, Data: data, Watchdog: "@every 1m", Demo: "on"}
	if err := c.Validate("test"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, c, wiring.Env{StatusToken: browserToken}, true, slog.New(slog.DiscardHandler))
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	base := "http://" + addr
	var page statuspage.Page
	waitfor.True(t, "serve's status page up", func() bool {
		resp, err := http.Get(base + statuspage.PathJSON)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return json.NewDecoder(resp.Body).Decode(&page) == nil && resp.StatusCode == 200
	})
	// No empty report at start-up: the report job ran at start for last
	// month (in Shanghai) once its delay passed, a month before the demo
	// node existed; the page offers no report with no data.
	sh, _ := time.LoadLocation("Asia/Shanghai")
	local := now.In(sh)
	monthStart := time.Date(local.Year(), local.Month(), 1, 0, 0, 0, 0, sh)
	if now.After(monthStart.Add(app.DefaultReportDelay + time.Minute)) {
		prev := filepath.Join(data, wiring.ReportsDir, monthStart.AddDate(0, -1, 0).Format("2006-01"), "demo", "report.json")
		waitfor.True(t, "the start-up report job's "+prev, func() bool {
			_, err := os.Stat(prev)
			return err == nil
		})
	} else {
		t.Logf("last month's report is not due yet (%s + %s): the start-up report is not checked", monthStart, app.DefaultReportDelay)
	}

	args := func(extra ...string) []string {
		return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=3000"}, extra...)
	}
	run := func(a []string) []byte {
		cctx, ccancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer ccancel()
		cmd := exec.CommandContext(cctx, bin, a...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", a, err, errb.String())
		}
		return out.Bytes()
	}
	private := []string{demonode.NodeID, "demo-provider", "demo-host.lan", "192.168.77.12", "GZ-TICKET-4411", "1 of 2 GPUs",
		"Alpha", `<table class="scorecard"`, "2.60 h", "下单到交付"}
	for _, v := range []struct {
		mode, lang, query string
		want              []string
	}{
		// Chinese: the contract's report.lang, with no ?lang.
		{"public", "zh", "", []string{`<html lang="zh-CN" data-mode="public">`, "公开视图", "图例", `type="application/atom+xml"`, "事件订阅（Atom）", "无计入的故障", "可用率不低于99.9 %", "无数据（尚未投入服务）",
			"事件历史", "开始（第一次失败的观测）", "后端确认", "已发送告警", "工单已提交（P1）", "服务商已响应", "结束（已修复）",
			"（北京时间）", "是：计入2小时（共2小时）", "否：所在的故障持续时间短于合同规定的最短1分钟", `<b lang="zh">中文</b>`, `href="/status?lang=en"`,
			"报告仅在团队视图中列出。"}},
		{"public", "en", "?lang=en", []string{`<html lang="en" data-mode="public">`, "Public view", "Legend", "GPU lost", "check failed", "no counted outage", "at least 99 % up",
			"started (the first failing observation)", "confirmed by the backend", "alert sent", "ticket opened (P1)", "provider responded", "ended (repaired)",
			"+08:00 Asia/Shanghai", "yes: 2h of 2h counted", "no: part of an outage run shorter than the contract's minimum of 1m", `<b lang="en">English</b>`}},
		{"private", "zh", "?token=" + browserToken, []string{`data-mode="private"`, "团队视图", demonode.NodeID, "demo-provider", "192.168.77.12", "GZ-TICKET-4411", "事件历史", "（北京时间）",
			// The generated time in the page's zone; the provider's ticket number.
			"生成于" + time.Now().In(sh).Format("2006年1月2日"), `<span class="muted provider-ref">GZ-TICKET-4411</span>`, "服务商工单号",
			// The scorecard tab, its as-of instant in the demo contract's zone.
			`<table class="scorecard">`, "服务商评分卡", "服务商评分卡2026", "下单到交付 p90", "第2 / 2名", "2.60 h（n=3）", "40.0 min（观测过少：n=1 &lt; 3）", "2026年4月5日 08:00:00（北京时间）"}},
		{"private", "en", "?lang=en&token=" + browserToken, []string{`data-mode="private"`, "Team view", demonode.NodeID, "demo-provider", "1 of 2 GPUs", "ticket ", "Incident history",
			"+08:00 Asia/Shanghai; refreshes every minute", `<span class="muted provider-ref">GZ-TICKET-4411</span>`,
			`<table class="scorecard">`, "Provider scorecard March 2026", "order to delivery, p90", "#2 of 2", "2.60 h (n=3)", "40.0 min (too few: n=1 &lt; 3)", "2026-04-05 08:00:00 +08:00 Asia/Shanghai"}},
	} {
		t.Run(v.mode+"-"+v.lang, func(t *testing.T) {
			url := base + statuspage.PathStatus + v.query
			dom := string(run(args("--dump-dom", url)))
			for _, w := range v.want {
				if !strings.Contains(dom, w) {
					t.Errorf("%s %s page in chromium lacks %q", v.mode, v.lang, w)
				}
			}
			if strings.Count(dom, `<li data-class=`) != 5 {
				t.Errorf("legend: %d entries, want 5", strings.Count(dom, `<li data-class=`))
			}
			if n := len(regexp.MustCompile(`<tr class="past-incident"`).FindAllString(dom, -1)); n < 2 {
				t.Errorf("history: %d incidents, want the two seeded", n)
			}
			// The overall status: which one depends on where the demo's
			// timeline is (its pushes fail for a while), so any of them,
			// in the page's language.
			banner := map[string]string{"zh": `(全部节点运行正常|故障：1/1 个节点故障或无法访问|部分降级：1/1 个节点)`,
				"en": `(All nodes operational|Outage: 1 of 1 nodes down or unreachable|Degraded: 1 of 1 nodes)`}[v.lang]
			if !regexp.MustCompile(`<div class="banner (ok|down|degraded)" role="status">` + banner).MatchString(dom) {
				t.Errorf("%s %s page: no overall status banner", v.mode, v.lang)
			}
			// The zone as readers name it, not its IANA name.
			zone := map[string]string{"zh": `">北京时间</td>`, "en": `">China Standard Time</td>`}[v.lang]
			if !strings.Contains(dom, `<td class="zone" data-label="`) || !strings.Contains(dom, zone) {
				t.Errorf("the node's zone is not shown as %s", zone)
			}
			// The script ran: the last-heard timer ticked in the page's
			// language, from its first unit that is not zero (1分5秒前, 1m 5s ago).
			ticked := map[string]string{"zh": `(\d+(天|小时|分))*\d+秒前`, "en": `(\d+[dhm] )*\d+s ago`}[v.lang]
			if !regexp.MustCompile(`data-since="\d+" data-ticked="1">` + ticked + `<`).MatchString(dom) {
				t.Errorf("the last-heard timer did not tick in %s", v.lang)
			}
			for _, raw := range []string{"check_failed", "no_connectivity_evidence", "gpu_lost<", "性能降级", "recorded snapshots"} {
				if strings.Contains(dom, raw) {
					t.Errorf("%s %s page shows %q", v.mode, v.lang, raw)
				}
			}
			if v.mode == "public" {
				for _, s := range private {
					if strings.Contains(dom, s) {
						t.Errorf("public page shows %q", s)
					}
				}
				if !regexp.MustCompile(`data-node="node-[0-9a-f]{8}"`).MatchString(dom) {
					t.Errorf("public page: no labelled node")
				}
			}
			if v.mode == "private" && regexp.MustCompile(`<li class="report"`).MatchString(dom) {
				t.Errorf("a report is offered, but every stored month predates the demo node:\n%s", dom)
			}
			if v.mode == "private" {
				// Two providers, twelve headline figures each; too few:
				// Alpha's off-hours response time and share within 1 h.
				if n := strings.Count(dom, `<tr class="score-row"`); n != 2 {
					t.Errorf("scorecard: %d provider rows, want 2", n)
				}
				if n := strings.Count(dom, `class="score-cell`); n != 24 {
					t.Errorf("scorecard: %d cells, want 24", n)
				}
				if n := strings.Count(dom, `class="score-cell toofew"`); n != 2 {
					t.Errorf("scorecard: %d too-few cells, want 2 (Alpha's off-hours response)", n)
				}
			}
			// A desktop and a phone, each as a PNG; at 400 px the day bars
			// (the last 30 days) are on screen whole.
			for _, w := range []struct {
				suffix string
				w, h   int
			}{{"", 1280, 1500}, {"-phone", 400, 1600}} {
				shot := filepath.Join(t.TempDir(), "status.png")
				if dir := os.Getenv("GPUSLA_SCREENSHOT_DIR"); dir != "" {
					shot = filepath.Join(dir, fmt.Sprintf("status-%s-%s%s.png", v.mode, v.lang, w.suffix))
				}
				run(args("--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", w.w, w.h), "--hide-scrollbars", url))
				img := readPNG(t, shot)
				if b := img.Bounds(); b.Dx() != w.w || b.Dy() != w.h {
					t.Fatalf("screenshot %v, want %d×%d", b, w.w, w.h)
				}
				if w.suffix == "-phone" {
					barsOnScreen(t, img, 30)
				}
			}
			if v.mode != "private" {
				return
			}
			// The scorecard tab on its own (docs/img/status-scorecard-*.png):
			// the page's last section, cut from a shot of the whole page.
			full := filepath.Join(t.TempDir(), "full.png")
			run(args("--screenshot="+full, "--window-size=1280,4000", "--hide-scrollbars", url))
			out := filepath.Join(t.TempDir(), "scorecard.png")
			if dir := os.Getenv("GPUSLA_SCREENSHOT_DIR"); dir != "" {
				out = filepath.Join(dir, fmt.Sprintf("status-scorecard-%s.png", v.lang))
			}
			lastSection(t, full, out, 560)
		})
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return img
}

// barColours are the day bars' fills (page.html.tmpl: ok, minor, major,
// down, none), as 8-bit RGB.
var barColours = [][3]uint32{{0x2e, 0x7d, 0x32}, {0x9c, 0xcc, 0x65}, {0xf9, 0xa8, 0x25}, {0xc6, 0x28, 0x28}, {0xe0, 0xe4, 0xe8}}

func isBar(c [3]uint32) bool {
	for _, b := range barColours {
		if c == b {
			return true
		}
	}
	return false
}

// barsOnScreen finds a pixel row crossing at least n separate runs of the
// bars' colours (the 1 px gaps between days part them) whose last run ends
// inside the screen, short of its right edge: the node's day bars drawn
// whole, not cut off by a table wider than the phone.
func barsOnScreen(t *testing.T, img image.Image, n int) {
	t.Helper()
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		runs, in, end := 0, false, 0
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			bar := isBar([3]uint32{r >> 8, g >> 8, bl >> 8})
			if bar && !in {
				runs++
			}
			if bar {
				end = x
			}
			in = bar
		}
		if runs >= n && end < b.Max.X-4 {
			return
		}
	}
	t.Errorf("no row of the %d-wide screenshot shows %d day bars whole", b.Dx(), n)
}

// lastSection cuts the bottom h rows of what the screenshot in shows (up to
// its last row that is not blank) into out, and fails if they are blank.
func lastSection(t *testing.T, in, out string, h int) {
	t.Helper()
	img := readPNG(t, in)
	b := img.Bounds()
	blank := func(y int) bool {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				return false
			}
		}
		return true
	}
	last := b.Max.Y - 1
	for last > b.Min.Y && blank(last) {
		last--
	}
	if last <= b.Min.Y+h {
		t.Fatalf("screenshot %v: nothing drawn below the first %d rows", b, h)
	}
	crop := image.Rect(b.Min.X, last+24-h, b.Max.X, min(last+24, b.Max.Y))
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		t.Fatalf("screenshot %T cannot be cut", img)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, sub.SubImage(crop)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
