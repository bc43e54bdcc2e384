package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/probe/config"
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

// TestReadmeGoIsGoMods: the README's set-up names the Go that go.mod asks
// for, where to get it, and what the Go of Debian's own package says of
// go.mod, so a renter who installed that one knows what went wrong.
func TestReadmeGoIsGoMods(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)(\.\d+)?$`).FindStringSubmatch(string(mod))
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	goVer := m[1] + "." + m[2]
	for _, want := range []string{
		"## Set-up (a fresh Debian machine with Go " + goVer + ")",
		"Go " + goVer + " or later comes from go.dev/dl",
		"invalid go version '" + strings.TrimPrefix(m[0], "go ") + "'",
	} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q (go.mod: %s)", want, m[0])
		}
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
	// The seal the walkthrough's report quotes on its claim pages: the
	// README says verify re-derives it, so verify's output must show each.
	var quoted []string
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
		case strings.Contains(c, " --help"):
			t.Run(c, func(t *testing.T) {
				out, _ := readmeRun(t, dir, c)
				checkHelp(t, c, out)
			})
		default:
			t.Run(c, func(t *testing.T) {
				out, stderr := readmeRun(t, dir, c)
				checkReadmeOutput(t, c, out, stderr)
				switch {
				case strings.Contains(c, " report ") && strings.Contains(c, "--events "):
					quoted = sealQuoted(out)
				case strings.Contains(c, " verify "):
					checkSealRederived(t, c, out, quoted)
				}
				if strings.Contains(c, " apikey create ") {
					if key = strings.TrimSpace(out); !strings.HasPrefix(key, "gsk_") || !strings.Contains(stderr, "scopes read,tickets)") {
						t.Fatalf("%s printed %q (%s), want a gsk_ key with the read and tickets scopes", c, key, strings.TrimSpace(stderr))
					}
				}
			})
		}
	}
	t.Run("every flag the README names", func(t *testing.T) { readmeFlags(t, dir, string(raw)) })
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
		checkNodeConfig(t, c, out)
	case strings.Contains(c, " node list "):
		if !strings.Contains(out, "gz-h200-01") || !strings.Contains(out, "no heartbeat yet") || strings.Contains(out, "false") {
			t.Errorf("%s:\n%s", c, out)
		}
	case strings.Contains(c, "gpuprobe check ") && strings.Contains(c, " --expect "):
		// Each form of --expect states the order: two GPUs pass, eight fail.
		want := "; PASS in "
		if strings.Contains(c, "gpus=8") {
			want = "exit 3 "
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: output lacks %q:\n%s", c, want, tail(out, 1500))
		}
	case strings.Contains(c, " terms check "):
		// cn-example is a zh contract: its summary is in Chinese, no line blank.
		if !strings.Contains(out, "合同 cn-example 校验通过") || strings.Contains(out, "：\n") {
			t.Errorf("%s:\n%s", c, out)
		}
	case strings.Contains(c, " bundle "):
		if !strings.Contains(out, "wrote evidence.zip") {
			t.Errorf("%s:\n%s", c, out)
		}
	case strings.Contains(c, " verify "):
		if !strings.Contains(out, "OK: every file, line and batch matches the manifest") {
			t.Errorf("%s:\n%s", c, out)
		}
	}
}

// sealHex is a SHA-256 or chain head on a claim page's evidence lines.
var sealHex = regexp.MustCompile(`(?m)^- (?:Evidence bundle|证据包)：?:?[^\n]*?([0-9a-f]{64})`)

// sealQuoted is every seal value a report's claim pages quote.
func sealQuoted(out string) []string {
	var vs []string
	for _, m := range sealHex.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(vs, m[1]) {
			vs = append(vs, m[1])
		}
	}
	return vs
}

// checkSealRederived holds verify to the claim letter's words ("gpusla verify
// evidence.zip re-derives each of these values"): it prints every value the
// report of the same inputs quoted — the observations' and the records'
// SHA-256 as well as the chain head.
func checkSealRederived(t *testing.T, c, out string, quoted []string) {
	t.Helper()
	if len(quoted) < 3 {
		t.Fatalf("the README's report quoted %d seal values (%q) before %s; want the observations' SHA-256, the chain head and the records' SHA-256", len(quoted), quoted, c)
	}
	for _, v := range quoted {
		if !strings.Contains(out, v) {
			t.Errorf("%s does not show %s, which the report's claim page quotes and says verify re-derives:\n%s", c, v, out)
		}
	}
}

// checkNodeConfig holds node add's printed config to what a probe on the
// rented node needs: the probe accepts it as it is (probe/config.Parse, as
// gpuprobe run reads it), it pushes over https (a remote probe refuses plain
// http), and it is to be saved where the shipped systemd unit reads it.
func checkNodeConfig(t *testing.T, c, out string) {
	t.Helper()
	_, doc, ok := strings.Cut(out, "\n---\n")
	if !ok {
		t.Fatalf("%s printed no probe config:\n%s", c, out)
	}
	cfg, err := config.Parse([]byte(doc), "node add's config")
	if err != nil {
		t.Fatalf("%s: a probe refuses the config it printed: %v\n%s", c, err, doc)
	}
	if !strings.HasPrefix(cfg.Backend.URL, "https://") {
		t.Errorf("%s: backend.url %q, which a probe on another machine refuses", c, cfg.Backend.URL)
	}
	unit, err := os.ReadFile(filepath.Join(root, "probe", "deploy", "gpuprobe.service"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "save the config below as "+config.DefaultPath) || !strings.Contains(string(unit), " run --config "+config.DefaultPath+"\n") {
		t.Errorf("%s: the config's path is not the one the shipped unit runs with (%s):\n%s", c, config.DefaultPath, out)
	}
}

// helpFlag is a flag line of --help: "  -o, --output FILE   usage" or
// "      --no-stress   usage"; its value's name, when shown, is one word.
var helpFlag = regexp.MustCompile(`^\s+(?:-[a-zA-Z], )?--([a-z0-9][a-z0-9-]*)(?: (\S+))?\s{2,}\S`)

// checkHelp holds a --help text to what a reader takes from it: every flag
// line names the flag and at most one word for its value (FILE, URL,
// string), never a phrase of its usage.
func checkHelp(t *testing.T, c, out string) {
	t.Helper()
	n, flags := 0, false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, "Flags:") {
			flags = true // "Flags:", "Global Flags:"
			continue
		}
		if !flags || !strings.HasPrefix(strings.TrimSpace(line), "-") {
			continue
		}
		m := helpFlag.FindStringSubmatch(line)
		if m == nil || m[2] != "" && !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_=]*$`).MatchString(m[2]) {
			t.Errorf("%s: a mangled flag line: %q", c, line)
			continue
		}
		n++
	}
	if n < 3 {
		t.Errorf("%s shows %d flags:\n%s", c, n, out)
	}
}

// readmeFlags checks that every flag the README names (in a command or in
// its prose) is a flag of the command it names there, or of one of the
// commands the README runs: each command's --help lists it.
func readmeFlags(t *testing.T, dir, md string) {
	cmds := map[string]bool{}
	for _, m := range regexp.MustCompile("(?:bin/)?(gpusla|gpuprobe) ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?").FindAllStringSubmatch(md, -1) {
		cmds[m[1]+" "+m[2]] = true
		if m[3] != "" {
			cmds[m[1]+" "+m[2]+" "+m[3]] = true
		}
	}
	known := map[string]bool{"help": true}
	for c := range cmds {
		args := strings.Fields(c)
		cmd := exec.Command(filepath.Join(dir, "bin", args[0]), append(args[1:], "--help")...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), "Usage:") {
			continue // not a command ("gpusla keeps …"), or one word too many
		}
		for _, line := range strings.Split(string(out), "\n") {
			if m := helpFlag.FindStringSubmatch(line); m != nil {
				known[m[1]] = true
			}
		}
	}
	// Flags in code: the README's commands and its inline code, but not
	// those of other tools (sam deploy --guided, curl -H).
	var code []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(md, -1) {
		code = append(code, m[1])
	}
	code = append(code, readmeCommands(md)...)
	for _, c := range code {
		if w := strings.Fields(c); len(w) > 0 && slices.Contains([]string{"sam", "curl", "go", "git", "aws", "systemctl", "make"}, w[0]) {
			continue
		}
		for _, m := range regexp.MustCompile(`(?:^|[\s(])--([a-z][a-z0-9-]+)`).FindAllStringSubmatch(c, -1) {
			if !known[m[1]] {
				t.Errorf("the README names --%s (in %q), which no command it shows has (their --help)", m[1], c)
			}
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
	readmeStatus(t, dir, base, demo.ID)
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
	readmeQuietLog(t, out.String())
	return true
}

// readmeQuietLog holds serve's first minute to a log a newcomer can read:
// a warning is the demo's own narration of what it is about to break
// (demo=true), nothing else — no warning that the demo's own contract is
// unknown, no line per failed retry.
func readmeQuietLog(t *testing.T, log string) {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "level=WARN") && !strings.Contains(line, "demo=true") || strings.Contains(line, "level=ERROR") {
			t.Errorf("serve's first minute warns a newcomer: %s", line)
		}
	}
}

// readmeStatus checks the status page as the README promises it: public
// without a token, the demo node on it (the demo contract's terms serve
// wrote on its first start put it there), and the team view with the token
// serve wrote to data/status.token.
func readmeStatus(t *testing.T, dir, base, demo string) {
	t.Helper()
	get := func(url string) (int, string) {
		r, err := http.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	if code, body := get(base + statuspage.PathJSON); code != 200 || !strings.Contains(body, demo) {
		t.Errorf("public %s: %d, want 200 listing %s:\n%.600s", statuspage.PathJSON, code, demo, body)
	}
	if code, body := get(base + statuspage.PathStatus); code != 200 || !strings.Contains(body, "<html") {
		t.Errorf("public %s: %d:\n%.300s", statuspage.PathStatus, code, body)
	}
	token, err := os.ReadFile(filepath.Join(dir, "data", "status.token"))
	if err != nil {
		t.Fatalf("serve wrote no data/status.token: %v", err)
	}
	if code, body := get(base + statuspage.PathStatus + "?token=" + strings.TrimSpace(string(token))); code != 200 || !strings.Contains(body, demo) {
		t.Errorf("team view: %d:\n%.300s", code, body)
	}
}
