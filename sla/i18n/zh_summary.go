package i18n

// zhSummary is the part of the catalog of the monthly report's Slack
// summary (functions/app Summary): Slack markdown stays in the sentence.
var zhSummary = map[string]string{
	"*SLA report %s — %s (%s)*": "*%s SLA 报告 — %s（%s）*",
	"Claim: *%s* of %s charged · %d of %d nodes below %s %% · %d tickets breached · file by *%s*": "索赔：*%s*（计费 %s）· %d/%d 个节点低于 %s %% · %d 个工单超时 · 请于 *%s* 前提交",
	"… and %d more nodes":                     "… 另有 %d 个节点",
	"• %s: %s %% claimable uptime, credit %s": "• %s：可索赔可用率 %s %%，赔偿 %s",
	"Evidence bundle chain head: `%s`":        "证据包链头：`%s`",
	"Claim deadline for *%s* (%s), %s: last day to file *%s* (%s; the claim must be in before %s) — %s left. Claim %s; report and evidence bundle under `%s/`.": "*%s*（%s）%s 的索赔截止提醒：最后提交日 *%s*（%s；索赔须在 %s之前提交）— 还剩 %s。索赔额 %s；报告和证据包位于 `%s/`。",
}
