package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/gpusla/gpusla/infra/blob/blobtest"
	ports "github.com/gpusla/gpusla/infra/store"
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
	client := blobtest.Client(blobtest.Start(t))
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
