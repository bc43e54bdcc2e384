package document

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/report/reporttest"
	"github.com/gpusla/gpusla/sla/terms"
)

// providerReport is reporttest.ProviderLog's month, read as JSON lines: two counted outages
// the provider acknowledged, one it never did, three incidents of its
// page the probes did not see.
func providerReport(t *testing.T) *report.Report {
	t.Helper()
	tm, err := terms.Parse("sh-gpu.yaml", []byte(reporttest.ProviderTerms))
	if err != nil {
		t.Fatal(err)
	}
	return buildReport(t, tm, report.Options{Year: 2026, Month: time.November, AsOf: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)},
		"provider.jsonl", reporttest.ProviderLog(true))
}

// Every format, in both languages, lists what the page acknowledged, what
// it never did and what the probes did not see; every sentence has its
// Chinese entry.
func TestProviderStatusInEveryFormat(t *testing.T) {
	r := providerReport(t)
	want := map[i18n.Lang][]string{
		i18n.EN: {"Provider status page: Example GPU Cloud (sh-gpu)", "it never changes what is counted or claimed",
			"Counted outages the provider acknowledged (2)", "Counted outages the provider never acknowledged (1)",
			"Provider incidents the probes did not see (3)", "P1 GPU hosts unreachable", "GPU instances slow to start", "not resolved", "resolved after the as-of instant",
			"8,640 fetches, 3 failed", "matched none of the keywords (GPU, network), left out: 1."},
		i18n.ZH: {"服务商状态页：Example GPU Cloud（sh-gpu）", "绝不改变计入的故障与索赔金额", "服务商已承认的计入故障 (2)",
			"服务商从未承认的计入故障 (1)", "探针未观测到的服务商事件 (3)", "P2 Public network degraded", "调查中", "未解决", "共抓取8,640次，失败3次"},
	}
	for _, lang := range i18n.Langs {
		for _, format := range []string{"md", "html"} {
			var buf bytes.Buffer
			if err := Render(&buf, r, format, Extras{Lang: lang}); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			if format == "html" {
				text = strings.ReplaceAll(text, "&#39;", "'")
			}
			for _, w := range want[lang] {
				if !strings.Contains(text, w) {
					t.Errorf("%s %s lacks %q", lang, format, w)
				}
			}
		}
		d, err := newDoc(r, Extras{Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		if err := writePDF(&bytes.Buffer{}, r, d); err != nil {
			t.Fatal(err)
		}
		if m := d.P.Missing(); len(m) > 0 {
			t.Errorf("%s lacks %d entries:\n%s", lang, len(m), strings.Join(m, "\n"))
		}
	}
	var js bytes.Buffer
	if err := Render(&js, r, "json", Extras{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"provider_status": {`, `"acknowledged": [`, `"unacknowledged": [`, `"unseen": [
          "P3",
          "P5",
          "P9"
        ]`} {
		if !strings.Contains(js.String(), w) {
			t.Errorf("json lacks %q", w)
		}
	}
}

// The PDF carries the lists as text, in Chinese too.
func TestProviderStatusInPDF(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	r := providerReport(t)
	for lang, want := range map[i18n.Lang][]string{
		i18n.EN: {"Provider status page", "never acknowledged", "did not see (3)"},
		i18n.ZH: {"服务商状态页", "服务商从未承认的计入故障", "探针未观测到的服务商事件"},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, r, "pdf", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		pdf := filepath.Join(t.TempDir(), "r.pdf")
		if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(pdftotext, pdf, "-").CombinedOutput()
		if err != nil {
			t.Fatalf("pdftotext: %v\n%s", err, out)
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s PDF text lacks %q", lang, w)
			}
		}
	}
}
