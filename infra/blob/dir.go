package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpusla/gpusla/internal/atomicfile"
)

// Dir stores blobs as files under a folder. Writes are atomic: a reader sees
// the old file or the whole new one, never a half-written report.
type Dir struct {
	root string
}

// NewDir uses (and creates, 0700) the folder root.
func NewDir(root string) (*Dir, error) {
	if root == "" {
		return nil, errors.New("blob folder: no path given")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blob folder %s: %w", root, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("blob folder: %w", err)
	}
	return &Dir{root: abs}, nil
}

func (d *Dir) file(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return filepath.Join(d.root, filepath.FromSlash(name)), nil
}

// Put writes data under name, replacing what was there whole or not at
// all, durably (internal/atomicfile).
func (d *Dir) Put(ctx context.Context, name string, data []byte) error {
	p, err := d.file(name)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	if err := atomicfile.WriteFile(p, data, 0o600); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	return nil
}

// Get returns the blob's bytes, or ErrNotFound.
func (d *Dir) Get(ctx context.Context, name string) ([]byte, error) {
	p, err := d.file(name)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", name, err)
	}
	return b, nil
}

// List returns the blobs whose names start with prefix, ordered by name.
func (d *Dir) List(ctx context.Context, prefix string) ([]Object, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	var out []Object
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() || atomicfile.IsTemp(e.Name()) {
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) || CheckName(name) != nil {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		out = append(out, Object{Name: name, Size: info.Size(), Modified: info.ModTime().UTC()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
