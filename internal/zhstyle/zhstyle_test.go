package zhstyle

import (
	"strings"
	"testing"
)

// TestCheckBothSides: each rule flags its departure and lets the house
// style's own forms through.
func TestCheckBothSides(t *testing.T) {
	for _, c := range []struct {
		text string
		rule string // "" when the text is clean
	}{
		{"gz-01 已恢复：GPU 掉卡，持续30分钟", ""},
		{"2026年11月30日 18:00:30（北京时间）", ""},
		{"索赔依据 gpu.xid 与 cn-example.yaml:12", ""},
		{"1 usable GPUs, the order says 8", "an English word"},
		{"NVIDIA H100 80GB HBM3（应为 name matches device id）", "an English word"},
		{"持续 30分钟", "a space between Chinese and a number"},
		{"计入故障 7小时 通知", "a space between Chinese and a number"},
		{"可用率 99.5% 以下", "a space between Chinese and a number"},
		{"节点 (us-example)", "half-width"},
		{"原因：网络故障, 计入", "half-width"},
		{"原因： 网络故障", "a space beside full-width punctuation"},
		{"供应商已回复", "服务商"},
		{"暂不计入 — 持续满5分钟", "Latin dash"},
		{"暂不计入——持续满5分钟", ""},
		{"见原文第3条", "原文"},
		{"服务商条款原文为“按月计”", ""},
		{"2026年3月5日 14:00:00（Asia/Shanghai，UTC+08:00）", "IANA"},
		// A command in a code span is typed as it is; outside one its
		// words are prose.
		{"按下单的数据盘运行 `gpuprobe trial --expect disks=/data:SIZE_GB`。", ""},
		{"按下单的数据盘运行 \\`gpuprobe trial --expect disks=/data:SIZE_GB\\`。", ""},
		{"按下单的数据盘运行 gpuprobe trial 命令。", "an English word"},
		{"运行 `gpuprobe` 的 trial 命令", "an English word"},
	} {
		got := Check(c.text)
		switch {
		case c.rule == "" && len(got) > 0:
			t.Errorf("%q: %v", c.text, got)
		case c.rule != "" && (len(got) == 0 || !strings.Contains(got[0].Rule, c.rule)):
			t.Errorf("%q: %v, want %q", c.text, got, c.rule)
		}
	}
	// Data the text carries as given is not judged by its words.
	if got := Check("服务商：示例算力云 Example Compute", "Example Compute"); len(got) > 0 {
		t.Errorf("data judged: %v", got)
	}
	// Data is whole words: node "ta" does not hide the word "total".
	if got := Check("节点 ta 的 total", "ta"); len(got) != 1 || !strings.Contains(got[0].Rule, `"total"`) {
		t.Errorf("data inside a word: %v", got)
	}
}
