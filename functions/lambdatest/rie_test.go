package lambdatest

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store/dynamo"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/wire"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// rieBinary is the emulator: $GPUSLA_TEST_RIE (scripts/test.sh) or the
// copy scripts/setup.sh installs.
func rieBinary(t testing.TB) string {
	t.Helper()
	p := os.Getenv("GPUSLA_TEST_RIE")
	if p == "" {
		p = filepath.Join(repoRoot(), ".tools", "bin", "aws-lambda-rie")
	}
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "AWS Lambda Runtime Interface Emulator not installed (%s); run scripts/setup.sh", p)
	}
	return p
}

// builds caches bootstraps per (target, arch) for the test binary's life.
var builds sync.Map

// build runs the very make target `sam build` runs for a function and
// returns the bootstrap it wrote.
func build(t testing.TB, target, goarch string) string {
	t.Helper()
	testenv.LookPath(t, "make", "scripts/setup.sh installs Debian's make")
	key := target + "/" + goarch
	if p, ok := builds.Load(key); ok {
		return p.(string)
	}
	dir, err := os.MkdirTemp("", "gpusla-artifacts-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "--no-print-directory", target, "ARTIFACTS_DIR="+dir, "GOARCH="+goarch)
	cmd.Dir = repoRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s GOARCH=%s: %v\n%s", target, goarch, err, out)
	}
	p := filepath.Join(dir, "bootstrap")
	builds.Store(key, p)
	return p
}

// TestBuildsForLambda: each function builds, via its make target, as a
// static Linux executable named bootstrap for arm64 (the default) and
// amd64, which is what provided.al2023 runs.
func TestBuildsForLambda(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four binaries")
	}
	machines := map[string]elf.Machine{"arm64": elf.EM_AARCH64, "amd64": elf.EM_X86_64}
	for _, target := range []string{"build-IngestFunction", "build-WatchdogFunction"} {
		for _, arch := range []string{"arm64", "amd64"} {
			t.Run(target+"/"+arch, func(t *testing.T) {
				p := build(t, target, arch)
				f, err := elf.Open(p)
				if err != nil {
					t.Fatalf("%s is not an ELF executable: %v", p, err)
				}
				defer f.Close()
				if f.Machine != machines[arch] {
					t.Errorf("machine %v, want %v", f.Machine, machines[arch])
				}
				for _, prog := range f.Progs {
					if prog.Type == elf.PT_INTERP {
						t.Errorf("dynamically linked (has an interpreter); CGO_ENABLED=0 was not honoured")
					}
				}
				if st, _ := os.Stat(p); st != nil {
					t.Logf("%s %s: %.1f MB", target, arch, float64(st.Size())/1e6)
				}
			})
		}
	}
}

// emulator is one bootstrap running under the Runtime Interface Emulator.
type emulator struct {
	url  string
	cmd  *exec.Cmd
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEmulator runs `aws-lambda-rie bootstrap` on free ports with env.
func startEmulator(t testing.TB, bootstrap string, env []string) *emulator {
	t.Helper()
	rie := rieBinary(t)
	port, apiPort := freePort(t), freePort(t)
	cmd := exec.Command(rie,
		"--runtime-interface-emulator-address", fmt.Sprintf("127.0.0.1:%d", port),
		"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", apiPort),
		bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}, env...)
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &emulator{url: fmt.Sprintf("http://127.0.0.1:%d/2015-03-31/functions/function/invocations", port), cmd: cmd, logs: logs}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("emulator output:\n%s", logs.String())
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitfor.True(t, "the emulator listening on "+addr, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return e
}

// startFunction builds a function by its make target and runs it under
// the emulator with env, on the contract terms the target copied beside
// its bootstrap.
func startFunction(t testing.TB, target string, env ...string) *emulator {
	t.Helper()
	bootstrap := build(t, target, runtime.GOARCH)
	return startEmulator(t, bootstrap, append(env, wiring.EnvTerms+"="+filepath.Join(filepath.Dir(bootstrap), "terms")))
}

// secretFile writes a secret to a 0600 file, as an operator would outside
// AWS where there is no SSM, and returns its path.
func secretFile(t testing.TB, secret string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// invokeRaw posts an event and returns the function's answer.
func invokeRaw(t testing.TB, e *emulator, event any) []byte {
	t.Helper()
	body, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(e.url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("invoke: emulator status %d: %s", res.StatusCode, raw)
	}
	return raw
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// invoke posts an event and decodes the function's answer into out.
func (e *emulator) invoke(t testing.TB, event any, out any) {
	t.Helper()
	raw := invokeRaw(t, e, event)
	var fnErr struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}
	if json.Unmarshal(raw, &fnErr) == nil && fnErr.ErrorType != "" {
		t.Fatalf("function error %s: %s", fnErr.ErrorType, fnErr.ErrorMessage)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("function answer %q: %v", raw, err)
	}
}

// backend is a DynamoDB table (dynalite) with one registered node, and the
// environment a function needs to use it.
type backend struct {
	store *dynamo.Store
	probe *apptest.Probe
	env   []string
}

func newBackend(t testing.TB) *backend {
	t.Helper()
	db, table := dynamotest.NewTable(t)
	store, err := dynamo.New(db, table)
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i * 7)
	}
	keyFile := filepath.Join(t.TempDir(), "master.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	box, err := app.NewAESGCMBox(key)
	if err != nil {
		t.Fatal(err)
	}
	// The node is registered by this process, as `gpusla node add` would,
	// with the same master key the function reads.
	svc, err := app.New(app.Config{Store: store, Notifier: &slack.Console{W: io.Discard}, Box: box})
	if err != nil {
		t.Fatal(err)
	}
	p := apptest.AddNode(t, svc, "rie-node-1")
	return &backend{store: store, probe: p, env: []string{
		wiring.EnvTable + "=" + table,
		wiring.EnvMasterKeyFile + "=" + keyFile,
		wiring.EnvDynamoEndpoint + "=" + dynamotest.Endpoint(t),
		wiring.EnvLogLevel + "=INFO",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
	}}
}

// functionURLEvent is the event a Lambda Function URL delivers for a POST.
func functionURLEvent(path string, headers map[string]string, body []byte) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"content-type": "application/json", "host": "abc123.lambda-url.us-east-1.on.aws", "user-agent": "gpuprobe"}
	for k, v := range headers {
		h[strings.ToLower(k)] = v
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: path, Headers: h,
		Body: string(body), IsBase64Encoded: false,
	}
	ev.RequestContext.DomainName = "abc123.lambda-url.us-east-1.on.aws"
	ev.RequestContext.APIID = "abc123"
	ev.RequestContext.Stage = "$default"
	ev.RequestContext.RequestID = "req-1"
	ev.RequestContext.TimeEpoch = time.Now().UnixMilli()
	ev.RequestContext.HTTP.Method = "POST"
	ev.RequestContext.HTTP.Path = path
	ev.RequestContext.HTTP.Protocol = "HTTP/1.1"
	ev.RequestContext.HTTP.SourceIP = "198.51.100.7"
	return ev
}

// TestIngestUnderEmulator: the ingest bootstrap, built by its make target
// and run by the Lambda emulator, stores a validly signed batch in
// DynamoDB and answers 401 to an unsigned or wrongly signed one, storing
// nothing for them.
func TestIngestUnderEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Lambda bootstrap")
	}
	be := newBackend(t)
	emu := startFunction(t, "build-IngestFunction", be.env...)
	ctx := context.Background()

	now := time.Now().UTC()
	_, body := be.probe.Batch(now, apptest.Heartbeats(now, 30*time.Second, 2)...)

	// Unsigned: 401, nothing stored.
	var res events.APIGatewayV2HTTPResponse
	emu.invoke(t, functionURLEvent("/v1/batches", nil, body), &res)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned batch: status %d %s, want 401", res.StatusCode, res.Body)
	}
	// Signed with the wrong secret: 401.
	ts, sig := wire.Sign([]byte("not-the-secret"), now, body)
	emu.invoke(t, functionURLEvent("/v1/batches", map[string]string{
		wire.HeaderNode: be.probe.Node, wire.HeaderTimestamp: ts, wire.HeaderSignature: sig}, body), &res)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrongly signed batch: status %d %s, want 401", res.StatusCode, res.Body)
	}
	if _, err := be.store.GetState(ctx, be.probe.Node); err == nil {
		t.Fatal("a rejected batch changed the node's state")
	}

	// Validly signed: 200, stored.
	req := be.probe.Request(now, body)
	emu.invoke(t, functionURLEvent("/v1/batches", map[string]string{
		wire.HeaderNode: req.Node, wire.HeaderTimestamp: req.Timestamp, wire.HeaderSignature: req.Signature}, body), &res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("signed batch: status %d %s, want 200", res.StatusCode, res.Body)
	}
	var ack wire.Ack
	if err := json.Unmarshal([]byte(res.Body), &ack); err != nil || ack.Status != wire.AckStored {
		t.Fatalf("ack %q: %v", res.Body, err)
	}
	st, err := be.store.GetState(ctx, be.probe.Node)
	if err != nil {
		t.Fatalf("state after a stored batch: %v", err)
	}
	if st.LastSeq != 1 || st.Run.Count != 2 {
		t.Fatalf("state: last seq %d, run of %d heartbeats; want 1 and 2", st.LastSeq, st.Run.Count)
	}
	// The same signed request again is a replay: 401.
	emu.invoke(t, functionURLEvent("/v1/batches", map[string]string{
		wire.HeaderNode: req.Node, wire.HeaderTimestamp: req.Timestamp, wire.HeaderSignature: req.Signature}, body), &res)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("replayed request: status %d %s, want 401", res.StatusCode, res.Body)
	}
}

// TestWatchdogUnderEmulator: the watchdog bootstrap answers a Scheduler
// tick by running the watchdog over the node in DynamoDB.
func TestWatchdogUnderEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Lambda bootstrap")
	}
	be := newBackend(t)
	emu := startFunction(t, "build-WatchdogFunction", be.env...)
	var res app.WatchdogResult
	emu.invoke(t, map[string]string{"source": "gpusla.scheduler", "schedule": "watchdog",
		"scheduled_time": time.Now().UTC().Format(time.RFC3339)}, &res)
	if res.Nodes != 1 {
		t.Fatalf("watchdog saw %d nodes, want 1", res.Nodes)
	}
	now := time.Now()
	runs, err := be.store.ListBackendRuns(context.Background(), now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil || len(runs) != 1 || !strings.HasPrefix(runs[0].ID, "lambda@") {
		t.Fatalf("backend runs after a tick: %+v %v; want one lambda run", runs, err)
	}
}
