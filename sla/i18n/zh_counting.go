package i18n

// zhCounting is the part of the catalog about how a contract counts
// downtime (whole runs, rounding, partial months, what maintenance
// excuses), what the provider's claim procedure asks for, and the figures
// a pack can only approximate; init merges it into zh.
var zhCounting = map[string]string{
	// Verdicts (sla/account).
	"the node was not in service for the whole month, and the contract counts only whole months":      "节点本月未全月在服务，合同只计整月",
	"counted in whole %s, rounded up as the contract says":                                            "按合同以整 %s 计，向上取整",
	"part of an outage run holding no whole clock %s, which the contract does not count":              "所属故障段不含完整的自然 %s，合同不计",
	"partly uncounted: the contract counts only the clock %s that were unavailable from start to end": "部分不计：合同只计自始至终都不可用的自然 %s",
	// Documents (functions/document).
	"partial month, not counted": "非整月，不计",
	"not judged":                 "不评定",
	// Chat (infra/notify/chantext).
	"• %s: no uptime figure (%s), credit %s": "• %s：无可用率（%s），赔偿 %s",
	"not_in_service": "未在服务",
	"partial_month":  "非整月不计",
}
