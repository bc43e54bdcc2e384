// Package dynamotest gives tests a real DynamoDB implementation: dynalite
// (npm, installed by scripts/setup.sh) at $GPUSLA_TEST_DYNAMODB, which
// scripts/test.sh starts on a free port, or one this package starts for the
// test binary when that is unset. Each test gets its own fresh table.
package dynamotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gpusla/gpusla/infra/store/dynamo"
	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// EnvEndpoint names the variable scripts/test.sh exports.
const EnvEndpoint = "GPUSLA_TEST_DYNAMODB"

var (
	once     sync.Once
	endpoint string
	startErr error
	proc     *exec.Cmd
	tables   atomic.Int64
)

// Endpoint returns the URL of a running dynalite, starting one if needed;
// the test is skipped, with the reason, when there is none to be had.
func Endpoint(t testing.TB) string {
	t.Helper()
	once.Do(func() { endpoint, startErr = start() })
	if startErr != nil {
		testenv.Missing(t, "no DynamoDB to test against: %v", startErr)
	}
	return endpoint
}

// Stop ends the dynalite this package started, if any (call from TestMain
// after m.Run; harmless otherwise).
func Stop() {
	if proc != nil && proc.Process != nil {
		_ = proc.Process.Kill()
		_ = proc.Wait()
	}
}

// Dynalite is the path of the dynalite launcher in the project's .tools,
// found from the module root (the nearest folder above with go.mod), so it
// holds wherever this package moves.
func Dynalite() string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			break
		}
		root = up
	}
	return filepath.Join(root, ".tools", "node", "node_modules", ".bin", "dynalite")
}

func start() (string, error) {
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		return ep, nil
	}
	bin := Dynalite()
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("$%s is unset and dynalite is not installed at %s (run scripts/setup.sh)", EnvEndpoint, bin)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("node is not installed (run scripts/setup.sh)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--host", "127.0.0.1")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start dynalite: %w", err)
	}
	proc = cmd
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// Polled up to waitfor.Limit: a node server can take many seconds to
	// start on a loaded machine.
	for deadline := time.Now().Add(waitfor.Limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr, nil
		}
	}
	Stop()
	return "", fmt.Errorf("dynalite did not listen on %s: %s", addr, logs.String())
}

// Client returns a DynamoDB client for endpoint with dummy credentials.
func Client(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// NewTable creates a fresh table with a unique name and returns the client
// and its name.
func NewTable(t testing.TB) (*dynamodb.Client, string) {
	t.Helper()
	db := Client(Endpoint(t))
	name := fmt.Sprintf("gpusla-test-%d-%d", os.Getpid(), tables.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := dynamo.CreateTable(ctx, db, name); err != nil {
		t.Fatal(err)
	}
	return db, name
}

// NewStore returns a store on a fresh table.
func NewStore(t testing.TB) *dynamo.Store {
	t.Helper()
	db, name := NewTable(t)
	s, err := dynamo.New(db, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
