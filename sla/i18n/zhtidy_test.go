package i18n

import "testing"

// TestTidyZH: each spacing rule of the house style (docs/i18n.md) on both
// sides: spaces between Chinese and a number go, the date's before its
// clock and those beside Latin words stay; a dash between Chinese is ——.
func TestTidyZH(t *testing.T) {
	for in, want := range map[string]string{
		"持续 30分钟":                       "持续30分钟",
		"该检查连续 2 次失败":                   "该检查连续2次失败",
		"低于合同承诺的 99.9%（计入故障 2小时）":       "低于合同承诺的99.9%（计入故障2小时）",
		"可用率 ≥99% 且 <99.9%：赔付 10%":      "可用率≥99%且<99.9%：赔付10%",
		"始于 2026年11月30日 18:00:30（北京时间）": "始于2026年11月30日 18:00:30（北京时间）",
		"gz-01 已恢复：GPU 掉卡":              "gz-01 已恢复：GPU 掉卡",
		"每 GPU 小时18.50 CNY":             "每 GPU 小时18.50 CNY",
		"节点 H100 掉卡":                    "节点 H100 掉卡",
		"暂不计入 — 持续满 5分钟":                "暂不计入——持续满5分钟",
		"gz-01 — 掉卡":                    "gz-01 — 掉卡",
		"原因： 网络故障 ，计入":                  "原因：网络故障，计入",
		"待赔付 *900.00 CNY*":              "待赔付*900.00 CNY*",
		"2026年9月 至 2026年11月":            "2026年9月至2026年11月",
		"no change in English 30 min":   "no change in English 30 min",
	} {
		if got := tidyZH(in); got != want {
			t.Errorf("%q\n got %q\nwant %q", in, got, want)
		}
	}
}
