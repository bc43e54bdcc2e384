package termscheck

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/i18n"
)

// shipDir is a folder as a renter keeps it: two contracts' terms beside
// serve's config and an alerts file.
func shipDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"cn-example.yaml", "us-example.yaml"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terms", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), string(raw))
	}
	writeFile(t, filepath.Join(dir, "serve.yaml"), "listen: 127.0.0.1:8080\ndata: ./data\n")
	writeFile(t, filepath.Join(dir, "alerts.yml"), "alerts:\n  channels:\n    - {name: ops, type: feishu}\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "not yaml at all")
	return dir
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func yamlIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestShipOnlyTerms: from a folder, only the terms files reach the
// functions' folder; a config and an alerts file are left out and named,
// each shipped file says so in its contract's language, and a file left
// in the destination by an earlier build is removed.
func TestShipOnlyTerms(t *testing.T) {
	src, dest := shipDir(t), filepath.Join(t.TempDir(), "terms")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dest, "old-contract.yaml"), "contract: old\n")
	var out bytes.Buffer
	failed, err := Ship(&out, []string{src}, dest, "")
	if err != nil || failed != 0 {
		t.Fatalf("failed %d, %v\n%s", failed, err, out.String())
	}
	if got := yamlIn(t, dest); !slices.Equal(got, []string{"cn-example.yaml", "us-example.yaml"}) {
		t.Errorf("shipped %v, want the two terms files only", got)
	}
	for _, want := range []string{"serve.yaml: left out: no document in it has a top-level contract: key",
		"alerts.yml: left out", "cn-example.yaml：已打包（合同：cn-example）", "us-example.yaml: shipped (contracts: us-example)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dest, "cn-example.yaml"))
	orig, _ := os.ReadFile(filepath.Join(src, "cn-example.yaml"))
	if !bytes.Equal(raw, orig) {
		t.Error("the shipped file is not the source byte for byte")
	}
}

// TestShipRefusesAndWritesNothing: a terms file with a mistake (named with
// its line and field, in its contract's language), a contract defined in
// two files, two files of one name, or a config named on its own fails
// the build, and the destination is left as it was.
func TestShipRefusesAndWritesNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(t *testing.T, src string) []string
		want string
	}{
		{"a mistake", func(t *testing.T, src string) []string {
			raw, _ := os.ReadFile(filepath.Join(src, "cn-example.yaml"))
			writeFile(t, filepath.Join(src, "cn-example.yaml"), strings.Replace(string(raw), "currency: CNY", "curency: CNY", 1))
			return []string{src}
		}, "cn-example.yaml 第7行，curency"},
		{"a contract twice", func(t *testing.T, src string) []string {
			raw, _ := os.ReadFile(filepath.Join(src, "us-example.yaml"))
			writeFile(t, filepath.Join(src, "us-copy.yaml"), string(raw))
			return []string{src}
		}, `contract "us-example" is defined in`},
		{"one name twice", func(t *testing.T, src string) []string {
			other := t.TempDir()
			raw, _ := os.ReadFile(filepath.Join(src, "us-example.yaml"))
			writeFile(t, filepath.Join(other, "cn-example.yaml"), strings.Replace(string(raw), "contract: us-example", "contract: us-other", 1))
			return []string{src, other}
		}, "have one name"},
		{"a config named on its own", func(t *testing.T, src string) []string {
			return []string{filepath.Join(src, "serve.yaml")}
		}, "serve.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, dest := shipDir(t), filepath.Join(t.TempDir(), "terms")
			var out bytes.Buffer
			failed, err := Ship(&out, c.edit(t, src), dest, "")
			if failed == 0 && err == nil {
				t.Fatalf("shipped:\n%s", out.String())
			}
			if msg := out.String() + errString(err); !strings.Contains(msg, c.want) {
				t.Errorf("the refusal lacks %q:\n%s", c.want, msg)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Errorf("the destination was written: %v %v", err, yamlIn(t, dest))
			}
		})
	}
	// --lang names the mistakes in the language asked.
	src := shipDir(t)
	raw, _ := os.ReadFile(filepath.Join(src, "cn-example.yaml"))
	writeFile(t, filepath.Join(src, "cn-example.yaml"), strings.Replace(string(raw), "currency: CNY", "curency: CNY", 1))
	var out bytes.Buffer
	if failed, _ := Ship(&out, []string{src}, filepath.Join(t.TempDir(), "t"), i18n.EN); failed != 1 || !strings.Contains(out.String(), "cn-example.yaml, line 7, curency") {
		t.Errorf("--lang en: %d failed\n%s", failed, out.String())
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
