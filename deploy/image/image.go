// Package image assembles gpusla's container images — gpuprobe's and
// gpusla serve's — as OCI image layouts, from binaries built here and
// files of this machine's Debian packages, without pulling a base image
// from any registry (go-containerregistry writes the layout).
//
// The images are reproducible: one layer whose tar entries are sorted, owned
// by numeric ids and dated at a fixed instant (SOURCE_DATE_EPOCH), a config
// dated the same, so the same binaries and package files give the same
// digest.
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// File is one entry of the image's file system. A Dir with no Data is a
// folder; Link makes a symbolic link.
type File struct {
	Path     string
	Mode     int64
	Data     []byte
	Link     string
	Dir      bool
	UID, GID int
}

// Spec is an image: its files and how it runs.
type Spec struct {
	Name       string
	Files      []File
	Entrypoint []string
	Cmd        []string
	Env        []string
	User       string
	WorkDir    string
	Labels     map[string]string
	// Created dates every file and the config (SOURCE_DATE_EPOCH).
	Created time.Time
}

// Layer is the tar of files: every parent folder made, entries sorted by
// path, numeric owners, no user or group names, one fixed time.
func Layer(files []File, at time.Time) ([]byte, error) {
	byPath := map[string]File{}
	for _, f := range files {
		p := strings.TrimPrefix(path.Clean("/"+f.Path), "/")
		if p == "" {
			continue
		}
		if _, dup := byPath[p]; dup && !f.Dir {
			return nil, fmt.Errorf("image: %s given twice", p)
		}
		f.Path = p
		if _, dup := byPath[p]; !dup || !f.Dir {
			byPath[p] = f
		}
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = File{Path: d, Dir: true, Mode: 0o755}
			}
		}
	}
	names := make([]string, 0, len(byPath))
	for p := range byPath {
		names = append(names, p)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range names {
		f := byPath[p]
		h := &tar.Header{Name: p, Mode: f.Mode, Uid: f.UID, Gid: f.GID, ModTime: at.UTC(), Format: tar.FormatPAX}
		switch {
		case f.Link != "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.Link, 0o777
		case f.Dir:
			h.Typeflag, h.Name = tar.TypeDir, p+"/"
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(f.Data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Build makes the image of s: one gzip layer, its config.
func Build(s Spec) (v1.Image, error) {
	raw, err := Layer(s.Files, s.Created)
	if err != nil {
		return nil, err
	}
	gz, err := gzipped(raw)
	if err != nil {
		return nil, err
	}
	layer := static.NewLayer(gz, types.OCILayer)
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{Layer: layer, MediaType: types.OCILayer})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Created = "amd64", "linux", v1.Time{Time: s.Created.UTC()}
	cf.Config = v1.Config{Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env, User: s.User, WorkingDir: s.WorkDir, Labels: s.Labels}
	cf.History = []v1.History{{Created: v1.Time{Time: s.Created.UTC()}, CreatedBy: "gpusla deploy/image (" + s.Name + ")"}}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.ConfigMediaType(img, types.OCIConfigJSON), nil
}

// Write puts img in an OCI image layout at dir (made afresh), tagged ref
// (org.opencontainers.image.ref.name), and returns its manifest digest
// and its size: the compressed layer, config and manifest together.
func Write(dir string, img v1.Image, ref string) (v1.Hash, int64, error) {
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, 0, err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, 0, err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return v1.Hash{}, 0, err
	}
	d, err := img.Digest()
	if err != nil {
		return v1.Hash{}, 0, err
	}
	size, err := Size(img)
	return d, size, err
}

// Size is the bytes a registry stores for img: manifest, config, layers.
func Size(img v1.Image) (int64, error) {
	m, err := img.RawManifest()
	if err != nil {
		return 0, err
	}
	c, err := img.RawConfigFile()
	if err != nil {
		return 0, err
	}
	total := int64(len(m) + len(c))
	ls, err := img.Layers()
	if err != nil {
		return 0, err
	}
	for _, l := range ls {
		n, err := l.Size()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// HostFile is a file of this machine copied into the image at the same
// path (symbolic links followed), with its mode.
func HostFile(p string) (File, error) {
	st, err := os.Stat(p)
	if err != nil {
		return File{}, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return File{}, err
	}
	return File{Path: p, Mode: int64(st.Mode().Perm()), Data: data}, nil
}

// readAll reads a binary into the image at dst, mode 0755.
func readAll(src, dst string) (File, error) {
	f, err := os.Open(src)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return File{}, err
	}
	return File{Path: dst, Mode: 0o755, Data: data}, nil
}
