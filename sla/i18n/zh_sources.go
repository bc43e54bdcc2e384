package i18n

// zhSources is the part of the catalog about what a claim rests on and
// what it cannot speak for: the published sources of the terms,
// the terms only a secondary source backs, and the nodes a report had to
// leave out; kept apart so every such sentence is found in one place; init
// merges it into zh.
var zhSources = map[string]string{
	// Domain sentences (sla/report).
	"contract %q is defined by no terms given (known: %s)":                   "没有任何给定的条款文件定义合同 %q（已有：%s）",
	"its part of the month could not be built (%s); it is not in the totals": "该节点本月的部分未能生成（%s），未计入合计",
	"not delivered as of %s, %s late so far (target %s)":                     "截至 %s 仍未交付，已逾期 %s（承诺 %s）",
	// Claims state no false facts: a node not delivered, breaches that
	// earn nothing (functions/document/report_sections.go).
	"not delivered as of %s, %s since the order (target %s)":                                                                                            "截至 %s 仍未交付，距下单已 %s（承诺 %s）",
	"not delivered as of %s, %s since the order":                                                                                                        "截至 %s 仍未交付，距下单已 %s",
	"The breaches listed above earn no credit under the contract: no credit is requested for them.":                                                     "上列违约事项按合同不产生赔偿：不就其申请赔偿。",
	"ticket %s: first response %s late (committed within %s); the contract attaches no credit to it":                                                    "工单 %s：首次响应超时 %s（合同承诺 %s内响应）；合同未就此约定赔偿",
	"ticket %s: hardware replaced %s late (committed within %s); the contract attaches no credit to it":                                                 "工单 %s：硬件更换超时 %s（合同承诺 %s内更换）；合同未就此约定赔偿",
	"ticket %s: first response %s late on weekdays alone (committed within %s); the terms list no holidays for %s, so no credit is requested for it":    "工单 %s：仅按工作日计首次响应超时 %s（合同承诺 %s内响应）；条款未列出 %s 年的节假日，不就此申请赔偿",
	"ticket %s: hardware replaced %s late on weekdays alone (committed within %s); the terms list no holidays for %s, so no credit is requested for it": "工单 %s：仅按工作日计硬件更换超时 %s（合同承诺 %s内更换）；条款未列出 %s 年的节假日，不就此申请赔偿",
	"delivered %s late (committed within %s); the contract attaches no credit to it":                                                                    "交付超时 %s（合同承诺 %s内交付）；合同未就此约定赔偿",
	"not delivered as of %s, %s late so far (committed within %s); the contract attaches no credit to it":                                               "截至 %s 仍未交付，已逾期 %s（合同承诺 %s内交付）；合同未就此约定赔偿",
	// The chat summary's line (infra/notify/chantext/report.go).
	":warning: Partial report: node %s left out, %s": ":warning: 报告不完整：节点 %s 未包含，%s",
	// The left-out section (functions/document/report_sources.go).
	"Nodes left out of this report": "本报告未包含的节点",
	"This report is partial: %d nodes are registered under a contract that no terms file given defines, so they could not be judged. Their outages, tickets and credits are not in any figure below; report them again with their contract's terms.": "本报告不完整：有 %d 个节点登记在没有任何给定条款文件定义的合同之下，无法评判。它们的故障、工单与赔偿不在下文任何数字之中；请附上其合同条款重新出具报告。",
	// The claim page's sources and unverified terms.
	"Sources: the published text of each term": "依据：各项条款的公开文本",
	"terms":               "条款",
	"page":                "页面",
	"read":                "查阅日期",
	"clause as published": "公开条文",
	"provider's own text": "服务商自己的文本",
	"Unverified terms: %s. They rest on a secondary source or on none, not on the provider's own published text; the figures resting on them are to be checked against the provider's SLA.": "未经核实的条款：%s。这些条款依据的是第三方资料或没有出处，而非服务商自己公开的文本；以其为依据的数字须与服务商的 SLA 公开文本核对。",
	// CSV column labels of the left-out and sources tables.
	"csv:left_out_node":    "未包含节点",
	"csv:reason":           "原因",
	"csv:source_contract":  "依据所属合同",
	"csv:terms":            "条款",
	"csv:url":              "网址",
	"csv:read":             "查阅日期",
	"csv:secondary":        "第三方资料",
	"csv:unverified_terms": "未经核实的条款",
	"csv:quote":            "条文",
}
