package document

// The trial page (`gpusla scorecard --trial`, docs/scorecard.md "Trial
// mode"): the seed's one-node-per-provider method side by side — one
// column per trial node (a provider's second node, its iperf3 peer, has
// its own), one row per check, each cell the figure and its
// verdict against the seed's criteria — then what to ask each provider
// next. One node is one observation: nothing is ranked. Markdown, HTML and
// PDF, in English or Chinese.

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/scorecard"
)

// TrialFormats are the names RenderTrial accepts.
var TrialFormats = []string{"json", "md", "html", "pdf"}

// CheckTrialFormat says whether RenderTrial knows format, before any work is done.
func CheckTrialFormat(format string) error {
	switch format {
	case "json", "md", "markdown", "html", "pdf":
		return nil
	}
	return fmt.Errorf("--format %q: want one of %s with --trial", format, strings.Join(TrialFormats, ", "))
}

// RenderTrial writes tr in format and lang.
func RenderTrial(w io.Writer, tr *scorecard.Trial, format string, lang i18n.Lang) error {
	if err := CheckTrialFormat(format); err != nil {
		return err
	}
	p := i18n.New(lang)
	page := trialPage(p, tr)
	switch format {
	case "json":
		return scorecard.TrialJSON(w, tr)
	case "md", "markdown":
		return trialMarkdown(w, page)
	case "html":
		return trialHTMLTmpl.Execute(w, page)
	}
	return trialPDF(w, p, tr, page)
}

// trialView is the page in one language.
type trialView struct {
	Lang   string
	Title  string
	Intro  string
	Table  table      // for Markdown and the PDF
	Class  [][]string // Table's cells' verdicts (pass, warn, fail, unknown), for the HTML
	Asks   []trialAsks
	AskHdr string
}

type trialAsks struct {
	Provider string
	Lines    []string
}

// trialLabels name the rows, in the order of scorecard.TrialKeys.
var trialLabels = map[string]string{
	"delivery":            "order to delivery",
	"acceptance":          "acceptance: no fault in the whole trial",
	"order":               "nvidia-smi: model, memory, driver as ordered",
	"idle":                "gpustat: GPUs idle",
	"disk":                "df -h: data disk mounted",
	"mirror":              "curl -I the mirror: connectivity and latency",
	"burn_30min":          "gpu_burn: 30 min without error",
	"memory_bandwidth":    "bandwidthTest: memory bandwidth of the official figure",
	"allreduce":           "nccl-tests: all_reduce latency",
	"power":               "nvidia-smi dmon: power swing at full load",
	"iperf3":              "iperf3 of the advertised bandwidth (median)",
	"gateway":             "ping -c 10 to the gateway: average (median run)",
	"night_ticket":        "22:00 test ticket: first response",
	"billing_granularity": "billing granularity",
	"trial_price":         "what the trial cost",
}

// trialVerdicts are the verdicts' words.
var trialVerdicts = map[string]string{scorecard.TrialPass: "pass", scorecard.TrialWarn: "warn", scorecard.TrialFail: "fail", scorecard.TrialUnknown: "not measured",
	scorecard.TrialNotApplicable: "not applicable", scorecard.TrialRecorded: "recorded, no pass line"}

func trialPage(p *i18n.Printer, tr *scorecard.Trial) trialView {
	v := trialView{Lang: string(p.Lang), Title: p.T("Provider trial %s to %s", tr.From, tr.To), AskHdr: p.T("What to ask each provider next"),
		Intro: p.T("As of %s. The seed's method: one node rented from each provider, the same checks on each. Each cell is the trial node's figure and its verdict against the seed's criterion (last column). One node is one observation, so nothing here is ranked.", p.Stamp(tr.AsOf))}
	t := table{Head: []string{p.T("check")}, Widths: []float64{18}, Num: []bool{false}}
	for _, c := range tr.Providers {
		t.Head = append(t.Head, p.T("%s (node %s)", c.Provider, c.Node))
		t.Widths = append(t.Widths, 14)
		t.Num = append(t.Num, false)
	}
	t.Head = append(t.Head, p.T("criterion"))
	t.Widths = append(t.Widths, 30)
	t.Num = append(t.Num, false)
	for i, key := range scorecard.TrialKeys {
		row := []string{p.T(trialLabels[key])}
		class := []string{""}
		crit := ""
		for _, c := range tr.Providers {
			x := c.Figures[i]
			row = append(row, trialCell(p, x))
			class = append(class, strings.ReplaceAll(x.Verdict, " ", "-"))
			crit = p.Text(x.CriterionText)
		}
		t.add(append(row, crit)...)
		v.Class = append(v.Class, append(class, ""))
	}
	v.Table = t
	for _, c := range tr.Providers {
		a := trialAsks{Provider: c.Provider}
		if c.Nodes > 1 {
			a.Provider = p.T("%s (node %s)", c.Provider, c.Node)
			a.Lines = append(a.Lines, p.T("%d nodes of this provider in these months, each judged in its own column.", c.Nodes))
		}
		for _, x := range c.Figures {
			if !x.AskText.IsZero() {
				a.Lines = append(a.Lines, p.T("%s: %s", p.T(trialLabels[x.Key]), p.Text(x.AskText)))
			}
		}
		if len(a.Lines) == 0 {
			a.Lines = []string{p.T("Every check passed: ask for the same in the contract's terms.")}
		}
		v.Asks = append(v.Asks, a)
	}
	return v
}

// trialCell is a figure, its verdict and what decided it: "20 min:
// pass", "≥ 40,380 min: fail", "fail (gpu.model (GPU 0))". The figure is
// printed with the digits the row chose (never rounding across its line).
func trialCell(p *i18n.Printer, x scorecard.TrialFigure) string {
	verdict := p.T(trialVerdicts[x.Verdict])
	detail := ""
	if !x.DetailText.IsZero() {
		detail = p.Text(x.DetailText)
	}
	if x.Value == nil {
		if detail != "" {
			return p.T("%s (%s)", verdict, detail)
		}
		return verdict
	}
	s := figure(x.Shown, x.Digits)
	switch x.Unit {
	case "s":
		s = granularity(p, *x.Value)
	case "%":
		s += " %"
	case "":
	default:
		s += " " + x.Unit
	}
	if x.AtLeast {
		s = "≥ " + s
	}
	if detail != "" {
		s = p.T("%s; %s", s, detail)
	}
	return p.T("%s: %s", s, verdict)
}

// figure prints v at d decimals as strconv rounds it — the rounding the
// row's digits were chosen against — with the thousands grouped.
func figure(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if frac != "" {
		whole += "." + frac
	}
	return sign + whole
}

// granularity says a billing granularity in the largest whole unit.
func granularity(p *i18n.Printer, secs float64) string {
	switch {
	case secs >= 3600 && math.Mod(secs, 3600) == 0:
		return p.T("per %d h", int(secs/3600))
	case secs >= 60 && math.Mod(secs, 60) == 0:
		return p.T("per %d min", int(secs/60))
	}
	return p.T("per %d s", int(secs))
}

func trialMarkdown(w io.Writer, v trialView) error {
	var b strings.Builder
	// Every line is text: the questions quote the check names the
	// provider's node reported, and the providers' names come from outside.
	b.WriteString("# " + mdText(v.Title) + "\n\n" + mdText(v.Intro) + "\n\n")
	mdTable(&b, v.Table)
	b.WriteString("\n## " + mdText(v.AskHdr) + "\n")
	for _, a := range v.Asks {
		b.WriteString("\n### " + mdText(a.Provider) + "\n\n")
		for _, l := range a.Lines {
			b.WriteString("- " + mdText(l) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

//go:embed trial.html.tmpl
var trialHTML string

var trialHTMLTmpl = template.Must(template.New("trial").Parse(trialHTML))

func trialPDF(w io.Writer, p *i18n.Printer, tr *scorecard.Trial, v trialView) error {
	pw := newPDFWriter(v.Title, tr.AsOf, p)
	pw.f.AddPage()
	pw.text(18, "B", v.Title)
	pw.text(8, "", v.Intro)
	pw.f.Ln(2)
	pw.table(v.Table)
	pw.text(11, "B", v.AskHdr)
	for _, a := range v.Asks {
		pw.text(9, "B", a.Provider)
		for _, l := range a.Lines {
			pw.text(8, "", "• "+l)
		}
	}
	return pw.output(w, "trial")
}
