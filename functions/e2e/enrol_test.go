package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/config"
)

// A fleet enrols at once: 50 real gpuprobe processes and 3 more, all
// started together with one 50-use token against one real `gpusla serve`
// on loopback, each proposing its Kubernetes node name ($NODE_NAME, as the
// DaemonSet sets it). Exactly 50 enrol — 50 distinct nodes, 50 distinct
// secrets each kept 0600, every one of them then pushing signed heartbeats
// — and 3 are refused because the token is used up: no use beyond its
// limit. The books hold one enrolment record per node, with the token and
// who made it.
func TestFiftyProbesEnrolAtOnce(t *testing.T) {
	const limit, extra = 50, 3
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	out := run(t, b.env, bin.gpusla, "token", "create", "--data", b.dir, "--provider", "E2E Compute", "--contract", "e2e",
		"--gpu-model", "H200", "--gpus", "2", "--gpu-memory-gb", "141", "--driver", "580", "--price", "5", "--uses", fmt.Sprint(limit),
		"--heartbeat", "1s", "--push", "1s", "--grace", "3s", "--backend-url", b.url(httpapi.PathBatches), "--name", "e2e fleet")
	head, cfgText, ok := strings.Cut(out, "\n---\n")
	if !ok {
		t.Fatalf("token create printed no config:\n%s", out)
	}
	var token string
	for _, line := range strings.Split(head, "\n") {
		if strings.HasPrefix(line, "gpe_") {
			token = line
		}
	}
	if token == "" {
		t.Fatalf("no token in:\n%s", head)
	}
	b.start()
	defer b.stop()

	type member struct {
		node, dir string
		p         *proc
		logs      *syncBuf
	}
	fleet := make([]*member, limit+extra)
	for i := range fleet {
		m := &member{node: fmt.Sprintf("k8s-gpu-%02d", i), dir: t.TempDir(), logs: &syncBuf{}}
		var cfg map[string]any
		if err := yaml.Unmarshal([]byte(cfgText), &cfg); err != nil {
			t.Fatal(err)
		}
		tokFile := filepath.Join(m.dir, "enrol-token")
		if err := os.WriteFile(tokFile, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg["enrol"] = map[string]any{"token_file": tokFile, "state": filepath.Join(m.dir, "enrolment.json")}
		cfg["spool"] = map[string]any{"dir": filepath.Join(m.dir, "spool")}
		cfg["schedules"] = map[string]any{"health": "off", "network": "off", "stress": "off", "usage": "off", "jitter": "1ms"}
		cfg["backend"].(map[string]any)["max_backoff"] = "500ms"
		raw, _ := yaml.Marshal(cfg)
		if err := os.WriteFile(filepath.Join(m.dir, "probe.yaml"), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		fleet[i] = m
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, m := range fleet {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.p = startProc(t, m.logs, []string{"NODE_NAME=" + m.node}, nil, bin.gpuprobe, "run", "--config", filepath.Join(m.dir, "probe.yaml"))
		}()
	}
	wg.Wait()

	enrolled := func(m *member) (config.EnrolState, bool) {
		st, err := config.ReadEnrolState(filepath.Join(m.dir, "enrolment.json"))
		return st, err == nil && st.Done()
	}
	var took time.Duration
	eventually(t, 3*time.Minute, "every probe enrolled or was refused", func() bool {
		for _, m := range fleet {
			if _, ok := enrolled(m); !ok && m.p.running() {
				return false
			}
		}
		took = time.Since(start)
		return true
	})
	secrets := map[string]string{}
	var refused []string
	for _, m := range fleet {
		st, ok := enrolled(m)
		if !ok {
			if !strings.Contains(m.logs.String(), "used up: 50 of 50 enrolments") {
				t.Errorf("%s neither enrolled nor was refused as over the limit:\n%s", m.node, tail(m.logs.String(), 2000))
			}
			refused = append(refused, m.node)
			continue
		}
		if st.Answer.Node != m.node || st.Answer.GPUModel != "H200" || st.Answer.GPUs != 2 || st.Answer.GPUDriver != "580" || st.Key != "" {
			t.Errorf("%s: state %+v", m.node, st.Answer)
		}
		if prev, dup := secrets[st.Answer.Secret]; dup {
			t.Errorf("%s and %s were given the same secret", prev, m.node)
		}
		secrets[st.Answer.Secret] = m.node
		if info, err := os.Stat(filepath.Join(m.dir, "enrolment.json")); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: state file %v, mode %v; want 0600", m.node, err, info.Mode())
		}
	}
	if len(secrets) != limit || len(refused) != extra {
		t.Fatalf("%d enrolled with distinct secrets, %d refused; want %d and %d", len(secrets), len(refused), limit, extra)
	}
	t.Logf("%d probes started at once: %d enrolled, %d refused as over the limit, in %s", len(fleet), limit, extra, took.Round(time.Millisecond))

	eventually(t, 2*time.Minute, "every enrolled node's heartbeats are stored", func() bool {
		ns := b.nodes()
		n := 0
		for _, node := range secrets {
			if v, ok := ns[node]; ok && v.LastSeq >= 1 {
				n++
			}
		}
		return n == limit && len(ns) == limit
	})
	var toks []httpapi.TokenView
	b.getJSON(httpapi.PathEnrolTokens, &toks)
	if len(toks) != 1 || toks[0].Uses != limit || toks[0].MaxUses != limit {
		t.Fatalf("token after the fleet: %+v; want %d of %d uses", toks, limit, limit)
	}
	var recs []store.Enrolment
	b.getJSON(httpapi.PathEnrolments, &recs)
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Token != toks[0].ID || !strings.HasPrefix(r.By, "cli:") || r.ProbeVersion == "" || seen[r.Node] {
			t.Errorf("enrolment record %+v", r)
		}
		seen[r.Node] = true
	}
	if len(seen) != limit {
		t.Fatalf("%d enrolment records, want %d", len(seen), limit)
	}
	for _, m := range fleet {
		if m.p.running() {
			m.p.stop(t)
		}
	}
}
