package document

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/scorecard/scorecardtest"
)

// The golden trial (sla/scorecard's trial test, verdicts worked by hand
// there) in Markdown, English and Chinese: one column per trial node, each
// cell the figure and its verdict, no rank anywhere.
func TestTrialMarkdownGolden(t *testing.T) {
	tr := scorecardtest.GoldenTrial(t)
	for _, l := range i18n.Langs {
		var md bytes.Buffer
		if err := RenderTrial(&md, tr, "md", l); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "trial."+string(l)+".md", md.Bytes())
		if strings.Contains(md.String(), "#1") || strings.Contains(md.String(), "第1") {
			t.Errorf("%s: the trial ranks: %s", l, md.String())
		}
	}
}

func TestTrialHTMLAndPDF(t *testing.T) {
	tr := scorecardtest.GoldenTrial(t)
	var b bytes.Buffer
	if err := RenderTrial(&b, tr, "html", i18n.ZH); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`<html lang="zh">`, `<td class="pass">20 min：通过</td>`, `<td class="fail">≥ 40,380 min；提交于 2026-03-07T23:00:00Z：未通过</td>`, "接下来要问每家服务商的问题", "企业微信"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("html lacks %q", w)
		}
	}
	b.Reset()
	if err := RenderTrial(&b, tr, "pdf", i18n.EN); err != nil || !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) {
		t.Errorf("pdf: %v", err)
	}
	if err := RenderTrial(&b, tr, "csv", i18n.EN); err == nil || !strings.Contains(err.Error(), `--format "csv": want one of json, md, html, pdf with --trial`) {
		t.Errorf("csv: %v", err)
	}
}

// A provider's second trial node (the seed's iperf3 peer) is its own
// column, and what to ask is said per node.
func TestTrialSecondNodeAsked(t *testing.T) {
	tr := scorecardtest.GoldenTrial(t)
	second := tr.Providers[1] // Beta's tb, which fails
	second.Provider, second.Node = tr.Providers[0].Provider, "ta2"
	tr.Providers[0].Nodes, second.Nodes = 2, 2
	tr.Providers = append(tr.Providers[:1], append([]scorecard.TrialColumn{second}, tr.Providers[1:]...)...)
	for l, want := range map[i18n.Lang][]string{
		i18n.EN: {"| Alpha (node ta) | Alpha (node ta2) | Beta (node tb) |", "### Alpha (node ta)\n\n- 2 nodes of this provider in these months, each judged in its own column.",
			"### Alpha (node ta2)\n\n- 2 nodes of this provider in these months, each judged in its own column.\n- order to delivery:"},
		i18n.ZH: {"### Alpha（节点 ta2）\n\n- 这几个月该服务商共2台节点，每台单独一列判断。"},
	} {
		var md bytes.Buffer
		if err := RenderTrial(&md, tr, "md", l); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(md.String(), w) {
				t.Errorf("%s: the page lacks %q:\n%s", l, w, md.String())
			}
		}
	}
}
