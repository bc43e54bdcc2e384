package termscheck

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/sla/i18n"
)

// TestValidFilesInTheirLanguage: each contract is summed up in its own
// report.lang (cn-example in Chinese, us-example in English), every line a
// label and a value, never a blank one, and nothing is counted failed.
func TestValidFilesInTheirLanguage(t *testing.T) {
	var out bytes.Buffer
	failed, err := Check(&out, []string{"../../testdata/terms/cn-example.yaml", "../../testdata/terms/us-example.yaml"}, "")
	if err != nil || failed != 0 {
		t.Fatalf("failed %d, %v\n%s", failed, err, out.String())
	}
	cn, us, _ := strings.Cut(out.String(), "../../testdata/terms/us-example.yaml")
	for _, want := range []string{"cn-example.yaml 第5行：合同 cn-example 校验通过", "服务商：示例算力云 Example Compute (Guangzhou)", "币种与时区：CNY；北京时间",
		"可用率承诺：每月99.9%", "未达标的赔付：可用率不低于99%且低于99.9%：赔付当月费用的10%", "赔付上限为当月费用的50%", "索赔时限：当月结束后30天内", "价格：每 GPU 小时18.50 CNY"} {
		if !strings.Contains(cn, want) {
			t.Errorf("the zh summary lacks %q:\n%s", want, cn)
		}
	}
	for _, want := range []string{", line 6: contract us-example is valid", "provider: Example GPU Cloud Inc.", "uptime target: target 99.5 % of each month",
		"claim window: by the end of billing cycle 2 after the month", "price: 3.20 USD per GPU-hour, billed in steps of 1 second, from delivery"} {
		if !strings.Contains(us, want) {
			t.Errorf("the en summary lacks %q:\n%s", want, us)
		}
	}
	// The zh summary by the house style of docs/i18n.md; the provider's
	// name is data.
	for _, f := range zhstyle.Check(cn, "Example Compute (Guangzhou)", "../../testdata/terms/cn-example.yaml") {
		t.Errorf("zh summary: %s", f)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasSuffix(line, ":") || strings.HasSuffix(line, "：") || strings.HasSuffix(line, ": ") {
			t.Errorf("a blank value: %q", line)
		}
	}
	// --lang overrides the contract's own.
	out.Reset()
	if _, err := Check(&out, []string{"../../testdata/terms/cn-example.yaml"}, i18n.EN); err != nil || !strings.Contains(out.String(), "contract cn-example is valid") {
		t.Errorf("--lang en: %v\n%s", err, out.String())
	}
}

// TestClaimWindowFromTheIncident: AWS's "by the end of the second billing
// cycle after which the incident occurred" (claim.from: incident) is said as
// counted from the outage's billing cycle, not the month's.
func TestClaimWindowFromTheIncident(t *testing.T) {
	var out bytes.Buffer
	if failed, err := Check(&out, []string{"../../testdata/terms/packs/aws-ec2-instance.yaml"}, i18n.EN); err != nil || failed != 0 {
		t.Fatalf("failed %d, %v\n%s", failed, err, out.String())
	}
	if want := "claim window: by the end of billing cycle 2 after the one the month's first counted outage began in"; !strings.Contains(out.String(), want) {
		t.Errorf("lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	if _, err := Check(&out, []string{"../../testdata/terms/packs/aws-ec2-instance.yaml"}, i18n.ZH); err != nil || !strings.Contains(out.String(), "当月首个计入的故障开始所在账期之后第2个账期结束前") {
		t.Errorf("zh: %v\n%s", err, out.String())
	}
}

// TestDowntimeUnitSaid: the summary says how a run of downtime becomes
// whole units: Google's clock minutes, GPUhub's minutes from the anomaly's
// start, Tencent's minutes rounded up.
func TestDowntimeUnitSaid(t *testing.T) {
	for pack, want := range map[string]string{
		"gce-single-instance": "counted in units of 1 minute on the clock, each only when down all through",
		"gpuhub-network":      "counted in whole units of 1 minute from its start, a part unit at its end left out",
		"tencent-cvm":         "counted in whole units of 1 minute, a part unit at its end rounded up",
		"ucloud-sdu":          "counted in units of 1 minute on the clock, each only when down all through",
	} {
		var out bytes.Buffer
		if _, err := Check(&out, []string{"../../testdata/terms/packs/" + pack + ".yaml"}, i18n.EN); err != nil || !strings.Contains(out.String(), want) {
			t.Errorf("%s lacks %q: %v\n%s", pack, want, err, out.String())
		}
	}
}

// TestErrorsInTheContractsLanguage: a file with a mistake is named with its
// line and field, in the language the file declares (report.lang), and the
// other files are still checked.
func TestErrorsInTheContractsLanguage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cn, err := os.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	zhBad := write("zh.yaml", strings.Replace(string(cn), "target: 99.9", "target: 150", 1))
	enBad := write("en.yaml", "contract: x\nprovider: p\ntimezone: UTC\ncurrency: usd\n")
	junk := write("junk.yaml", "{not yaml")
	var out bytes.Buffer
	failed, err := Check(&out, []string{zhBad, "../../testdata/terms/us-example.yaml", enBad, junk, filepath.Join(dir, "none.yaml")}, "")
	if err != nil || failed != 4 {
		t.Fatalf("failed %d, %v\n%s", failed, err, out.String())
	}
	for _, want := range []string{
		zhBad + " 第",
		"，uptime.target：150不是0到100之间的百分比",
		"contract us-example is valid",
		enBad + `, line 4, currency: "usd" is not an ISO 4217 code like CNY or USD`,
		junk + ": not valid terms: ",
		filepath.Join(dir, "none.yaml") + ": cannot be read: ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestEveryTermsErrorTranslated: every message the terms parser can give
// (sla/terms, p.err) has its Chinese in the catalog, so a zh contract's
// mistakes are never named in English.
func TestEveryTermsErrorTranslated(t *testing.T) {
	files, err := filepath.Glob("../../sla/terms/*.go")
	if err != nil {
		t.Fatal(err)
	}
	p := i18n.New(i18n.ZH)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(x ast.Node) bool {
			c, ok := x.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "err" && len(c.Args) >= 3 {
				if lit, ok := c.Args[2].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					p.T(s)
					n++
				}
			}
			return true
		})
	}
	if n < 100 {
		t.Fatalf("found %d messages in sla/terms; the scan lost them", n)
	}
	if miss := p.Missing(); len(miss) > 0 {
		t.Errorf("no zh entry for these terms errors:\n%s", strings.Join(miss, "\n"))
	}
}

// A folder is checked as serve and the report read it: each of its *.yaml
// and *.yml files; a folder without one is named, not taken for a file.
func TestCheckAFolder(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"a.yaml": "cn-example.yaml", "b.yml": "us-example.yaml"} {
		raw, err := os.ReadFile("../../testdata/terms/" + src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	failed, err := Check(&out, []string{dir}, "")
	if err != nil || failed != 0 || !strings.Contains(out.String(), "合同 cn-example 校验通过") || !strings.Contains(out.String(), "contract us-example is valid") {
		t.Fatalf("folder: failed %d, %v\n%s", failed, err, out.String())
	}
	empty := t.TempDir()
	out.Reset()
	if failed, err := Check(&out, []string{empty}, "en"); err != nil || failed != 1 || !strings.Contains(out.String(), empty+": a folder with no terms file") {
		t.Fatalf("empty folder: failed %d, %v\n%s", failed, err, out.String())
	}
}
