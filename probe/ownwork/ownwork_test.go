package ownwork

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestBeginAndEndInOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", FileName)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := &Recorder{Path: path, Now: func() time.Time { return now }}
	if w := r.State(); w.Running || !w.EndedAt.IsZero() || !slices.Contains(w.PIDs, uint32(os.Getpid())) {
		t.Fatalf("fresh: %+v", w)
	}
	end := r.Begin()
	if w := r.State(); !w.Running || w.Begun != 1 {
		t.Fatalf("running: %+v", w)
	}
	now = now.Add(30 * time.Second)
	end()
	end() // a second call does nothing
	w := r.State()
	if w.Running || !w.EndedAt.Equal(now) {
		t.Fatalf("ended: %+v", w)
	}
	// Another process (a later `gpuprobe check`) reads the end from the file.
	other := &Recorder{Path: path}
	if w := other.State(); w.Running || !w.EndedAt.Equal(now) {
		t.Fatalf("from the file: %+v", w)
	}
}

func writeRecord(t *testing.T, path string, rec record) {
	t.Helper()
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Another probe process that is burning is the probe's own work while its
// PID lives; once it is gone (killed mid-burn) it no longer is.
func TestAnotherProcessRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Skip("no sleep binary:", err)
	}
	pid := child.Process.Pid
	writeRecord(t, path, record{PID: pid, StartedAt: time.Now().UTC()})
	r := &Recorder{Path: path}
	w := r.State()
	if !w.Running || !slices.Contains(w.PIDs, uint32(pid)) {
		t.Fatalf("live burner: %+v", w)
	}
	child.Process.Kill()
	child.Wait()
	if w := r.State(); w.Running || slices.Contains(w.PIDs, uint32(pid)) {
		t.Fatalf("dead burner: %+v", w)
	}
	// A "running" record older than MaxRunning is not believed.
	writeRecord(t, path, record{PID: os.Getppid(), StartedAt: time.Now().Add(-MaxRunning - time.Minute)})
	if w := r.State(); w.Running {
		t.Fatalf("stale record: %+v", w)
	}
}

func TestUnreadableRecordIsIgnored(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("{not json"), 0o644)
	if w := (&Recorder{Path: path}).State(); w.Running || !w.EndedAt.IsZero() {
		t.Fatalf("%+v", w)
	}
	var nilRec *Recorder
	nilRec.Begin()()
	if w := nilRec.State(); w.Running {
		t.Fatal("a nil recorder records nothing")
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(EnvDir, "/var/lib/x")
	if p := DefaultPath(); p != "/var/lib/x/"+FileName {
		t.Errorf("%s", p)
	}
	t.Setenv(EnvDir, "")
	if p := DefaultPath(); filepath.Base(p) != FileName {
		t.Errorf("%s", p)
	}
}
