package replacement

import (
	"fmt"
	"strings"
	"text/template"
)

// Lang is the language of a ticket text.
type Lang string

// Languages.
const (
	Chinese Lang = "zh"
	English Lang = "en"
	Both    Lang = "both" // Chinese first (the provider's desk reads it), then English
)

// ParseLang checks a --lang value.
func ParseLang(s string) (Lang, error) {
	switch Lang(s) {
	case Chinese, English, Both:
		return Lang(s), nil
	case "":
		return Both, nil
	}
	return "", fmt.Errorf("lang %q: want zh, en or both", s)
}

// catalog holds the whole ticket text once per language: each is one
// template with whole sentences, so a translator sees every sentence in
// context and no text is ever assembled from fragments of two languages.
// The data is a ticketData; its values (ids, measured values, criteria)
// are the probe's own, never translated.
var catalog = map[Lang]string{
	Chinese: `【硬件故障，请更换物理机】节点 {{.Node}}

订购配置：{{.Ordered}}（{{.Provider}}，合同 {{.Contract}}，订购时间 {{.OrderedAt}}）
故障类型：{{.KindZh}}（事件 {{.Incident}}）
开始时间：{{.Since}}{{if .Ended}}；已于 {{.Ended}} 恢复，但故障可能复发{{else}}，至今未恢复（已持续 {{.For}}）{{end}}

实测结果（未通过的检查，共 {{len .Failing}} 项）：
{{range .Failing}}- {{.At}} {{.Check}}{{if .GPU}}（GPU {{.GPU}}）{{end}}：实测 {{.Value}}，合格标准 {{.Criterion}}，结论 {{.Verdict}}{{if .Detail}}；{{.Detail}}{{end}}
{{end}}{{if .Kernel}}
内核日志（XID）：
{{range .Kernel}}  {{.}}
{{end}}{{end}}{{if .Stress}}
压测结果：
{{range .Stress}}- {{.At}} {{.Check}}{{if .GPU}}（GPU {{.GPU}}）{{end}}：{{.Value}}（标准 {{.Criterion}}，{{.Verdict}}）
{{end}}{{end}}{{if .First}}
交付时首次检查：{{.First}}
{{end}}
诉求：请更换物理机。{{if .Within}}根据合同 {{.Contract}} 的硬件更换条款（hardware_replacement：{{.Within}} 内完成更换，{{.ClockZh}}），更换时限自本工单提交时起计算{{if .Due}}，最迟 {{.Due}}{{end}}。{{else}}合同 {{.Contract}} 未约定硬件更换时限，请告知预计更换时间。{{end}}
证据包：{{.Pack}}，内含原始检测数据及 ed25519 签名清单（公钥指纹 {{.KeyID}}），可用 gpusla verify 校验。
`,
	English: `[Hardware fault: please replace the physical machine] node {{.Node}}

Ordered: {{.Ordered}} ({{.Provider}}, contract {{.Contract}}, ordered {{.OrderedAt}})
Fault: {{.KindEn}} (incident {{.Incident}})
Since: {{.Since}}{{if .Ended}}; recovered at {{.Ended}}, but the fault may recur{{else}}, still failing ({{.For}} so far){{end}}

Measured (failing checks, {{len .Failing}}):
{{range .Failing}}- {{.At}} {{.Check}}{{if .GPU}} (GPU {{.GPU}}){{end}}: measured {{.Value}}, criterion {{.Criterion}}, verdict {{.Verdict}}{{if .Detail}}; {{.Detail}}{{end}}
{{end}}{{if .Kernel}}
Kernel log (XID):
{{range .Kernel}}  {{.}}
{{end}}{{end}}{{if .Stress}}
Stress results:
{{range .Stress}}- {{.At}} {{.Check}}{{if .GPU}} (GPU {{.GPU}}){{end}}: {{.Value}} (criterion {{.Criterion}}, {{.Verdict}})
{{end}}{{end}}{{if .First}}
First checks at delivery: {{.First}}
{{end}}
Request: please replace the physical machine. {{if .Within}}Under the hardware replacement clause of contract {{.Contract}} (hardware_replacement: replaced within {{.Within}}, {{.ClockEn}}), the replacement time runs from this ticket{{if .Due}}, due by {{.Due}}{{end}}.{{else}}Contract {{.Contract}} sets no replacement time; please tell us when the machine will be replaced.{{end}}
Evidence pack: {{.Pack}}, with the raw check data and an ed25519-signed manifest (key fingerprint {{.KeyID}}); check it with gpusla verify.
`,
}

// kindNames are the incident kinds in both languages.
var kindNames = map[string][2]string{
	"gpu_lost":           {"GPU 掉卡（GPU 不可见或无响应）", "GPU lost (not visible or not answering)"},
	"gpu_degraded":       {"GPU 故障（XID 错误、ECC、降频等）", "GPU degraded (XID errors, ECC, throttling)"},
	"inventory_mismatch": {"硬件与订单不符（货不对板）", "hardware does not match the order"},
}

var clockNames = map[string][2]string{
	"wall":     {"按自然时间计", "wall clock"},
	"business": {"按工作时间计", "business hours"},
}

// firstSummary is the delivery-check line in each language.
var firstSummary = map[Lang]string{
	Chinese: "%[1]s，%[2]d 项检查，%[3]d 项未通过",
	English: "%[1]s, %[2]d checks, %[3]d not passing",
}

var templates = func() map[Lang]*template.Template {
	out := map[Lang]*template.Template{}
	for l, src := range catalog {
		out[l] = template.Must(template.New(string(l)).Parse(src))
	}
	return out
}()

// render writes the ticket text in lang (Both: Chinese, a rule, English).
func render(d ticketData, lang Lang) (string, error) {
	langs := []Lang{lang}
	if lang == Both {
		langs = []Lang{Chinese, English}
	}
	var parts []string
	for _, l := range langs {
		dl := d
		if d.FirstChecks != nil {
			dl.First = fmt.Sprintf(firstSummary[l], d.FirstChecks.At, d.FirstChecks.Total, d.FirstChecks.NotPassing)
		}
		var b strings.Builder
		if err := templates[l].Execute(&b, dl); err != nil {
			return "", fmt.Errorf("ticket text (%s): %w", l, err)
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\n----------------------------------------\n\n"), nil
}
