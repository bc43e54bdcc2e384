package i18n

// zhRecords is the part of the catalog about the books' administrative
// records and when they were recorded (maintenance recorded late,
// releases and ticket times dated before their recording, and the report's
// retroactive section), kept apart so every sentence about them is found
// in one place; init merges it into zh.
var zhRecords = map[string]string{
	// Domain sentences (sla/report).
	"recorded late (%s), taken out as announced on an override: %s":                                                                                   "登记较晚（%s），依据覆盖说明按通知扣除：%s",
	"announced with enough notice but recorded only at %s: nothing before its recording, nor an outage already under way then, is taken out":          "已提前足够时间通知，但直到 %s 才登记：登记之前的时段以及登记时已在进行的故障均不扣除",
	"announced with less than the required notice: it takes nothing out either way":                                                                   "通知提前量不足：无论如何都不扣除任何时段",
	"taken out as announced on the override: %s of counted outage inside it does not count":                                                           "依据覆盖说明按通知扣除：其中 %s 的计入故障不再计入",
	"takes out nothing before its recording nor of an outage already under way then: %s of outage inside it still counts":                             "登记之前的时段及登记时已在进行的故障均不扣除：其中 %s 的故障仍然计入",
	"the service period and billing end at the release: %s of the month between it and its recording is outside them":                                 "服务期与计费止于退租时间：退租与其登记之间当月的 %s 不在服务期与计费之内",
	"dated %s before its recording and timed as dated: the provider's own record of the ticket can confirm or refute it":                              "所记时间早于登记 %s，按所记时间计时：服务商自己的工单记录可以证实或否定",
	"opened %s before its recording: its targets run from the opening it claims, which the provider's own record of the ticket can confirm or refute": "开单时间早于登记 %s：各项承诺从所记开单时间起算，服务商自己的工单记录可以证实或否定",
	// The retroactive section (functions/document/report_retro.go) and the
	// recording of notices and tickets in a node's tables.
	"Retroactive records": "事后补录的记录",
	"Administrative records — maintenance notices, releases, ticket times — dated before the backend recorded them, with who recorded them and what they changed. A notice recorded after its start, or after an outage it covers began, takes out nothing before its recording nor of an outage already under way, unless an administrator gave an override; releases and ticket times are taken as dated and listed here, so the provider can hold them to its own records.": "所记时间早于后端登记时间的管理记录（维护通知、退租、工单时间），以及登记人和它们带来的变化。在维护开始之后、或在其覆盖的故障开始之后才登记的维护通知，不扣除登记之前的时段，也不扣除登记时已在进行的故障，除非管理员给出了覆盖说明；退租和工单时间按所记时间采用，并列于此处，以便服务商对照自己的记录核实。",
	"%d records carry no recording time (a log exported before recording times were kept): they are taken as they claim.": "%d 条记录没有登记时间（记录登记时间之前导出的日志）：按其所记时间采用。",
	"record":        "记录",
	"dated":         "所记时间",
	"head:recorded": "登记时间",
	"by":            "登记人",
	"late":          "晚登记",
	"override":      "覆盖说明",
	"honoured":      "是否采信",
	"at stake":      "涉及时长",
	"effect":        "影响",
	"retroactive record: see Retroactive records":                                 "事后补录：见“事后补录的记录”",
	"Evidence bundle: records SHA-256 (who recorded each notice and ticket time)": "证据包：登记记录 SHA-256（每条维护通知与工单时间的登记人与登记时间）",
	// Record kinds (event types).
	"node_released":             "退租",
	"ticket_opened":             "开单",
	"ticket_provider_responded": "服务商响应",
	"ticket_customer_replied":   "客户回复",
	"ticket_resolved":           "工单已解决",
	"hardware_replaced":         "硬件已更换",
	// CSV column labels of the retroactive table.
	"csv:retroactive_record": "补录记录",
	"csv:ticket":             "工单",
	"csv:claimed_at":         "所记时间",
	"csv:recorded_at":        "登记时间",
	"csv:recorded_by":        "登记人",
	"csv:late_seconds":       "晚登记秒数",
	"csv:override":           "覆盖说明",
	"csv:honoured":           "是否采信",
	"csv:at_stake_seconds":   "涉及秒数",
	"csv:effect":             "影响",
}
