// Package kernels holds the GPU code of gpuprobe's stress tests: CUDA C in
// burn.cu, compiled by gen.sh into PTX that is embedded here. The CUDA
// driver compiles PTX for whatever card it meets, so no toolkit is needed
// where the probe runs.
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
	PTX  []byte
	// Source says where the PTX came from: "embedded" or a file path.
	Source string
}

// Variants lists the PTX variants available, lowest Arch first.
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
		arch, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(n, "burn_sm"), ".ptx"))
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
		out = append(out, Variant{Arch: arch, PTX: b, Source: src})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Arch < out[j].Arch })
	return out, nil
}

// Select picks the newest variant a card of compute capability
// major.minor can run: PTX for arch N runs on any card with CC >= N.
func Select(major, minor int) (Variant, error) {
	vs, err := Variants()
	if err != nil {
		return Variant{}, err
	}
	cc := major*10 + minor
	best := -1
	for i, v := range vs {
		if v.Arch <= cc {
			best = i
		}
	}
	if best < 0 {
		if len(vs) == 0 {
			return Variant{}, fmt.Errorf("no PTX embedded: run probe/kernels/gen.sh and rebuild")
		}
		return Variant{}, fmt.Errorf("compute capability %d.%d is older than the oldest kernel variant (sm_%d)", major, minor, vs[0].Arch)
	}
	return vs[best], nil
}
