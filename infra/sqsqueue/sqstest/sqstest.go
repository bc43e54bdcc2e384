// Package sqstest gives tests a real SQS implementation: goaws (a Go
// module, installed as .tools/bin/goaws by scripts/setup.sh) on a free
// loopback port for one test, or the one at $GPUSLA_TEST_SQS (started by
// scripts/test.sh), with a queue of the test's own and its dead-letter
// queue.
package sqstest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// EnvEndpoint names an SQS endpoint to use instead of starting goaws.
const EnvEndpoint = "GPUSLA_TEST_SQS"

// Region and Account are goaws's; a queue's ARN is made of them.
const (
	Region  = "us-east-1"
	Account = "100010001000"
)

// Start runs goaws for this test (killed at its end) and returns its
// endpoint, or $GPUSLA_TEST_SQS when set.
func Start(t testing.TB) string {
	t.Helper()
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		return ep
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "..", ".tools", "bin", "goaws")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "goaws not installed (%s); run scripts/setup.sh", bin)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := filepath.Join(t.TempDir(), "goaws.yaml")
	if err := os.WriteFile(conf, []byte(Config(port)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", conf)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Polled up to waitfor.Limit: goaws can take many seconds to start on
	// a loaded machine.
	for deadline := time.Now().Add(waitfor.Limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(endpoint); err == nil {
			res.Body.Close()
			return endpoint
		}
	}
	t.Fatalf("goaws did not start on %s: %s", endpoint, logs.String())
	return ""
}

// Config is goaws's configuration for a server on 127.0.0.1:port with no
// queue of its own (tests make theirs).
func Config(port int) string {
	return fmt.Sprintf("Local:\n  Host: 127.0.0.1\n  Port: %d\n  Region: %s\n  AccountId: %q\n  LogToFile: false\n  Queues: []\n  Topics: []\n", port, Region, Account)
}

// Client is an SQS client for endpoint.
func Client(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{Region: Region, BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
}

var seq atomic.Int64

// Queue makes a queue of the test's own whose messages go to its
// dead-letter queue after maxReceives receives, each hidden for
// visibility once received; it returns the queue's and the dead-letter
// queue's URLs.
func Queue(t testing.TB, c *sqs.Client, maxReceives int, visibility time.Duration) (url, dlq string) {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("t%d-%d", os.Getpid(), seq.Add(1))
	d, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq")})
	if err != nil {
		t.Fatalf("create dead-letter queue: %v", err)
	}
	arn := fmt.Sprintf("arn:aws:sqs:%s:%s:%s-dlq", Region, Account, name)
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: map[string]string{
		"VisibilityTimeout": strconv.Itoa(int(visibility / time.Second)),
		"RedrivePolicy":     fmt.Sprintf(`{"maxReceiveCount":"%d","deadLetterTargetArn":%q}`, maxReceives, arn),
	}})
	if err != nil {
		t.Fatalf("create queue: %v", err)
	}
	return aws.ToString(q.QueueUrl), strings.TrimSpace(aws.ToString(d.QueueUrl))
}
