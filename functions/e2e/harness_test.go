package e2e

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slack-go/slack/slacktest"
	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// The binaries under test, built once by TestMain.
var bin struct{ gpusla, gpuprobe string }

// root is the module root (the README's commands run there).
var root = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}()

// terms is the contract the tests' nodes are rented under.
var terms = filepath.Join(root, "functions", "e2e", "testdata", "terms.yaml")

// Snapshots replayed as GPU readings (probe config gpu_snapshot).
var (
	snapHealthy  = filepath.Join(root, "probe", "checkrun", "testdata", "snapshots", "h200x2-real.json")
	snapDegraded = filepath.Join(root, "probe", "checkrun", "testdata", "snapshots", "h200-remap-pending-xid79.json")
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		dir, err := os.MkdirTemp("", "gpusla-e2e-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin.gpusla, bin.gpuprobe = filepath.Join(dir, "gpusla"), filepath.Join(dir, "gpuprobe")
		for out, pkg := range map[string]string{bin.gpusla: "./functions/cmd/gpusla", bin.gpuprobe: "./probe/cmd/gpuprobe"} {
			cmd := exec.Command("go", "build", "-o", out, pkg)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "e2e: go build %s: %v\n%s", pkg, err, b)
				return 1
			}
		}
		return m.Run()
	}()
	dynamotest.Stop()
	os.Exit(code)
}

// ---- Slack -----------------------------------------------------------------

// slackMsg is one chat.postMessage the backend made.
type slackMsg struct {
	Channel, Text, Thread, TS string
	Broadcast                 bool
}

// fakeSlack is a slacktest server whose chat.postMessage records every
// message with a unique ts (so threads can be followed), plus a
// response_url endpoint for slash-command answers.
type fakeSlack struct {
	srv       *slacktest.Server
	mu        sync.Mutex
	msgs      []slackMsg
	responses []string
	n         int
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{}
	f.srv = slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", f.post)
		c.Handle("/response", f.respond)
	})
	f.srv.Start()
	t.Cleanup(f.srv.Stop)
	return f
}

func (f *fakeSlack) post(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	f.mu.Lock()
	f.n++
	m := slackMsg{Channel: r.Form.Get("channel"), Text: r.Form.Get("text"), Thread: r.Form.Get("thread_ts"),
		TS: fmt.Sprintf("%d.%06d", time.Now().Unix(), f.n), Broadcast: r.Form.Get("reply_broadcast") == "true"}
	f.msgs = append(f.msgs, m)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS})
}

func (f *fakeSlack) respond(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(b, &m)
	f.mu.Lock()
	f.responses = append(f.responses, m.Text)
	f.mu.Unlock()
}

// apiURL is the base URL slack-go is pointed at.
func (f *fakeSlack) apiURL() string { return f.srv.GetAPIURL() }

// responseURL is where slash-command answers go.
func (f *fakeSlack) responseURL() string {
	return strings.TrimSuffix(f.srv.GetAPIURL(), "/") + "/response"
}

// messages returns the messages whose text starts with prefix.
func (f *fakeSlack) messages(prefix string) []slackMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []slackMsg
	for _, m := range f.msgs {
		if strings.HasPrefix(m.Text, prefix) {
			out = append(out, m)
		}
	}
	return out
}

func (f *fakeSlack) all() []slackMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]slackMsg(nil), f.msgs...)
}

func (f *fakeSlack) slashResponses() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.responses...)
}

// ---- processes -------------------------------------------------------------

// syncBuf is an io.Writer safe for a child's output and the test's reads.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a running child process.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuf
	done chan struct{}
	err  error
}

func startProc(t *testing.T, out *syncBuf, env []string, prefix []string, name string, args ...string) *proc {
	t.Helper()
	argv := append(append([]string{}, prefix...), name)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{cmd: cmd, out: out, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM and waits (up to 20 s) for a clean exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.kill()
		t.Fatalf("%s did not stop within 20 s of SIGTERM", p.cmd.Path)
	}
	if p.err != nil {
		t.Fatalf("%s exited with %v after SIGTERM:\n%s", filepath.Base(p.cmd.Path), p.err, tail(p.out.String(), 3000))
	}
}

// kill is kill -9 of the process group (so `ip netns exec` children too).
func (p *proc) kill() {
	if p.running() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// freeAddr returns a loopback host:port that was free a moment ago.
func freeAddr(t *testing.T, host string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// run runs a short command and returns its stdout; stderr goes in errors.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// eventually polls cond until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	waitfor.Within(t, timeout, what, cond)
}

// ---- backend ---------------------------------------------------------------

// Store kinds the backend runs on.
const (
	storeEmbedded = "embedded"
	storeDynamo   = "dynamodb"
)

// backend is one `gpusla serve` with its data folder, kept across restarts.
type backend struct {
	t       *testing.T
	store   string
	dir     string
	addr    string
	env     []string
	slack   *fakeSlack
	signing string // Slack signing secret
	logs    *syncBuf
	p       *proc
	starts  int
	// watchdog is serve's --watchdog (default @every 1s).
	watchdog string
	// readKey is an API key with the read scope, for the tests' own GET
	// /v1/nodes and /v1/incidents (made before serve's first start).
	readKey string
	// args are more serve flags (--config FILE).
	args []string
}

// newBackend prepares (does not start) a backend on the given store.
func newBackend(t *testing.T, store string, sl *fakeSlack, listenHost string) *backend {
	t.Helper()
	b := &backend{t: t, store: store, dir: t.TempDir(), slack: sl, logs: &syncBuf{}}
	b.addr = freeAddr(t, listenHost)
	b.signing = randHex(16)
	b.env = []string{
		"GPUSLA_SLACK_BOT_TOKEN=xoxb-e2e-" + randHex(8),
		"GPUSLA_SLACK_CHANNEL=C0E2E",
		"GPUSLA_SLACK_API_URL=" + sl.apiURL(),
		"GPUSLA_SLACK_SIGNING_SECRET=" + b.signing,
		"GPUSLA_TERMS=" + terms,
		"GPUSLA_SLACK_WEBHOOK_URL=",
	}
	if store == storeDynamo {
		ep := dynamotest.Endpoint(t) // skips when there is no dynalite
		b.env = append(b.env, "GPUSLA_TABLE=gpusla-e2e-"+randHex(6), "GPUSLA_DYNAMODB_ENDPOINT="+ep,
			"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=e2e", "AWS_SECRET_ACCESS_KEY=e2e", "AWS_EC2_METADATA_DISABLED=true")
	} else {
		b.env = append(b.env, "GPUSLA_TABLE=")
	}
	return b
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (b *backend) url(path string) string { return "http://" + b.addr + path }

// start runs serve and waits until /healthz answers.
func (b *backend) start() {
	b.t.Helper()
	b.starts++
	if b.readKey == "" { // the embedded store is locked while serve runs
		b.readKey = b.apiKey("e2e reads", "--scope", "read")
	}
	fmt.Fprintf(b.logs, "=== serve start %d\n", b.starts)
	b.p = startProc(b.t, b.logs, b.env, nil, bin.gpusla, append([]string{"serve", "--listen", b.addr, "--data", b.dir,
		"--demo", "off", "--watchdog", cmp.Or(b.watchdog, "@every 1s"), "--log-format", "json"}, b.args...)...)
	eventually(b.t, 60*time.Second, "serve answers /healthz:\n"+tail(b.logs.String(), 3000), func() bool {
		if !b.p.running() {
			b.t.Fatalf("serve exited: %v\n%s", b.p.err, tail(b.logs.String(), 3000))
		}
		r, err := http.Get(b.url(httpapi.PathHealth))
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})
}

func (b *backend) stop() { b.t.Helper(); b.p.stop(b.t) }
func (b *backend) kill() { b.p.kill() }

// registered is a node as `gpusla node add` printed it.
type registered struct {
	ID     string
	Secret string
	Config map[string]any // the printed probe config
}

// addNode registers a node with `gpusla node add` (serve must be stopped
// for the embedded store: its file is locked while serve runs).
func (b *backend) addNode(id string) registered {
	b.t.Helper()
	return b.addNodeEvery(id, "1s", "1s", "3s")
}

// addNodeEvery is addNode with the node's heartbeat, push and grace.
func (b *backend) addNodeEvery(id, heartbeat, push, grace string) registered {
	b.t.Helper()
	return b.register(id, "--gpu-model", "H200", "--gpus", "2", "--gpu-memory-gb", "141", "--heartbeat", heartbeat, "--push", push, "--grace", grace)
}

// register is `gpusla node add` of node id with the order and schedules
// of flags.
func (b *backend) register(id string, flags ...string) registered {
	b.t.Helper()
	out := run(b.t, b.env, bin.gpusla, append([]string{"node", "add", "--data", b.dir, "--id", id, "--provider", "E2E Compute",
		"--contract", "e2e", "--price", "5", "--ordered-at", time.Now().Add(-10 * time.Minute).UTC().Format(time.RFC3339),
		"--backend-url", b.url(httpapi.PathBatches), "--secret-file", "/nonexistent/secret"}, flags...)...)
	head, cfg, ok := strings.Cut(out, "\n---\n")
	if !ok {
		b.t.Fatalf("node add printed no config:\n%s", out)
	}
	reg := registered{ID: id}
	for _, line := range strings.Split(head, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			reg.Secret = strings.TrimSpace(line)
		}
	}
	if len(reg.Secret) != 64 {
		b.t.Fatalf("node add: no 64-hex-digit secret in:\n%s", head)
	}
	if err := yaml.Unmarshal([]byte(cfg), &reg.Config); err != nil {
		b.t.Fatalf("node add printed a config that is not YAML: %v\n%s", err, cfg)
	}
	return reg
}

// apiKey creates an API key with `gpusla apikey create` (the ticket API's
// unless flags say other scopes).
func (b *backend) apiKey(name string, flags ...string) string {
	b.t.Helper()
	out := strings.TrimSpace(run(b.t, b.env, bin.gpusla, append([]string{"apikey", "create", "--data", b.dir, "--name", name}, flags...)...))
	if !strings.HasPrefix(out, "gsk_") {
		b.t.Fatalf("apikey create printed %q, want a gsk_ token", out)
	}
	return out
}

// nodes is GET /v1/nodes.
func (b *backend) nodes() map[string]httpapi.NodeView {
	b.t.Helper()
	var vs []httpapi.NodeView
	b.getJSON(httpapi.PathNodes, &vs)
	m := map[string]httpapi.NodeView{}
	for _, v := range vs {
		m[v.ID] = v
	}
	return m
}

// incidents is GET /v1/incidents?node=.
func (b *backend) incidents(node string) []store.Incident {
	b.t.Helper()
	var incs []store.Incident
	b.getJSON(httpapi.PathIncidents+"?node="+url.QueryEscape(node), &incs)
	return incs
}

func (b *backend) getJSON(path string, v any) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.url(path), nil)
	req.Header.Set("Authorization", "Bearer "+b.readKey)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("GET %s: %v", path, err)
	}
	defer r.Body.Close()
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 {
		b.t.Fatalf("GET %s: %d %s", path, r.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		b.t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

// slash sends a signed Slack slash command and returns serve's answer.
func (b *backend) slash(text string) (int, string) {
	b.t.Helper()
	return b.sendSlash(b.slashRequest(text)())
}

// slashRequest signs a slash command once; every call of the returned
// function makes the same request again (for replay tests).
func (b *backend) slashRequest(text string) func() *http.Request {
	form := url.Values{"command": {"/gpusla"}, "text": {text}, "user_id": {"U0E2E"}, "user_name": {"e2e"},
		"channel_id": {"C0E2E"}, "team_id": {"T0E2E"}, "trigger_id": {"trig." + randHex(4)},
		"response_url": {b.slack.responseURL()}}
	body := form.Encode()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(b.signing))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	sig := "v0=" + hex.EncodeToString(mac.Sum(nil))
	return func() *http.Request {
		req, _ := http.NewRequest("POST", b.url("/slack/commands"), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
		return req
	}
}

func (b *backend) sendSlash(req *http.Request) (int, string) {
	b.t.Helper()
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("slash command: %v", err)
	}
	defer r.Body.Close()
	out, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(out)
}

// ---- probes ----------------------------------------------------------------

// probe is one `gpuprobe run` with its own config, secret and spool.
type probe struct {
	t        *testing.T
	reg      registered
	dir      string
	cfgPath  string
	snapPath string
	logs     *syncBuf
	p        *proc
	prefix   []string // e.g. ip netns exec NS
}

// newProbe writes the probe's files: node add's config plus short
// schedules, the secret (0600), a spool, and a GPU snapshot to replay.
func newProbe(t *testing.T, reg registered, snapshot string, extra map[string]any) *probe {
	t.Helper()
	pr := &probe{t: t, reg: reg, dir: t.TempDir(), logs: &syncBuf{}}
	secretPath := filepath.Join(pr.dir, "secret")
	if err := os.WriteFile(secretPath, []byte(reg.Secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pr.snapPath = filepath.Join(pr.dir, "gpu-snapshot.json")
	pr.useSnapshot(snapshot)
	cfg := map[string]any{}
	for k, v := range reg.Config {
		cfg[k] = v
	}
	cfg["secret_file"] = secretPath
	cfg["gpu_snapshot"] = pr.snapPath
	cfg["spool"] = map[string]any{"dir": filepath.Join(pr.dir, "spool")}
	// node add's schedules (heartbeat, push) as printed, plus fast checks.
	sch, _ := cfg["schedules"].(map[string]any)
	if sch == nil {
		sch = map[string]any{}
	}
	for k, v := range map[string]any{"health": "2s", "network": "1s", "stress": "off", "jitter": "1ms"} {
		sch[k] = v
	}
	cfg["schedules"] = sch
	// Connectivity evidence: a TCP target on this machine that always
	// answers, so the engine can tell "node up, only the backend away".
	cfg["network"] = map[string]any{"gateway": map[string]any{"disabled": true},
		"tcp": []any{map[string]any{"name": "upstream", "address": upstream(t), "count": 1, "timeout": "1s"}}}
	backend := cfg["backend"].(map[string]any)
	backend["timeout"], backend["min_backoff"], backend["max_backoff"] = "2s", "200ms", "1s"
	for k, v := range extra {
		cfg[k] = v
	}
	raw, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pr.cfgPath = filepath.Join(pr.dir, "probe.yaml")
	if err := os.WriteFile(pr.cfgPath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return pr
}

// useSnapshot atomically replaces the replayed GPU readings; the probe
// reads the file afresh on every health run.
func (pr *probe) useSnapshot(src string) {
	pr.t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		pr.t.Fatal(err)
	}
	tmp := pr.snapPath + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		pr.t.Fatal(err)
	}
	if err := os.Rename(tmp, pr.snapPath); err != nil {
		pr.t.Fatal(err)
	}
}

func (pr *probe) start() {
	pr.t.Helper()
	fmt.Fprintf(pr.logs, "=== probe start\n")
	pr.p = startProc(pr.t, pr.logs, nil, pr.prefix, bin.gpuprobe, "run", "--config", pr.cfgPath)
}

func (pr *probe) stop() { pr.t.Helper(); pr.p.stop(pr.t) }
func (pr *probe) kill() { pr.p.kill() }

// spooled counts the batches waiting in the probe's spool.
func (pr *probe) spooled() int { return countBatches(filepath.Join(pr.dir, "spool")) }

// rejected counts the batches the backend refused for good (lost data).
func (pr *probe) rejected() int { return countBatches(filepath.Join(pr.dir, "spool", "rejected")) }

// hasSpooled says whether batch seq waits in the spool.
func (pr *probe) hasSpooled(seq uint64) bool {
	_, err := os.Stat(filepath.Join(pr.dir, "spool", fmt.Sprintf("%020d.batch", seq)))
	return err == nil
}

func countBatches(dir string) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".batch") {
			n++
		}
	}
	return n
}

var errNotFound = errors.New("not found")

// incidentOf returns the one incident of kind, or an error naming what was there.
func incidentOf(incs []store.Incident, kind string) (store.Incident, error) {
	var found []store.Incident
	for _, i := range incs {
		if i.Kind != kind {
			continue
		}
		// /v1/incidents lists an incident whose parts had different causes
		// once per part, as the report does (a loaded machine can make a
		// restarted probe's catch-up a part of its own): one incident all
		// the same, from its first part's start to its last part's end,
		// counted if any part is.
		if n := len(found); n > 0 && found[n-1].ID == i.ID {
			last := &found[n-1]
			last.End, last.Counted = i.End, last.Counted || i.Counted
			continue
		}
		found = append(found, i)
	}
	if len(found) != 1 {
		kinds := make([]string, len(incs))
		for i, inc := range incs {
			kinds[i] = inc.Kind + "/" + inc.ID
		}
		return store.Incident{}, fmt.Errorf("%w: want exactly one %s incident, have %v", errNotFound, kind, kinds)
	}
	return found[0], nil
}

var upstreamOnce struct {
	sync.Once
	addr string
	err  error
}

// upstream is a loopback TCP listener that accepts and closes every
// connection: the "outside world" the probes' connectivity checks reach.
func upstream(t *testing.T) string {
	upstreamOnce.Do(func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			upstreamOnce.err = err
			return
		}
		upstreamOnce.addr = l.Addr().String()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	})
	if upstreamOnce.err != nil {
		t.Fatal(upstreamOnce.err)
	}
	return upstreamOnce.addr
}
