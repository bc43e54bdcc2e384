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
	// The claim letter's procedure (functions/document/report_procedure.go,
	// report_letter.go).
	"Subject":                    "事由",
	"Notice of breach":           "违约通知书",
	"No claim letter this month": "本月无需索赔函",
	"Purpose":                    "目的",
	"notice of breach: no credit is requested": "违约通知：不申请赔偿",
	"File through":      "提交途径",
	"May be filed from": "最早提交时间",
	"after %d working days of the next month, counted by its public holidays of %s, which the terms do not list: not before %s": "次月第 %d 个工作日后（按条款未列出的 %s 年法定节假日计）：不早于 %s",
	"the terms name no channel: ask the provider how claims are filed":                                                          "条款未规定提交途径：请向服务商确认索赔方式",
	"a case in the provider's support centre":                                                                                   "在服务商支持中心提交案例",
	"the ticket system of your account with the provider":                                                                       "通过您在服务商账户下的工单系统",
	"e-mail":                  "电子邮件",
	"the provider's web form": "服务商的网页表单",
	"a letter in writing":     "书面函件",
	"Incidents":               "故障明细",
	"instance":                "实例",
	"region":                  "地域",
	"The provider's text asks a claim to hold:":                                                                "服务商条款要求索赔申请包含：",
	"the date and time of each incident: the incidents table above":                                            "每次故障的日期与时间：见上方故障明细表",
	"the instance ids: in the incidents table":                                                                 "实例 ID：见故障明细表",
	"node %s has no instance id registered: write the provider's id beside it (gpusla node add --instance-id)": "节点 %s 未登记实例 ID：请在其旁注明服务商的实例 ID（gpusla node add --instance-id）",
	"the region of each: in the incidents table":                                                               "各实例所在地域：见故障明细表",
	"node %s has no region registered: write it beside the node (gpusla node add --region)":                    "节点 %s 未登记地域：请在其旁注明（gpusla node add --region）",
	"logs that document the errors: attach the evidence bundle (evidence.zip: every observation, and incidents.csv listing each incident above with the log lines behind it)": "证明故障的日志：请附上证据包（evidence.zip：全部观测数据，以及逐条列出上述故障及其日志依据的 incidents.csv）",
	"the support tickets about the incidents: none was opened this month":                                                                                                     "与故障相关的工单：本月未开工单",
	"the support tickets about the incidents: %s":                                                                                                                             "与故障相关的工单：%s",
	"%s (provider's %s)": "%s（服务商编号 %s）",
	"the availability claimed and its arithmetic: the breaches table above":                                                                                                                             "所主张的可用率及其计算：见上方违约事项表",
	"No breach of the contract this month: there is nothing to claim and no letter to send.":                                                                                                            "本月未违约：无可索赔事项，无需发函。",
	"The breaches listed above earn no credit under the contract, and the terms say no notice of breach is sent for them: this page is for the renter's records.":                                       "上列违约事项按合同不产生赔偿，且按条款约定不就其发出违约通知：本页仅供承租方存档。",
	"%s gives notice of the breaches of contract %s listed above, in the service of %s. They earn no credit under the contract, and no credit is requested; %s reserves its rights under the contract.": "%s 特此就合同 %s 项下 %s 服务中的上列违约事项发出通知。上述事项按合同不产生赔偿，本通知不申请赔偿；%s 保留其在合同项下的权利。",
	// Approximations.
	"Approximate: %s, where the provider's text says “%s”": "近似计算：%s，而服务商条款原文为“%s”",
	"%s per incident": "每次故障 %s",
	"%s in the month": "当月 %s",
	" and ":           "及",
	"never more than the provider would count":    "绝不多于服务商的计数",
	"possibly more than the provider would count": "可能多于服务商的计数",
	"either way":               "可能偏多或偏少",
	": off by at most %s, %s.": "：误差至多 %s，%s。",
	"%s: the provider's own count may differ by at most %s this month: uptime between %s and %s": "%s：服务商自己的计数本月至多相差 %s：可用率介于 %s 与 %s 之间",
	", across a tier line: the credit tier may differ":                                           "，跨越赔偿档位：赔偿档位可能不同",
	", within the same tier": "，仍在同一赔偿档位",
}
