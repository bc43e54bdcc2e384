package pcisys

import (
	"encoding/json"
	"os"
	"testing"
)

// The fixture tree's kernel view, as JSON, is the golden file: any change
// in what is read shows as a diff.
func TestReadFixtureGolden(t *testing.T) {
	for _, tree := range []string{"h200x2", "one-gpu"} {
		got, err := json.MarshalIndent(Read("testdata/"+tree), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden := "testdata/" + tree + ".golden.json"
		if os.Getenv("UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
		}
		if string(want) != string(got)+"\n" {
			t.Errorf("%s:\n got %s\nwant %s", tree, got, want)
		}
	}
}

func TestReadWithoutDriverOrSys(t *testing.T) {
	s := Read(t.TempDir())
	if s.SysError == "" || s.ProcError == "" || len(s.Devices) != 0 {
		t.Fatalf("empty root: %+v", s)
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"00000000:3B:00.0": "0000:3b:00.0",
		"0000:3b:00.0":     "0000:3b:00.0",
		"0001:C1:00.0":     "0001:c1:00.0",
	} {
		if got := Normalise(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
