package checkrun

import (
	"embed"
	"fmt"
	"path"
)

// recorded holds the snapshots of real machines that the tests judge,
// built in so that a program can replay them without the source tree (the
// demo node of `gpusla serve`). The linker drops them from programs that
// never call Recorded, such as gpuprobe.
//
//go:embed testdata/snapshots/*.json
var recorded embed.FS

// Recorded parses the recorded snapshot name (a file name of
// testdata/snapshots, e.g. "h200x2-real.json").
func Recorded(name string) (*Snapshot, error) {
	f, err := recorded.Open(path.Join("testdata/snapshots", name))
	if err != nil {
		return nil, fmt.Errorf("recorded snapshot %q: %w", name, err)
	}
	defer f.Close()
	s, _, err := readSnapshot("recorded "+name, f)
	return s, err
}
