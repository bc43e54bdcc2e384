package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/usage"
)

// verb is one fmt verb; an argument index stands right after the % or,
// where the verb has a precision, right before the verb ("%.1[2]f": the
// form x/text takes).
var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0-9.*]*(\[\d+\])?[a-zA-Z%]`)

// A translation takes its arguments in the key's order: the same verbs,
// one for one, or the printed sentence would put a time where a count goes.
func TestTranslationsKeepVerbs(t *testing.T) {
	for key, s := range zh {
		// %% is a literal; the argument verbs must match one for one.
		got, want := args(s), args(key)
		if index.MatchString(strings.Join(got, "")) {
			// Explicit argument indexes: put the verbs back in argument order.
			got = reorder(t, s, got)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: verbs %v, key has %v", s, got, want)
		}
	}
}

func args(s string) []string {
	var out []string
	for _, v := range verb.FindAllString(s, -1) {
		if v != "%%" {
			out = append(out, v)
		}
	}
	return out
}

var index = regexp.MustCompile(`\[(\d+)\]`)

func reorder(t *testing.T, s string, verbs []string) []string {
	out := make([]string, len(verbs))
	for _, v := range verbs {
		m := index.FindStringSubmatch(v)
		if m == nil {
			t.Errorf("%q mixes indexed and plain verbs", s)
			return verbs
		}
		i, _ := strconv.Atoi(m[1])
		if i < 1 || i > len(out) {
			t.Errorf("%q: index %d out of range", s, i)
			return verbs
		}
		out[i-1] = strings.Replace(v, m[0], "", 1)
	}
	return out
}

// Every sentence the domain writes (msg.New in sla/) has a translation:
// found by reading the source, so a new sentence without one fails here.
func TestEveryDomainSentenceTranslated(t *testing.T) {
	root := filepath.Join("..", "..", "sla")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(x ast.Node) bool {
			call, ok := x.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "New" || len(call.Args) == 0 {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "msg" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: msg.New with a format that is not a literal", path)
				return true
			}
			key, _ := strconv.Unquote(lit.Value)
			n++
			if _, ok := zh[key]; !ok {
				t.Errorf("%s: no zh entry for %q", path, key)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("found only %d domain sentences; is the walk reading sla/?", n)
	}
}

// The vocabulary: every incident kind and cause, day kind and billing status.
func TestVocabularyTranslated(t *testing.T) {
	words := []string{incident.CauseNoData, incident.CauseNetwork, incident.CauseNoConnectivityEvidence, incident.CauseBackendOnly,
		incident.CauseBackendOutage, incident.CauseCheck, string(calendar.Workday), string(calendar.Weekend), string(calendar.Holiday),
		string(calendar.ExtraWorkd), billing.StatusMatches, billing.StatusOverBilled, billing.StatusUnderBilled, billing.StatusNotInReport,
		billing.StatusNotBilled, billing.VerdictMatches, billing.VerdictOverBilled, billing.VerdictUnder, billing.VerdictUnverified,
		billing.VerdictNotJudged, report.EvidenceUsageUnreadable, account.CauseNoNotice,
		// Why a span of the probe's counters is not covered (functions/document prints them).
		usage.WhyBeforeFirst, usage.WhyBeforeBoot, usage.WhyBootToFirst, usage.WhyReset, usage.WhyRecreated,
		usage.WhyToNextBoot, usage.WhyRebootBetween, usage.WhyAfterLast}
	for _, k := range incident.Kinds {
		words = append(words, string(k))
	}
	for _, w := range words {
		if _, ok := zh[w]; !ok {
			t.Errorf("no zh entry for the word %q", w)
		}
	}
}

func TestLocaleForms(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	at := time.Date(2026, 2, 17, 9, 5, 0, 0, sh)
	en, cn := New(EN), New(ZH)
	for _, c := range []struct{ got, want string }{
		{en.Time(at), "2026-02-17 09:05:00 +08:00"},
		{cn.Time(at), "2026年2月17日 09:05:00（UTC+08:00）"},
		{en.Month("2026-03"), "March 2026"},
		{cn.Month("2026-03"), "2026年3月"},
		{en.Dur(90 * time.Minute), "1h30m"},
		{cn.Dur(90*time.Minute + 5*time.Second), "1小时30分5秒"},
		{cn.Dur(50 * time.Hour), "2天2小时"},
		{en.Money(1234567.5, "CNY"), "1,234,567.50 CNY"},
		{cn.Money(1234567.5, "CNY"), "1,234,567.50 CNY"},
		{en.Num(99.9, -1), "99.9"},
		{strings.Join(cn.Totals(map[string]float64{"USD": 10, "CNY": 2000}), " | "), "2,000.00 CNY | 10.00 USD"},
		// A domain sentence, its time and duration formatted for the locale,
		// the probe's own words kept as they came.
		{cn.Text(msg.New("the node ran but could not reach the outside: %s at %s", msg.Plain("ping 10.0.0.1 failed"), msg.At(at, sh))),
			"节点在运行但无法访问外网：ping 10.0.0.1 failed，发生于2026年2月17日 09:05:00（UTC+08:00）"},
		{en.Text(msg.New("delivered %s after the order (target %s)", 2*time.Hour, 30*time.Minute)), "delivered 2h after the order (target 30m)"},
		{cn.Text(msg.New("the contract does not count %s as unavailable", msg.Word("gpu_degraded"))), "合同不将“GPU 硬件异常”计为不可用"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if m := cn.Missing(); len(m) > 0 {
		t.Errorf("missing %v", m)
	}
	cn.T("a sentence nobody translated")
	if m := cn.Missing(); len(m) != 1 {
		t.Errorf("a missing key is not counted: %v", m)
	}
	if _, err := Parse("fr"); err == nil {
		t.Error("Parse(fr) accepted")
	}
}

// Words: a chat message's durations in words of its language,
// never Go's 30m0s.
func TestWords(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		d    time.Duration
		want string
	}{
		{EN, 30 * time.Minute, "30 minutes"},
		{EN, 4*time.Minute + 40*time.Second, "4 minutes 40 seconds"},
		{EN, time.Hour + 5*time.Minute, "1 hour 5 minutes"},
		{EN, time.Second, "1 second"},
		{EN, 0, "0 seconds"},
		{EN, 50 * time.Hour, "2 days 2 hours"},
		{ZH, 30 * time.Minute, "30分钟"},
		{ZH, 4*time.Minute + 40*time.Second, "4分40秒"},
		{ZH, time.Hour + 5*time.Minute, "1小时5分钟"},
		{ZH, 0, "0秒"},
	} {
		if got := New(c.l).Words(c.d); got != c.want {
			t.Errorf("%s Words(%s) = %q, want %q", c.l, c.d, got, c.want)
		}
	}
}

// Constants holds the argument-free words and sentences of every language,
// and no format.
func TestConstants(t *testing.T) {
	c := Constants()
	var withVerb, zhWord string
	for key, s := range zh {
		if strings.Contains(key, "%") && withVerb == "" {
			withVerb = key
		}
		if !strings.Contains(s, "%") && zhWord == "" {
			zhWord = s
		}
	}
	if !c["none"] || !c[zhWord] || c[withVerb] || len(c) < 100 {
		t.Errorf("constants: none %v, %q %v, %q %v, %d in all", c["none"], zhWord, c[zhWord], withVerb, c[withVerb], len(c))
	}
	for s := range c {
		if strings.Contains(s, "%") {
			t.Fatalf("a format among the constants: %q", s)
		}
	}
}
