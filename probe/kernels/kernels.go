// Package kernels holds the GPU code of gpuprobe's stress tests: CUDA C in
// burn.cu, compiled by gen.sh into PTX that is embedded here. The CUDA
// driver compiles PTX for whatever card it meets, so no toolkit is needed
// where the probe runs.
//
// Part of step 1 of the observation pipeline (read, judge, observe, spool,
// push): the GPU code the stress tests measure with.
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

//go:embed ptx
var embedded embed.FS

// EnvDir names an environment variable that, when set, makes Select read
// burn_smNN.ptx from that directory instead of the embedded copies. It is
// for trying freshly generated PTX (gen.sh OUTDIR) without rebuilding.
const EnvDir = "GPUPROBE_PTX_DIR"

// Variant is one compiled PTX of burn.cu.
type Variant struct {
	// Arch is the compute capability the PTX targets, as major*10+minor
	// (70, 80, 90).
	Arch int
	// Specific marks arch-specific PTX (compute_90a, file burn_sm90a.ptx):
	// it holds features of that one architecture (wgmma), so only a card
	// of exactly that compute capability runs it, never a newer one.
	Specific bool
	PTX      []byte
	// Source says where the PTX came from: "embedded" or a file path.
	Source string
}

// Name is the variant's target as PTX writes it: sm_90, sm_90a.
func (v Variant) Name() string {
	n := fmt.Sprintf("sm_%d", v.Arch)
	if v.Specific {
		n += "a"
	}
	return n
}

// Runs reports whether a card of compute capability cc (major*10+minor)
// can run the variant: PTX for arch N runs on any card with CC >= N,
// arch-specific PTX only on CC == N.
func (v Variant) Runs(cc int) bool {
	if v.Specific {
		return cc == v.Arch
	}
	return v.Arch <= cc
}

// Variants lists the PTX variants available, lowest Arch first (an
// arch-specific one after the portable one of the same Arch).
func Variants() ([]Variant, error) {
	var fsys fs.FS
	source := "embedded"
	if dir := os.Getenv(EnvDir); dir != "" {
		fsys = os.DirFS(dir)
		source = dir
	} else {
		sub, err := fs.Sub(embedded, "ptx")
		if err != nil {
			return nil, err
		}
		fsys = sub
	}
	names, err := fs.Glob(fsys, "burn_sm*.ptx")
	if err != nil {
		return nil, err
	}
	var out []Variant
	for _, n := range names {
		tag := strings.TrimSuffix(strings.TrimPrefix(n, "burn_sm"), ".ptx")
		specific := strings.HasSuffix(tag, "a")
		arch, err := strconv.Atoi(strings.TrimSuffix(tag, "a"))
		if err != nil {
			continue
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("read PTX %s: %w", n, err)
		}
		src := source
		if source != "embedded" {
			src = filepath.Join(source, n)
		}
		out = append(out, Variant{Arch: arch, Specific: specific, PTX: b, Source: src})
	}
	// Lowest first; an arch-specific variant after the portable one of its
	// arch, since it holds everything that one does and more.
	sort.Slice(out, func(i, j int) bool {
		if out[i].Arch != out[j].Arch {
			return out[i].Arch < out[j].Arch
		}
		return !out[i].Specific && out[j].Specific
	})
	return out, nil
}

// Select picks the newest variant a card of compute capability
// major.minor can run (Variant.Runs): sm_90a for 9.0, sm_90 for 10.0.
func Select(major, minor int) (Variant, error) {
	vs, err := Variants()
	if err != nil {
		return Variant{}, err
	}
	cc := major*10 + minor
	best := -1
	for i, v := range vs {
		if v.Runs(cc) {
			best = i
		}
	}
	if best < 0 {
		if len(vs) == 0 {
			return Variant{}, fmt.Errorf("no PTX embedded: run probe/kernels/gen.sh and rebuild")
		}
		return Variant{}, fmt.Errorf("compute capability %d.%d is older than the oldest kernel variant (%s)", major, minor, vs[0].Name())
	}
	return vs[best], nil
}
