package specdb

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusla/gpusla/sla/yardstick"
)

var updateMirror = flag.Bool("update-yardsticks", false, "rewrite sla/yardstick/yardsticks.json from the spec database")

// mirror is the spec database's yardsticks as sla/yardstick holds them:
// each threshold's official (datasheet) and healthy figures, under the
// scorecard's stress figure, for every model that has any.
func mirror(db *DB) yardstick.Table {
	t := yardstick.Table{Models: []yardstick.Model{}}
	for _, m := range db.Models {
		ym := yardstick.Model{ID: m.ID, Family: m.Family, Names: m.Names, Aliases: m.Aliases, MemoryMiB: m.MemoryMiB, Figures: map[string]yardstick.Yardstick{}}
		for name, th := range m.Thresholds {
			fig, ok := yardstick.Figure(name)
			if !ok || (th.Official == 0 && th.Healthy == 0) {
				continue
			}
			ym.Figures[fig] = yardstick.Yardstick{Datasheet: th.Official, Healthy: th.Healthy}
		}
		if len(ym.Figures) > 0 {
			t.Models = append(t.Models, ym)
		}
	}
	return t
}

// The scorecard's yardsticks are the probe's: the mirror the backend
// embeds equals what the spec database says (run with -update-yardsticks
// after changing specs.yaml, and read the diff).
func TestYardstickMirror(t *testing.T) {
	want, err := json.MarshalIndent(mirror(Default()), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	path := filepath.Join("..", "..", "sla", "yardstick", "yardsticks.json")
	if *updateMirror {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the spec database: run go test ./probe/specdb/ -run TestYardstickMirror -update-yardsticks and read the diff", path)
	}
	// And the table the backend embeds is that file.
	emb, err := json.MarshalIndent(yardstick.Embedded(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if !*updateMirror && string(append(emb, '\n')) != string(want) {
		t.Errorf("the embedded table differs from %s", path)
	}
	// A healthy H200 SXM burned 65.3 TFLOP/s FP32 against a datasheet
	// 66.9 (REFERENCE.md; specs.yaml's calibration).
	if y, ok := yardstick.Lookup("H200 SXM 141GB", "gpu.burn.fp32"); !*updateMirror && (!ok || y.Datasheet != 66.9 || y.Healthy != 65.3) {
		t.Errorf("H200 SXM fp32 yardstick %+v %v", y, ok)
	}
}
