package i18n

// zhSummary is the part of the catalog of the notices to the team
// (infra/notify/chantext: the month's report, claim-deadline reminders).
// A sentence marks its strong parts *…* and its code `…`; each channel
// lays them out in its own markup.
var zhSummary = map[string]string{
	"SLA report %s: %s (%s)": "%[2]s（%[3]s）%[1]s SLA 违约报告",
	"Claim *%s* of %s charged · nodes below %s: %d of %d · tickets breached: %d · file by *%s*": "索赔金额：*%[1]s*（当月费用%[2]s）；可用率低于%[3]s的节点：%[4]d个（共%[5]d个）；超时工单：%[6]d个；请于*%[7]s*前提交",
	"⚠️ Partial report: node %s left out, %s":                                                   "⚠️ 报告不完整：节点 %s 未计入，%s",
	"… and %d more nodes":                              "……另有%d个节点",
	"• %s: claimable uptime %s, credit %s":             "• %s：可索赔可用率%s，赔付%s",
	"Evidence bundle chain head: `%s`":                 "证据包链头：`%s`",
	"Report (every format) and evidence bundle: `%s/`": "报告（各种格式）和证据包：`%s/`",
	"Claim deadline %s: %s (%s)":                       "%[2]s（%[3]s）%[1]s索赔截止提醒",
	"Claim the incident on %s: %s (%s)":                "%[2]s（%[3]s）：请就节点 %[1]s 的故障提交索赔",
	"Incident on %s from %s to %s: %s counted so far.": "节点 %s 的故障：%s至%s，目前计入%s。",
	"The window counts from the incident, so it closes before the month's report is written: claim the incident now. The month's tier, and so the credit, is not known until the month is over; the month's claim asks for it.": "索赔期限自故障发生时起算，在本月报告生成前即已届满：请现在就该故障提交索赔。本月的赔付档位（及赔付金额）要到月末才能确定，届时由本月的索赔申请提出。",
	"Send the provider the node, the incident's start and end above and its evidence; once sent, record it: `gpusla claims sent %s`":                                                                                            "请向服务商提供上述节点、故障起止时间及其证据；提交后请记录：`gpusla claims sent %s`",
	"The claim for the incident on %s from %s to %s (`%s`) was never sent: it had to be in before *%s*, and that has passed.":                                                                                                   "节点 %s 在%s至%s的故障的索赔（`%s`）始终未提交：须于*%s*前送达，现已逾期。",
	"The provider may leave this incident out of the month's credit; the month's claim still counts it, and its claim page says whether the tier rests on it. If you sent it anyway, record it: `gpusla claims sent %s`":        "服务商可能在本月赔付中不计此次故障；本月的索赔仍计入它，索赔页会说明赔付档位是否取决于它。如已提交，请记录：`gpusla claims sent %s`",
	"Last day to file: *%s*; the claim must be in before %s; %s left.":                                                                                                                                                          "最后提交日：*%s*，索赔须于%s前送达；距截止还有%s。",
	"Claim: *%s*.":                      "索赔金额：*%s*。",
	"Report and evidence bundle: `%s/`": "报告和证据包：`%s/`",
	"The month is not over: the claim so far is *%s*. The window counts from the incident, so it closes before the month's report is written; file with the evidence so far.": "本月尚未结束：目前的索赔金额为 *%s*。索赔期限自事故发生起计算，在月度报告生成之前即截止；请凭目前的证据提交。",
}
