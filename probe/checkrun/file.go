package checkrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// MaxSnapshotBytes bounds a snapshot file: a real one is a few tens of KiB
// per GPU plus the kernel log's NVRM lines.
const MaxSnapshotBytes = 64 << 20

// WriteSnapshot writes s as indented JSON to path atomically: a temporary
// file in the same directory, synced, then renamed over path, so a crash
// never leaves half a snapshot.
func WriteSnapshot(path string, s *Snapshot) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	data = append(data, '\n')
	return writeAtomic(path, data)
}

func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // make the rename itself durable; not all filesystems support it
		d.Close()
	}
	return nil
}

// ReadSnapshot loads a snapshot file, rejecting oversized files, unknown
// fields (a typo in a crafted snapshot would otherwise pass silently) and
// other formats.
func ReadSnapshot(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	defer f.Close()
	return readSnapshot(path, f)
}

// readSnapshot reads and parses the snapshot named name from r, reading at
// most one byte past the limit.
func readSnapshot(name string, r io.Reader) (*Snapshot, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSnapshotBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	if len(data) > MaxSnapshotBytes {
		return nil, fmt.Errorf("snapshot %s: larger than %d bytes", name, MaxSnapshotBytes)
	}
	s, err := ParseSnapshot(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return s, nil
}

// ParseSnapshot decodes snapshot JSON.
func ParseSnapshot(data []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		return nil, err
	}
	if s.Format != SnapshotFormat {
		return nil, fmt.Errorf("format: %d is not a snapshot format this probe reads (want %d)", s.Format, SnapshotFormat)
	}
	if s.GPU == nil && s.GPUError == "" && s.Host == nil && s.Kernel == nil {
		return nil, fmt.Errorf("no readings: gpu, gpu_error, kernel_log and host are all missing")
	}
	return &s, nil
}

// barProgress shows a progress bar on a terminal.
type barProgress struct {
	w       io.Writer
	bar     *progressbar.ProgressBar
	running bool // a step has been announced and not yet counted
}

// TerminalProgress returns a progress bar on f when f is a terminal, and
// no progress output otherwise (pipes, files, CI logs).
func TerminalProgress(f *os.File) Progress {
	if f == nil || !term.IsTerminal(int(f.Fd())) {
		return noProgress{}
	}
	return &barProgress{w: f}
}

func (p *barProgress) Start(steps int) {
	p.bar = progressbar.NewOptions(steps,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("gpuprobe check"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionClearOnFinish(),
	)
}

// Step announces the step about to run; the one before it is then done.
func (p *barProgress) Step(name string) {
	if p.bar == nil {
		return
	}
	if p.running {
		p.bar.Add(1)
	}
	p.bar.Describe(name)
	p.running = true
}

func (p *barProgress) Done() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
}
