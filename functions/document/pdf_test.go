package document

import (
	"bytes"
	imgpng "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
)

// The PDF has the cover page plus one page per node at least, is the same
// bytes for the same report, and is a complete file.
func TestPDFPagesAndDeterminism(t *testing.T) {
	r := buildClaim(t)
	var a, b bytes.Buffer
	if err := Render(&a, r, "pdf", Extras{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&b, r, "pdf", Extras{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of one report differ")
	}
	pdf := a.Bytes()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.HasSuffix(bytes.TrimSpace(pdf), []byte("%%EOF")) {
		t.Fatal("not a complete PDF file")
	}
	pages := len(regexp.MustCompile(`/Type /Page\b`).FindAll(pdf, -1))
	if pages < 1+len(r.Nodes) {
		t.Fatalf("%d pages, want at least %d (cover + one per node)", pages, 1+len(r.Nodes))
	}
}

// The Chinese PDF carries its text as text: pdftotext (poppler) reads the
// claim page's Chinese headings, the provider's Chinese name, a holiday's
// name and the translated verdicts back out of it, and pdftoppm renders
// the claim page to a PNG whose pixels are not all blank.
func TestChinesePDFTextAndRaster(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	pdftoppm := testenv.LookPath(t, "pdftoppm", "poppler-utils (scripts/setup.sh installs it)")
	r := buildClaim(t)
	// A Chinese provider and a holiday name, as a cn contract gives them.
	r.Contracts[0].Provider = "示例算力云 Example Compute (广州)"
	r.Nodes[0].Tickets[1].OpenedOnName = "感恩节 Thanksgiving"
	var buf bytes.Buffer
	if err := Render(&buf, r, "pdf", Extras{Lang: i18n.ZH}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pdf := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, "-layout", pdf, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"服务赔偿申请", "示例算力云", "合同编号", "申请赔偿金额", "美元陆仟叁佰捌拾壹元肆角肆分", "索赔截止", "附录：条款与数据出处", "每日可用率",
		"无法访问", "节假日: 感恩节 Thanksgiving", "6,381.44 USD", "2026年11月"} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q", want)
		}
	}
	if strings.Contains(text, "?????") {
		t.Error("PDF text has runs of '?' where characters were lost")
	}
	if strings.Contains(text, "docs/") || strings.Contains(text, ".go") {
		t.Error("PDF cites a repository path")
	}
	png := filepath.Join(dir, "page")
	if out, err := exec.Command(pdftoppm, "-png", "-r", "40", "-f", "1", "-l", "1", "-singlefile", pdf, png).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	f, err := os.Open(png + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := imgpng.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	// Landscape A4 at 40 dpi, with a page of text on it.
	if b.Dx() <= b.Dy() || dark < 500 {
		t.Fatalf("page 1 renders %dx%d with %d dark pixels: not a landscape page of text", b.Dx(), b.Dy(), dark)
	}
}

// The scorecard's own PDF (what the monthly job stores as scorecard.pdf):
// the same bytes for the same scorecard, and its text, read back by
// pdftotext, is the comparison — every provider, each cell's rank and
// figure with n, the too-few cell unranked — in English and in Chinese
// with the report's embedded font.
func TestScorecardPDF(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	sc := scorecardtest.Golden(t)
	for _, c := range []struct {
		lang i18n.Lang
		want []string
	}{
		{i18n.EN, []string{"Provider scorecard March 2026", "Comparison", "Alpha", "Beta", "order to delivery, p90", "#2 of 2", "2.60 h (n=3)",
			"40.0 min (too few: n=1 < 3)", "114.0 min (n=3)", "all providers (6 nodes)", "as of 2026-04-05"}},
		{i18n.ZH, []string{"服务商评分卡2026年3月", "对比", "Alpha", "下单到交付 p90", "第2 / 2名", "2.60 h（n=3）", "观测过少：n=1 < 3", "所有服务商（6台节点）"}},
	} {
		var a, b bytes.Buffer
		if err := ScorecardPDF(&a, sc, c.lang); err != nil {
			t.Fatal(err)
		}
		if err := ScorecardPDF(&b, sc, c.lang); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) || !bytes.HasPrefix(a.Bytes(), []byte("%PDF-")) {
			t.Fatalf("%s: not one complete PDF for one scorecard", c.lang)
		}
		pdf := filepath.Join(t.TempDir(), "scorecard.pdf")
		if err := os.WriteFile(pdf, a.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(pdftotext, pdf, "-").CombinedOutput()
		if err != nil {
			t.Fatalf("pdftotext: %v\n%s", err, out)
		}
		// pdftotext spaces CJK text its own way: compare without spaces.
		bare := func(s string) string { return strings.Join(strings.Fields(s), "") }
		text := bare(string(out))
		for _, w := range c.want {
			if !strings.Contains(text, bare(w)) {
				t.Errorf("%s scorecard PDF lacks %q:\n%s", c.lang, w, text)
			}
		}
	}
}

// `gpusla report --scorecard` puts the scorecard section in the report's
// PDF too, as in its Markdown and HTML.
func TestReportPDFScorecardSection(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	var buf bytes.Buffer
	if err := Render(&buf, buildClaim(t), "pdf", Extras{Lang: i18n.EN, Scorecard: scorecardtest.Golden(t)}); err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, pdf, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	text := strings.Join(strings.Fields(string(out)), " ")
	for _, w := range []string{"Provider scorecard", "Alpha (3 nodes, 24 GPUs)", "all providers (6 nodes)", "2.60 h (n=3)", "#2 of 2"} {
		if !strings.Contains(text, w) {
			t.Errorf("report PDF lacks %q", w)
		}
	}
}
