package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// filled writes a store big enough to have branch pages, overflow pages
// and several buckets, closes it, and returns its path and the node ids.
func filled(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gpusla.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := s.CreateNode(t.Context(), store.Node{ID: fmt.Sprintf("node-%02d", i), Provider: "acme", Contract: "c", SealedSecret: []byte("sealed")}); err != nil {
			t.Fatal(err)
		}
	}
	body := bytes.Repeat([]byte(`{"k":"v"},`), 300)    // 3 KB: several per page
	big := bytes.Repeat([]byte(`{"k":"vvvv"},`), 1500) // 19 KB: overflow pages
	for seq := uint64(1); seq <= 120; seq++ {
		b := body
		if seq%40 == 0 {
			b = big
		}
		if err := s.PutBatch(t.Context(), store.BatchRecord{Node: "node-01", Seq: seq, ID: fmt.Sprint(seq), Body: b, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func damaged(t *testing.T, err error, path, problem string) {
	t.Helper()
	var de *DamagedError
	if !errors.As(err, &de) || de.Path != path || !strings.Contains(err.Error(), problem) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v; want a DamagedError naming %s and saying %q", err, path, problem)
	}
}

// TestDamagedFileIsAnError: an empty, truncated, overwritten or foreign
// file is one clear error naming the file and what is wrong — never a
// panic, a crash, or an empty store — and the file is left as it was.
func TestDamagedFileIsAnError(t *testing.T) {
	orig := filled(t)
	good, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	const ps = 4096
	cases := []struct {
		name    string
		mutate  func([]byte) []byte
		problem string
	}{
		{"empty", func([]byte) []byte { return nil }, "empty (0 bytes)"},
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2/ps*ps] }, "truncated"},
		{"truncated mid-page", func(b []byte) []byte { return b[:highWater(t, b)-ps-100] }, "truncated"},
		{"shorter than a page", func(b []byte) []byte { return b[:1000] }, "truncated"},
		{"shorter than a meta page", func(b []byte) []byte { return b[:40] }, "no valid meta page"},
		{"both meta pages zeroed", func(b []byte) []byte { clear(b[:2*ps]); return b }, "no valid meta page"},
		{"not a bbolt file", func([]byte) []byte { return bytes.Repeat([]byte("SQLite format 3\x00"), 4096) }, "no valid meta page"},
		{"root page zeroed", func(b []byte) []byte { r := rootPage(t, b); clear(b[r*ps : (r+1)*ps]); return b }, "carries the id 0"},
		{"root page garbage", func(b []byte) []byte {
			r := rootPage(t, b)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := r*ps + 16; i < (r+1)*ps; i++ {
				b[i] = byte(rng.Uint32())
			}
			return b
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "gpusla.db")
			data := c.mutate(append([]byte(nil), good...))
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(p)
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			damaged(t, err, p, c.problem)
			if after, _ := os.ReadFile(p); !bytes.Equal(after, data) {
				t.Fatal("the damaged file was changed by the failed open")
			}
		})
	}
}

// TestEveryPageDamagedIsSafe overwrites each page of a store in turn (with
// zeros, with random bytes, with one byte flipped in its header) and opens
// it: the result is an error, or a store whose every record reads back —
// never a panic or a fault, which would end this test binary.
func TestEveryPageDamagedIsSafe(t *testing.T) {
	orig := filled(t)
	good, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	const ps = 4096
	good = good[:highWater(t, good)] // the pages in use; bbolt grows the file ahead of them
	rng := rand.New(rand.NewPCG(7, 8))
	dir := t.TempDir()
	refused := 0
	for pg := 0; pg < len(good)/ps; pg++ {
		for v, mutate := range []func([]byte){
			func(p []byte) { clear(p) },
			func(p []byte) {
				for i := range p {
					p[i] = byte(rng.Uint32())
				}
			},
			func(p []byte) { p[rng.IntN(16)] ^= 1 << rng.IntN(8) },
			func(p []byte) { // a child pointer in a branch page, far away
				for i := 16 + 8; i+8 <= len(p); i += 16 {
					p[i+7] = 0x7f
				}
			},
		} {
			data := append([]byte(nil), good...)
			mutate(data[pg*ps : (pg+1)*ps])
			p := filepath.Join(dir, fmt.Sprintf("p%d-v%d.db", pg, v))
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(p)
			if err != nil {
				var de *DamagedError
				if !errors.As(err, &de) {
					t.Fatalf("page %d variant %d: %v is not a DamagedError", pg, v, err)
				}
				refused++
				os.Remove(p)
				continue
			}
			// Accepted (a free page, or a change bbolt does not read):
			// everything still reads without a crash.
			if _, err := s.ListNodes(t.Context()); err != nil {
				t.Logf("page %d variant %d: list nodes: %v", pg, v, err)
			}
			_, _ = s.ListBatches(t.Context(), "node-01", 0, 1000)
			s.Close()
			os.Remove(p)
		}
	}
	if refused == 0 {
		t.Fatal("no damaged page was refused")
	}
	t.Logf("%d pages × 4 kinds of damage: %d refused, the rest harmless", len(good)/ps, refused)
}

// highWater is the length of the pages in use, by the newest meta page.
func highWater(t *testing.T, b []byte) int {
	m, err := readMeta(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return int(m.pgid) * int(m.pageSize)
}

// rootPage is the root bucket's page number from the newest meta page.
func rootPage(t *testing.T, b []byte) int {
	m, err := readMeta(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return int(m.root)
}

func TestOpenExistingRefusesMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gpusla.db")
	if _, err := OpenExisting(p); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("OpenExisting of a missing file: %v", err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("OpenExisting created the file")
	}
}

// TestBackupWhileWritingAndRestore: a snapshot taken over the socket while
// writers go on is a consistent store holding a prefix of what was
// written; restore refuses a store in use and a damaged backup, keeps the
// store it replaces, and the restored store opens with the backup's data.
func TestBackupWhileWritingAndRestore(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "gpusla.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "backup.sock")
	ln, err := ListenBackups(sock)
	if err != nil {
		t.Fatal(err)
	}
	go s.ServeBackups(ln)
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v; want 0600", fi.Mode(), err)
	}
	// Writers run until the backup is done; batch seq i exists only if
	// seq i-1 does (each writer writes its own node in order).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := uint64(1); ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.PutBatch(t.Context(), store.BatchRecord{Node: fmt.Sprint("w", w), Seq: seq, ID: fmt.Sprint(seq), Body: []byte("{}"), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// Let the writers get going: wait until some batches are in.
	waitfor.True(t, "20 batches of w0 stored", func() bool {
		l, _ := s.ListBatches(t.Context(), "w0", 0, 100)
		return len(l) >= 20
	})
	backup := filepath.Join(dir, "backup.db")
	n, ok, err := FetchBackup(sock, backup)
	close(stop)
	wg.Wait()
	if err != nil || !ok || n == 0 {
		t.Fatalf("FetchBackup = %d, %v, %v", n, ok, err)
	}
	// The running store is locked: restore refuses, and BackupFile too.
	if _, err := Restore(backup, p); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("restore over a live store: %v", err)
	}
	if _, err := BackupFile(p, filepath.Join(dir, "x.db")); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("BackupFile of a live store: %v", err)
	}
	ln.Close()
	if _, ok, _ := FetchBackup(sock, filepath.Join(dir, "y.db")); ok {
		t.Fatal("a closed socket answered")
	}
	live := map[string]int{}
	for w := range 3 {
		l, _ := s.ListBatches(t.Context(), fmt.Sprint("w", w), 0, 1<<20)
		live[fmt.Sprint("w", w)] = len(l)
	}
	s.Close()

	// A damaged backup is refused and changes nothing.
	bad := filepath.Join(dir, "bad.db")
	raw, _ := os.ReadFile(backup)
	os.WriteFile(bad, raw[:len(raw)/2], 0o600)
	if _, err := Restore(bad, p); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("restore of a truncated backup: %v", err)
	}
	kept, err := Restore(backup, p)
	if err != nil {
		t.Fatal(err)
	}
	if kept == "" {
		t.Fatal("the replaced store was not kept")
	}
	if old, err := OpenExisting(kept); err != nil {
		t.Fatalf("kept store: %v", err)
	} else {
		l, _ := old.ListBatches(t.Context(), "w0", 0, 1<<20)
		if len(l) != live["w0"] {
			t.Errorf("kept store has %d batches of w0, the store had %d", len(l), live["w0"])
		}
		old.Close()
	}
	r, err := OpenExisting(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for w := range 3 {
		node := fmt.Sprint("w", w)
		l, err := r.ListBatches(t.Context(), node, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if len(l) == 0 || len(l) > live[node] {
			t.Fatalf("%s: %d batches in the backup, %d in the store", node, len(l), live[node])
		}
		for i, b := range l { // a prefix: 1, 2, …, n with no hole
			if b.Seq != uint64(i+1) {
				t.Fatalf("%s: backup holds seq %d at %d: not a consistent snapshot", node, b.Seq, i)
			}
		}
	}
}
