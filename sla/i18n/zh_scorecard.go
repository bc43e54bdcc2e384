package i18n

// zhScorecard is the monthly report's scorecard section (functions/document):
// the headline figures of sla/scorecard's comparison table and their
// dimensions, kept apart from zh so that the section's words are found
// together.
var zhScorecard = map[string]string{
	"Provider scorecard %s": "供应商评分卡 %s",
	"Each provider's figures for the month beside the whole fleet (every provider's nodes together); n is how many observations a figure rests on, a figure with too few is marked so and not ranked; the rank is among the providers with enough observations.":     "本月各供应商的指标与整个集群（所有供应商的节点合计）并列；n 为该指标所依据的观测数，观测过少的指标会注明且不参与排名；排名只在观测足够的供应商之间进行。",
	"Each provider's figures over these months beside the whole fleet (every provider's nodes together); n is how many observations a figure rests on, a figure with too few is marked so and not ranked; the rank is among the providers with enough observations.": "这几个月各供应商的指标与整个集群（所有供应商的节点合计）并列；n 为该指标所依据的观测数，观测过少的指标会注明且不参与排名；排名只在观测足够的供应商之间进行。",
	"%s (%d nodes, %d GPUs)":                   "%s（%d 台节点，%d 张 GPU）",
	"all providers (%d nodes)":                 "所有供应商（%d 台节点）",
	"%s (n=%d%s)":                              "%s（n=%d%s）",
	"%s (too few: n=%d < %d%s)":                "%s（观测过少：n=%d < %d%s）",
	"%s (too few: n=%d on %d machines < %d%s)": "%s（机器过少：n=%d，仅 %d 台机器 < %d%s）",
	", %d unfinished":                          "，%d 项未完成",
	"delivered within 30 min":                  "30 分钟内交付",
	"off-hours answered within 1 h":            "非工作时间 1 小时内响应",
	"burn throughput of a healthy card":        "压测吞吐占健康卡实测值",
	"#%d of %d":                                "第 %d / %d 名",
	"– (n=%d)":                                 "–（n=%d）",
	"min per node-month":                       "分钟/节点月",
	"rank":                                     "排名",
	"dimension":                                "维度",
	"network stability":                        "网络稳定性",
	"hardware truth":                           "硬件真实度",
	"support":                                  "售后",
	"billing":                                  "计费",
	"reliability":                              "可靠性",
	"performance":                              "性能",
	"order to delivery, p90":                   "下单到交付 p90",
	"nodes failing acceptance":                 "验收不合格的节点",
	"gateway RTT, p99":                         "网关 RTT p99",
	"iperf3 of nominal, p50":                   "iperf3 达标率 p50",
	"off-hours first response, p90":            "非工作时间首次响应 p90",
	"tickets breaching a target":               "超出时限的工单",
	"billed hours not usable":                  "计费但不可用的时长",
	"claimable outage per node-month":          "每节点月可索赔故障时长",
	"burn throughput of fleet median":          "压测吞吐占集群中位数",
	// The scorecard's own PDF and the status page's scorecard tab.
	"Provider scorecard %s to %s": "供应商评分卡 %s 至 %s",
	"As of %s; %d events read. Each cell: the measured figure, its rank among the providers with enough observations (1 = best) and n, the observations it rests on; a figure with too few is marked so and not ranked. No single score.": "截至 %s；读取 %d 个事件。每格为实测指标、在观测足够的供应商之间的排名（1 = 最好）以及 n（该指标所依据的观测数）；观测过少的指标会注明且不参与排名。没有综合总分。",
	"No node was in service in these months.":                   "这些月份内没有投入服务的节点。",
	"Provider scorecard %s to %s (%d providers compared): `%s`": "供应商评分卡 %s 至 %s（对比 %d 家供应商）：`%s`",
	"Comparison":       "对比",
	"lower is better":  "越低越好",
	"higher is better": "越高越好",
}
