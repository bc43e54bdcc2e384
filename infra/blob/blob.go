// Package blob stores report files by name: in an S3 bucket (AWS) or a local
// folder (`gpusla serve`). Both types have the same three methods — Put, Get,
// List — so the report generator can declare the small interface it needs
// and take either. Names are checked before any I/O: a name can never reach
// outside the folder or the bucket prefix.
package blob

import (
	"fmt"
	"mime"
	"path"
	"strings"
	"time"

	ports "github.com/gpusla/gpusla/infra/store"
)

// ErrNotFound is returned by Get for a name that holds nothing. It wraps
// the storage ports' store.ErrNotFound, so the application tells a missing
// report from a failing bucket with errors.Is, without importing this
// adapter (and the S3 SDK with it).
var ErrNotFound = fmt.Errorf("blob %w", ports.ErrNotFound)

// MaxNameLen bounds a name (S3 keys may be 1024 bytes; a prefix is added).
const MaxNameLen = 512

// Object describes a stored blob.
type Object struct {
	Name     string
	Size     int64
	Modified time.Time
}

// CheckName accepts slash-separated names whose segments are made of
// letters, digits, '.', '_', '-' (e.g. "2026-11/node-1/report.pdf") and
// rejects everything that could escape a folder or confuse a key: empty
// segments, "." and "..", a leading '/', backslashes, spaces, control bytes.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("blob name is empty")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("blob name %.40q…: %d bytes is over the %d limit", name, len(name), MaxNameLen)
	}
	for i, seg := range strings.Split(name, "/") {
		if seg == "" {
			return fmt.Errorf("blob name %q: segment %d is empty", name, i+1)
		}
		if seg == "." || seg == ".." {
			return fmt.Errorf("blob name %q: segment %q is not allowed", name, seg)
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return fmt.Errorf("blob name %q: character %q is not allowed (letters, digits, '.', '_', '-', '/')", name, r)
			}
		}
	}
	return nil
}

// checkPrefix accepts "" (everything) or a name-like prefix, which may end
// in '/' or stop inside a segment ("2026-1" lists "2026-10/…" and "2026-11/…").
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := CheckName(strings.TrimSuffix(prefix, "/")); err != nil {
		return fmt.Errorf("list prefix: %w", err)
	}
	return nil
}

// contentType guesses the media type of a report file from its extension.
func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
