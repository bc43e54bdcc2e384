// Package blobtest gives tests a real S3 implementation: s3rver (npm,
// installed by scripts/setup.sh) on a free loopback port for one test, or
// the one at $GPUSLA_TEST_S3, and a client for it.
package blobtest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// EnvEndpoint names an S3 endpoint to use instead of starting s3rver.
const EnvEndpoint = "GPUSLA_TEST_S3"

// AccessKey and SecretKey are s3rver's fixed test credentials; a process
// talking to it (a Lambda under the emulator) must sign with them.
const (
	AccessKey = "S3RVER"
	SecretKey = "S3RVER"
)

// Start runs s3rver for this test (killed at its end) and returns its
// endpoint, or $GPUSLA_TEST_S3 when set.
func Start(t testing.TB) string {
	t.Helper()
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		return ep
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "..", ".tools", "node", "node_modules", ".bin", "s3rver")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "s3rver not installed (%s); run scripts/setup.sh", bin)
	}
	testenv.LookPath(t, "node", "run scripts/setup.sh")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-d", t.TempDir(), "-a", "127.0.0.1", "-p", fmt.Sprint(port), "--silent", "--no-vhost-buckets")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Polled up to waitfor.Limit: a node server can take many seconds to
	// start on a loaded machine.
	for deadline := time.Now().Add(waitfor.Limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(endpoint); err == nil {
			res.Body.Close()
			return endpoint
		}
	}
	t.Fatalf("s3rver did not start on %s: %s", endpoint, logs.String())
	return ""
}

// Client is an S3 client for endpoint, with s3rver's credentials.
func Client(endpoint string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
		// s3rver predates the SDK's default CRC32 trailers.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}
