package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	iofs "io/fs"
	"sort"
	"strings"
)

// Zip is a signed or hashed evidence zip opened for checking: the claim
// bundle and the replacement pack (functions/replacement) are read and
// their files checked against their manifest's sums by the same code.
type Zip struct {
	Files    map[string]*zip.File
	Problems []Problem
}

func (z *Zip) add(file, format string, a ...any) {
	z.Problems = append(z.Problems, Problem{File: file, Detail: fmt.Sprintf(format, a...)})
}

// OpenZip reads the zip's directory, refusing more than maxFiles members
// or one over maxFileBytes uncompressed before anything is decompressed (a
// zip bomb must not fill memory); kind names the zip in errors ("bundle").
// Unsafe names and duplicates are problems.
func OpenZip(ra io.ReaderAt, size int64, kind string, maxFiles int, maxFileBytes int64) (*Zip, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("not a zip file: %w", err)
	}
	if len(zr.File) > maxFiles {
		return nil, fmt.Errorf("%s has %d files, more than the %d a %s holds", kind, len(zr.File), maxFiles, kind)
	}
	z := &Zip{Files: map[string]*zip.File{}}
	for _, f := range zr.File {
		if f.UncompressedSize64 > uint64(maxFileBytes) {
			return nil, fmt.Errorf("%s: %d bytes uncompressed, over the %d limit", f.Name, f.UncompressedSize64, maxFileBytes)
		}
		if !iofs.ValidPath(f.Name) || strings.Contains(f.Name, "\\") {
			// Never written by us; unzipping it could climb out of the
			// folder it is unpacked into (zip slip).
			z.add(f.Name, "unsafe name in the zip (absolute, '..', '.' or a backslash)")
		}
		if _, dup := z.Files[f.Name]; dup {
			z.add(f.Name, "appears twice in the zip")
		}
		z.Files[f.Name] = f
	}
	return z, nil
}

// Read returns member name (at most limit bytes); ok false if absent.
func (z *Zip) Read(name string, limit int64) (data []byte, ok bool, err error) {
	f, ok := z.Files[name]
	if !ok {
		return nil, false, nil
	}
	b, err := readAll(f, limit)
	return b, true, err
}

// CheckFiles checks every listed file is present with its size and SHA-256
// and that the zip holds nothing else but the names in also (the manifest
// itself, a signature). It returns the listed files' contents.
func (z *Zip) CheckFiles(sums []FileSum, limit int64, also ...string) map[string][]byte {
	data := map[string][]byte{}
	listed := map[string]bool{}
	for _, n := range also {
		listed[n] = true
	}
	for _, fs := range sums {
		listed[fs.Name] = true
		f, ok := z.Files[fs.Name]
		if !ok {
			z.add(fs.Name, "listed in the manifest but missing from the zip")
			continue
		}
		b, err := readAll(f, limit)
		if err != nil {
			z.add(fs.Name, "cannot be read: %v", err)
			continue
		}
		data[fs.Name] = b
		if int64(len(b)) != fs.Bytes {
			z.add(fs.Name, "%d bytes, the manifest says %d", len(b), fs.Bytes)
		}
		if got := sum(b); got != fs.SHA256 {
			z.add(fs.Name, "SHA-256 is %s, the manifest says %s", got, fs.SHA256)
		}
	}
	var extra []string
	for name := range z.Files {
		if !listed[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		z.add(name, "in the zip but not in the manifest")
	}
	return data
}

// Manifest reads member name (at most limit bytes) and decodes it into v,
// refusing unknown fields; it returns the bytes as read (what a signature
// covers). kind names the zip in errors.
func (z *Zip) Manifest(name, kind string, limit int64, v any) ([]byte, error) {
	raw, ok, err := z.Read(name, limit)
	if !ok {
		return nil, fmt.Errorf("no %s in the %s", name, kind)
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return raw, nil
}
