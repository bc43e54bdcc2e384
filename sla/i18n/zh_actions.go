package i18n

// zhActions is the part of the catalog of the action pages
// (functions/actionlink: the confirmation page a robot's "Request
// replacement" link opens, and its answers).
var zhActions = map[string]string{
	"Request the replacement of the physical machine": "申请更换物理机",
	"Node":     "节点",
	"Incident": "故障",
	"Since":    "开始时间",
	"Requesting opens a hardware ticket in gpusla with the contract's replacement clock running, writes the signed evidence pack (failing checks, kernel log, stress results, the snapshot), and gives you the ticket text to paste into the provider's ticket system.": "提交后将在 gpusla 中开立硬件工单并开始按合同计算更换时限，生成带签名的证据包（失败的检查、内核日志、压测结果、快照），并给出可直接粘贴到服务商工单系统的工单正文。",
	"Request replacement":      "申请更换",
	"This link expires at %s.": "此链接于 %s 失效。",
	"Replacement requested: hardware ticket %s is open and its replacement clock runs.":                                              "已申请更换：硬件工单 %s 已开立，更换时限开始计算。",
	"Already requested: ticket %s is open for this incident (opened %s by %s).":                                                      "已申请过：此故障的工单 %s 已开立（%s，由 %s 开立）。",
	"Paste this into the provider's ticket system and attach the evidence pack:":                                                     "请将以下内容粘贴到服务商的工单系统，并附上证据包：",
	"This link has expired. Request the replacement from a newer alert, from Slack, or with `gpusla ticket request-replacement %s`.": "此链接已失效。请从较新的告警、Slack 或使用 `gpusla ticket request-replacement %s` 申请更换。",
	"This node is no longer rented: it was released (given back) at %s. No replacement is requested, and no ticket clock starts.":    "该节点已不再租用：已于 %s 释放（归还）。不会申请更换，也不会启动任何工单计时。",
	"This link is not valid: it was changed, it is not from this backend, or the backend's link secret was rotated since.":           "此链接无效：链接被改动、并非来自本系统，或系统的链接密钥已更换。",
	"This link is malformed: %s.":                                                             "此链接格式错误：%s。",
	"The replacement could not be requested: %s":                                              "无法申请更换：%s",
	"The replacement could not be requested now; nothing was changed. Try again in a minute.": "暂时无法申请更换，未做任何更改。请稍后重试。",
}
