package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	ports "github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/testenv"
)

// store is what the report generator will declare; both types satisfy it.
type store interface {
	Put(ctx context.Context, name string, data []byte) error
	Get(ctx context.Context, name string) ([]byte, error)
	List(ctx context.Context, prefix string) ([]Object, error)
}

var (
	_ store = (*Dir)(nil)
	_ store = (*S3)(nil)
)

// contract is the behaviour both stores must share.
func contract(t *testing.T, s store) {
	ctx := context.Background()
	pdf := []byte("%PDF-1.4\x00\xff binary")
	if err := s.Put(ctx, "2026-11/node-1/report.pdf", pdf); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "2026-11/node-2/report.pdf", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "2026-10/summary.json", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "2026-11/node-1/report.pdf")
	if err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("Get = %q, %v; want %q", got, err, pdf)
	}
	// Overwrite replaces.
	if err := s.Put(ctx, "2026-11/node-2/report.pdf", []byte("two, again")); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, "2026-11/node-2/report.pdf"); string(got) != "two, again" {
		t.Errorf("after overwrite Get = %q", got)
	}
	// Empty blob.
	if err := s.Put(ctx, "empty.txt", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "empty.txt"); err != nil || len(got) != 0 {
		t.Errorf("empty Get = %q, %v", got, err)
	}

	if _, err := s.Get(ctx, "2026-11/nobody.pdf"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing name: %v, want ErrNotFound", err)
	} else if !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("Get of a missing name: %v does not wrap the store's ErrNotFound the application checks for", err)
	}

	lists := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"2026-10/summary.json", "2026-11/node-1/report.pdf", "2026-11/node-2/report.pdf", "empty.txt"}},
		{"2026-11/", []string{"2026-11/node-1/report.pdf", "2026-11/node-2/report.pdf"}},
		{"2026-1", []string{"2026-10/summary.json", "2026-11/node-1/report.pdf", "2026-11/node-2/report.pdf"}},
		{"2027", nil},
	}
	for _, l := range lists {
		objs, err := s.List(ctx, l.prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", l.prefix, err)
		}
		var names []string
		for _, o := range objs {
			names = append(names, o.Name)
			if o.Name == "2026-11/node-1/report.pdf" && o.Size != int64(len(pdf)) {
				t.Errorf("size of %s = %d, want %d", o.Name, o.Size, len(pdf))
			}
			if o.Modified.IsZero() {
				t.Errorf("%s has no modification time", o.Name)
			}
		}
		if fmt.Sprint(names) != fmt.Sprint(l.want) {
			t.Errorf("List(%q) = %v, want %v", l.prefix, names, l.want)
		}
	}

	// Unsafe names are refused before any I/O, by every method.
	for _, name := range []string{"", "../escape", "a/../../b", "/abs", "a//b", "a/./b", `a\b`, "a b", "a\x00b", "é", strings.Repeat("x", MaxNameLen+1), "trailing/"} {
		if err := s.Put(ctx, name, []byte("x")); err == nil {
			t.Errorf("Put(%q) accepted", name)
		}
		if _, err := s.Get(ctx, name); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want a name error", name, err)
		}
	}
	if _, err := s.List(ctx, "../"); err == nil {
		t.Error("List(\"../\") accepted")
	}
}

func TestDir(t *testing.T) {
	root := t.TempDir()
	d, err := NewDir(filepath.Join(root, "reports"))
	if err != nil {
		t.Fatal(err)
	}
	contract(t, d)
	// Nothing escaped the folder and no temp file is left behind.
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "reports" {
		t.Errorf("files outside the folder: %v", entries)
	}
	_ = filepath.WalkDir(root, func(p string, e os.DirEntry, _ error) error {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", p)
		}
		if !e.IsDir() {
			if info, _ := e.Info(); info.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v, want 0600", p, info.Mode().Perm())
			}
		}
		return nil
	})
}

func TestS3(t *testing.T) {
	endpoint := startS3rver(t)
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		// s3rver's fixed test credentials.
		Credentials: credentials.NewStaticCredentialsProvider("S3RVER", "S3RVER", ""),
		// s3rver predates the SDK's default CRC32 trailers.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	ctx := context.Background()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("reports")}); err != nil {
		t.Fatal(err)
	}
	st, err := NewS3(client, "reports", "gpusla/")
	if err != nil {
		t.Fatal(err)
	}
	// A key outside the prefix is never listed.
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("reports"), Key: aws.String("other/x"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	contract(t, st)
	head, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("reports"), Key: aws.String("gpusla/2026-11/node-1/report.pdf")})
	if err != nil {
		t.Fatal(err)
	}
	if ct := aws.ToString(head.ContentType); ct != "application/pdf" {
		t.Errorf("content type %q, want application/pdf", ct)
	}
	if _, err := NewS3(client, "reports", "../x"); err == nil {
		t.Error("NewS3 accepted an unsafe prefix")
	}
}

// startS3rver runs s3rver (npm, installed by scripts/setup.sh) on a free
// loopback port for this test, or uses $GPUSLA_TEST_S3.
func startS3rver(t *testing.T) string {
	t.Helper()
	if ep := os.Getenv("GPUSLA_TEST_S3"); ep != "" {
		return ep
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", ".tools", "node", "node_modules", ".bin", "s3rver")
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
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(endpoint); err == nil {
			res.Body.Close()
			return endpoint
		}
	}
	t.Fatalf("s3rver did not start on %s: %s", endpoint, logs.String())
	return ""
}
