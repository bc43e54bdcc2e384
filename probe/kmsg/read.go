package kmsg

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// Log is the raw NVIDIA part of the kernel log: every line mentioning
// NVRM, as read, so a snapshot keeps the evidence verbatim.
type Log struct {
	Source string   `json:"source"`          // "/dev/kmsg", "dmesg", a file name, or "" when unread
	Lines  []string `json:"lines,omitempty"` // lines containing "NVRM:"
	Error  string   `json:"error,omitempty"` // why the log could not be read
}

// XIDs parses the log's XID lines.
func (l *Log) XIDs() []Xid {
	if l == nil {
		return nil
	}
	return Parse(l.Lines)
}

// Reader reads the kernel log. Device and DmesgCommand can be pointed
// elsewhere in tests; the zero value reads the real machine.
type Reader struct {
	Device       string   // default "/dev/kmsg"
	DmesgCommand []string // default ["dmesg"]
}

// maxRecord is larger than the kernel's record limit (1 KiB text plus
// dictionary), so one read returns one whole record.
const maxRecord = 8192

// Read returns the NVRM lines since boot (as far as the ring buffer
// reaches). It tries /dev/kmsg first and falls back to dmesg, which works
// where /dev/kmsg is not readable but dmesg is allowed. Only when both fail
// is the returned Log's Error set; the error is also returned.
func (r Reader) Read(ctx context.Context) (*Log, error) {
	dev := r.Device
	if dev == "" {
		dev = "/dev/kmsg"
	}
	lines, kerr := readKmsg(dev)
	if kerr == nil {
		return &Log{Source: dev, Lines: lines}, nil
	}
	cmd := r.DmesgCommand
	if len(cmd) == 0 {
		cmd = []string{"dmesg"}
	}
	out, derr := exec.CommandContext(ctx, cmd[0], cmd[1:]...).Output()
	if derr == nil {
		return &Log{Source: strings.Join(cmd, " "), Lines: nvrmLines(out)}, nil
	}
	var ee *exec.ExitError
	if errors.As(derr, &ee) && len(ee.Stderr) > 0 {
		derr = fmt.Errorf("%w: %s", derr, strings.TrimSpace(string(ee.Stderr)))
	}
	err := fmt.Errorf("kernel log unreadable: %s: %v; %s: %v", dev, kerr, cmd[0], derr)
	if errors.Is(kerr, os.ErrPermission) {
		// Not a fault of the node's: the check is run without the right.
		err = fmt.Errorf("%w: the kernel log needs root (or CAP_SYSLOG): run gpuprobe as root (sudo gpuprobe check)", err)
	}
	return &Log{Error: err.Error()}, err
}

// readKmsg reads every record in the ring buffer without blocking: the
// device is opened non-blocking and read with plain system calls, since
// Go's poller would otherwise wait for new records instead of returning
// at the end of the buffer.
func readKmsg(path string) ([]string, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var lines []string
	buf := make([]byte, maxRecord)
	for {
		n, err := unix.Read(fd, buf)
		switch {
		case err == unix.EAGAIN:
			return lines, nil
		case err == unix.EPIPE:
			// Records were overwritten while we read; carry on with the next.
			continue
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, err
		case n == 0:
			return lines, nil
		}
		// A record is "prio,seq,usec,flags;text\n" followed by dictionary
		// lines that start with a space; keep the first line.
		rec := buf[:n]
		if i := bytes.IndexByte(rec, '\n'); i >= 0 {
			rec = rec[:i]
		}
		if bytes.Contains(rec, []byte("NVRM:")) {
			lines = append(lines, string(rec))
		}
	}
}

func nvrmLines(out []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "NVRM:") {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

// FromText builds a Log from a saved log file's content (dmesg, journal
// or /dev/kmsg format), for `--kernel-log FILE` and tests.
func FromText(source string, text []byte) *Log {
	return &Log{Source: source, Lines: nvrmLines(text)}
}

// File reads a saved kernel log (dmesg, dmesg -T, journalctl -k or
// /dev/kmsg format) in place of the live one.
type File string

// Read returns the file's NVRM lines; an unreadable file is reported in
// the Log's Error as well as returned.
func (f File) Read(context.Context) (*Log, error) {
	b, err := os.ReadFile(string(f))
	if err != nil {
		return &Log{Source: string(f), Error: err.Error()}, err
	}
	return FromText(string(f), b), nil
}
