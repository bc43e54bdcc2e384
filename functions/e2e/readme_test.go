package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
)

// readmeCommands extracts the shell commands of a Markdown file: lines of
// fenced blocks marked sh, bash, shell, console or unmarked, and of
// indented (4-space) code blocks; "$ " prompts are dropped and lines ending
// in a backslash are joined.
func readmeCommands(md string) []string {
	var cmds []string
	var cur string
	add := func(line string) {
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		if line == "" || strings.HasPrefix(line, "#") {
			return
		}
		if rest, ok := strings.CutSuffix(line, "\\"); ok {
			cur += strings.TrimSpace(rest) + " "
			return
		}
		cmds = append(cmds, cur+line)
		cur = ""
	}
	fence, shell, prevBlank, indented := false, false, true, false
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		blank := strings.TrimSpace(line) == ""
		if t := strings.TrimSpace(line); !indented && strings.HasPrefix(t, "```") {
			if fence {
				fence = false
				continue
			}
			fence = true
			lang := strings.TrimSpace(strings.TrimPrefix(t, "```"))
			shell = lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console"
			continue
		}
		switch {
		case fence:
			if shell {
				add(line)
			}
		case strings.HasPrefix(line, "    ") && (prevBlank || indented):
			// An indented code block starts after a blank line.
			indented = true
			add(line)
		case !blank:
			indented = false
		}
		prevBlank = blank
	}
	return cmds
}

func TestReadmeCommandsAreExtracted(t *testing.T) {
	md := "intro\n\n    go run ./x serve\n\ntext\n\n```sh\n$ make \\\n  all\n# comment\n```\n\n```yaml\nkey: v\n```\n\n    bash scripts/test.sh\n"
	got := strings.Join(readmeCommands(md), " | ")
	if want := "go run ./x serve | make all | bash scripts/test.sh"; got != want {
		t.Fatalf("commands %q, want %q", got, want)
	}
}

// TestReadmeWalkthrough runs every command of README.md exactly as
// written, in a fresh clone of the repository: a long-running `serve` until
// it answers and shows the demo node's data, every other command to a zero
// exit. The test command itself (scripts/test.sh) is not run again from
// inside the tests.
func TestReadmeWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the README's commands")
	}
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(string(raw))
	if len(cmds) == 0 {
		t.Fatal("README.md has no commands")
	}
	dir := cleanClone(t)
	// A scratch folder the README names under /tmp may be left from an
	// earlier run on this machine; a clean machine has none.
	for _, c := range cmds {
		for _, f := range strings.Fields(c) {
			if strings.HasPrefix(f, "/tmp/gpusla") && !strings.Contains(f, "..") {
				if _, err := os.Stat(f); err == nil {
					t.Logf("removing %s, left by an earlier run", f)
					if err := os.RemoveAll(f); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	// The key the README's apikey step printed: the walk's serve step uses
	// it, as the reader does, so the README's order is the one that works.
	key := ""
	for _, c := range cmds {
		switch {
		case strings.Contains(c, "scripts/test.sh"):
			t.Logf("not run from inside the tests (it is what runs them): %s", c)
		case strings.HasSuffix(c, " serve") || strings.Contains(c, " serve "):
			t.Run(c, func(t *testing.T) {
				if key == "" {
					t.Fatal("the README runs serve before any step made an API key (apikey create) for its read views")
				}
				readmeServe(t, dir, c, key)
			})
		default:
			t.Run(c, func(t *testing.T) {
				out, stderr := readmeRun(t, dir, c)
				checkReadmeOutput(t, c, out, stderr)
				if strings.Contains(c, " apikey create ") {
					if key = strings.TrimSpace(out); !strings.HasPrefix(key, "gsk_") || !strings.Contains(stderr, "scopes read,tickets)") {
						t.Fatalf("%s printed %q (%s), want a gsk_ key with the read and tickets scopes", c, key, strings.TrimSpace(stderr))
					}
				}
			})
		}
	}
}

// readmeRun runs one README command to a zero exit and returns its
// standard output and error.
func readmeRun(t *testing.T, dir, c string) (string, string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", c)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	timer := time.AfterFunc(5*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", c, err, tail(stdout.String()+stderr.String(), 4000))
	}
	return stdout.String(), stderr.String()
}

// checkReadmeOutput holds a command's output to what the README's words
// around it promise a newcomer: node add finds the terms the README put in
// place (no warning), and node list says a node never heard from has no
// heartbeat yet rather than "unreachable: false".
func checkReadmeOutput(t *testing.T, c, out, stderr string) {
	t.Helper()
	switch {
	case strings.Contains(c, " node add "):
		if strings.Contains(stderr, "warning") {
			t.Errorf("%s warned:\n%s", c, stderr)
		}
		if !strings.Contains(out, "secret") {
			t.Errorf("%s printed no secret:\n%s", c, out)
		}
	case strings.Contains(c, " node list "):
		if !strings.Contains(out, "gz-h200-01") || !strings.Contains(out, "no heartbeat yet") || strings.Contains(out, "false") {
			t.Errorf("%s:\n%s", c, out)
		}
	}
}

// cleanClone clones the repository's committed state (CI's own checkout is
// one already; here it keeps the shared tree's ./data and uncommitted files
// out of it).
func cleanClone(t *testing.T) string {
	t.Helper()
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Logf("not a git checkout; running in %s", root)
		return root
	}
	dir := filepath.Join(t.TempDir(), "gpusla")
	if out, err := exec.Command("git", "clone", "--quiet", "--local", "--no-hardlinks", root, dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v: %s", err, out)
	}
	return dir
}

// readmeServe starts the README's serve command, waits for it on the
// address it announces, and checks with the README's key that the demo
// node is registered and pushing.
func readmeServe(t *testing.T, dir, c, key string) {
	// Another program on this machine may take the port between the check
	// and serve's bind; that is the machine's state, not the README's fault.
	for attempt := 1; ; attempt++ {
		if readmeServeOnce(t, dir, c, key, attempt == 3) {
			return
		}
		t.Logf("127.0.0.1:8080 was taken when serve bound it (attempt %d); again", attempt)
	}
}

// readmeServeOnce returns false (and has stopped serve) when serve could
// not bind its port and retry is allowed; otherwise it runs the checks.
func readmeServeOnce(t *testing.T, dir, c, key string, last bool) bool {
	const addr = "127.0.0.1:8080" // serve's default, which the README relies on
	eventually(t, 60*time.Second, addr+" is free for the README's serve", func() bool {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return false
		}
		l.Close()
		return true
	})
	out := &syncBuf{}
	cmd := exec.Command("bash", "-c", "exec "+c)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()
	base := "http://" + addr
	var demo httpapi.NodeView
	var exitErr error
	eventually(t, 4*time.Minute, "the README's serve answers and its demo node pushes batches:\n"+out.String(), func() bool {
		select {
		case exitErr = <-exited:
			stopped = true
			return true
		default:
		}
		req, _ := http.NewRequest(http.MethodGet, base+httpapi.PathNodes, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer r.Body.Close()
		var nodes []httpapi.NodeView
		if json.NewDecoder(r.Body).Decode(&nodes) != nil {
			return false
		}
		for _, n := range nodes {
			if n.Demo && n.LastSeq >= 1 {
				demo = n
				return true
			}
		}
		return false
	})
	if stopped {
		if !last && strings.Contains(out.String(), "address already in use") {
			return false
		}
		t.Fatalf("%s exited: %v\n%s", c, exitErr, tail(out.String(), 4000))
	}
	t.Logf("demo node %s (%d GPUs %s), last batch %d", demo.ID, demo.GPUCount, demo.GPUModel, demo.LastSeq)
	if r, err := http.Get(base + httpapi.PathHealth); err != nil || r.StatusCode != 200 {
		t.Errorf("GET /healthz: %v %v", r, err)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-exited:
		stopped = true
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not stop within 30 s of Ctrl-C")
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "gpusla.db")); err != nil {
		t.Errorf("serve left no store under ./data: %v", err)
	}
	if !strings.Contains(out.String(), "gpusla serve is up") {
		t.Errorf("serve did not say it is up:\n%s", tail(out.String(), 2000))
	}
	return true
}
