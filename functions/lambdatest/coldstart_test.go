package lambdatest

import (
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/wiring"
)

// BenchmarkColdStart measures what a cold start adds to a request: each
// iteration starts a fresh emulator with the ingest bootstrap (built by its
// make target), times the first invocation (process start, Go runtime,
// wiring.Open, then the request) and a second, warm one, and reports the
// difference as init-ms (median over iterations). The request is an
// unsigned batch, answered 401 before any store access, so the figure is
// the function's own init and not the database's latency. "noop", the
// smallest Go Lambda (testdata/noop), is measured in the same run: what it
// shows is the emulator's share.
//
// The emulator's own "Init Duration" is not used: it times an asynchronous
// call that returns before the bootstrap has even started.
//
//	go test -run '^$' -bench ColdStart -benchtime 20x ./functions/lambdatest
func BenchmarkColdStart(b *testing.B) {
	for _, fn := range []string{"noop", "build-IngestFunction", "build-WatchdogFunction"} {
		b.Run(fn, func(b *testing.B) { coldStart(b, fn) })
	}
}

func coldStart(b *testing.B, target string) {
	var bootstrap string
	if target == "noop" {
		bootstrap = buildNoop(b)
	} else {
		bootstrap = build(b, target, runtime.GOARCH)
	}
	keyFile := filepath.Join(b.TempDir(), "master.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(make([]byte, 32))), 0o600); err != nil {
		b.Fatal(err)
	}
	env := []string{
		wiring.EnvTable + "=unused", wiring.EnvMasterKeyFile + "=" + keyFile,
		// Never contacted: the request is refused before any store access.
		wiring.EnvDynamoEndpoint + "=http://127.0.0.1:9",
		wiring.EnvLogLevel + "=WARN",
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
	}
	var event any = functionURLEvent("/v1/batches", nil, []byte(`{}`))
	if target == "build-WatchdogFunction" {
		// An event the watchdog refuses before touching the store.
		event = map[string]string{"source": "not-a-schedule"}
	}
	var inits []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		emu := startEmulator(b, bootstrap, env)
		b.StartTimer()
		t0 := time.Now()
		first := invokeRaw(b, emu, event)
		cold := time.Since(t0)
		t1 := time.Now()
		invokeRaw(b, emu, event)
		warm := time.Since(t1)
		b.StopTimer()
		if target != "build-WatchdogFunction" {
			var res events.APIGatewayV2HTTPResponse
			if err := jsonUnmarshal(first, &res); err != nil || res.StatusCode != http.StatusUnauthorized {
				b.Fatalf("cold request answered %s", first)
			}
		}
		_ = emu.cmd.Process.Kill()
		_ = emu.cmd.Wait()
		inits = append(inits, float64(cold-warm)/float64(time.Millisecond))
		b.StartTimer()
	}
	sort.Float64s(inits)
	b.ReportMetric(inits[len(inits)/2], "init-ms")
	b.ReportMetric(inits[len(inits)-1], "max-init-ms")
}

// buildNoop builds testdata/noop the way the Makefile builds a function.
func buildNoop(b *testing.B) string {
	dir := b.TempDir()
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "lambda.norpc", "-ldflags", "-s -w", "-o", filepath.Join(dir, "bootstrap"), "./functions/lambdatest/testdata/noop")
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build noop: %v\n%s", err, out)
	}
	return filepath.Join(dir, "bootstrap")
}
