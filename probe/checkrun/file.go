package checkrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/gpusla/gpusla/internal/atomicfile"
)

// MaxSnapshotBytes bounds a snapshot file: a real one is a few tens of KiB
// per GPU plus the kernel log's NVRM lines.
const MaxSnapshotBytes = 64 << 20

// WriteSnapshot writes s as indented JSON to path, whole or not at all
// (internal/atomicfile): a crash never leaves half a snapshot.
func WriteSnapshot(path string, s *Snapshot) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	data = append(data, '\n')
	return atomicfile.WriteFile(path, data, 0o644)
}

// ReadSnapshot loads a snapshot file, rejecting oversized files, unknown
// fields (a typo in a crafted snapshot would otherwise pass silently) and
// other formats.
func ReadSnapshot(path string) (*Snapshot, error) {
	s, _, err := ReadSnapshotBytes(path)
	return s, err
}

// ReadSnapshotBytes is ReadSnapshot, with the file's bytes as they were
// parsed: a replay names its recording by their SHA-256.
func ReadSnapshotBytes(path string) (*Snapshot, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read snapshot: %w", err)
	}
	defer f.Close()
	return readSnapshot(path, f)
}

// readSnapshot reads and parses the snapshot named name from r, reading at
// most one byte past the limit.
func readSnapshot(name string, r io.Reader) (*Snapshot, []byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSnapshotBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	if len(data) > MaxSnapshotBytes {
		return nil, nil, fmt.Errorf("snapshot %s: larger than %d bytes", name, MaxSnapshotBytes)
	}
	s, err := ParseSnapshot(data)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return s, data, nil
}

// ParseSnapshot decodes snapshot JSON.
func ParseSnapshot(data []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, locate(data, err)
	}
	if s.Format != SnapshotFormat {
		return nil, fmt.Errorf("format: %d is not a snapshot format this probe reads (want %d)", s.Format, SnapshotFormat)
	}
	if s.GPU == nil && s.GPUError == "" && s.Host == nil && s.Kernel == nil {
		return nil, fmt.Errorf("no readings: gpu, gpu_error, kernel_log and host are all missing")
	}
	return &s, nil
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	return 1 + bytes.Count(data[:min(int(max(off, 0)), len(data))], []byte("\n"))
}

// locate turns a decoding error into one that names the line and, for a
// field, where in the snapshot it is (which GPU).
func locate(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("line %d: the snapshot ends in the middle of its JSON: the file is truncated", lineAt(data, int64(len(data))))
	case errors.As(err, &se):
		return fmt.Errorf("line %d: %w", lineAt(data, se.Offset), err)
	case errors.As(err, &te):
		field := te.Field
		if line, path, ok := keyPath(data, field[strings.LastIndexByte(field, '.')+1:], te.Offset); ok {
			return fmt.Errorf("line %d: %s: %s is not a %s", line, where(data, path), te.Value, te.Type)
		}
		return fmt.Errorf("line %d: %s: %s is not a %s", lineAt(data, te.Offset), field, te.Value, te.Type)
	}
	const unknown = "json: unknown field "
	if msg := err.Error(); strings.HasPrefix(msg, unknown) {
		key, uerr := strconv.Unquote(strings.TrimPrefix(msg, unknown))
		if uerr == nil {
			if line, path, ok := keyPath(data, key, -1); ok {
				return fmt.Errorf("line %d: %s: unknown field %q", line, where(data, path), key)
			}
		}
	}
	return err
}

// devicePath matches the JSON path of a GPU's readings.
var devicePath = regexp.MustCompile(`^gpu\.devices\[(\d+)\]`)

// where names a JSON path, and the GPU it belongs to when it is inside
// one ("gpu.devices[1].memroy_total_mib (GPU 1, NVIDIA H200)").
func where(data []byte, path string) string {
	m := devicePath.FindStringSubmatch(path)
	if m == nil {
		return path
	}
	i, _ := strconv.Atoi(m[1])
	// A lenient second decode recovers the device's name and index.
	var lax struct {
		GPU *struct {
			Devices []struct {
				Index int    `json:"index"`
				Name  string `json:"name"`
			} `json:"devices"`
		} `json:"gpu"`
	}
	if json.Unmarshal(data, &lax) == nil && lax.GPU != nil && i < len(lax.GPU.Devices) {
		d := lax.GPU.Devices[i]
		return fmt.Sprintf("%s (GPU %d, %s)", path, d.Index, d.Name)
	}
	return fmt.Sprintf("%s (GPU entry %d)", path, i)
}

// keyPath finds an object key named key in the JSON document and returns
// its line and path ("gpu.devices[1].memroy_total_mib"): the first one, or
// with before >= 0 the last one before that byte offset.
func keyPath(data []byte, key string, before int64) (int, string, bool) {
	var line int
	var found string
	type frame struct {
		array     bool
		index     int
		expectKey bool
		key       string
	}
	var stack []*frame
	path := func(last string) string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.array:
				fmt.Fprintf(&b, "[%d]", f.index)
			case !f.expectKey:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		return b.String() + last
	}
	done := func() { // a value ended
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.array {
			top.index++
		} else {
			top.expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil || before >= 0 && dec.InputOffset() > before {
			return line, found, found != ""
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].expectKey {
			if k, ok := tok.(string); ok {
				if k == key {
					line, found = lineAt(data, dec.InputOffset()), path(k)
					if before < 0 {
						return line, found, true
					}
				}
				stack[n-1].key, stack[n-1].expectKey = k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{expectKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{array: true})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
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
