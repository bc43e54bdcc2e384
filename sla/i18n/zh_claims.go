package i18n

// enClaimWords are the English words for the claims ledger's machine words
// (how a claim was sent, its state, how a credit was matched).
var enClaimWords = map[string]string{
	"support_case":  "support case",
	"part_credited": "partly credited",
	"amount_period": "amount and period",
	"manual":        "by hand",
}

// zhClaims is the part of the catalog of the claims ledger: its alerts,
// the follow-up letter, the recovery lines and the ledger's words.
var zhClaims = map[string]string{
	// The ledger's words.
	"support_case":    "支持工单",
	"email":           "电子邮件",
	"portal":          "控制台",
	"letter":          "书面函件",
	"drafted":         "已起草",
	"sent":            "已提交",
	"granted":         "已批准",
	"part_credited":   "部分到账",
	"credited":        "已到账",
	"refused":         "已拒绝",
	"accepted":        "全部接受",
	"partial":         "部分接受",
	"reference":       "编号",
	"amount_period":   "金额与账期",
	"manual":          "人工",
	"unmatched":       "未匹配",
	"applied":         "已冲抵",
	"already_applied": "此前已冲抵",
	"still_unmatched": "仍未匹配",
	"answer_overdue":  "答复逾期",
	"credit_overdue":  "赔付逾期",
	// Alerts: *…* is strong, `…` code (infra/notify/chantext spans).
	"Provider deadline passed on the claim for %s: %s (%s)":               "%[1]s索赔：服务商期限已过 — %[2]s（%[3]s）",
	"%s has not answered claim `%s` (%s) by its own deadline, *%s* (%s).": "%[1]s未在其自己规定的期限*%[4]s*（%[5]s）前答复索赔`%[2]s`（%[3]s）。",
	"*%s* of claim `%s` (%s) is not on the bills recorded so far, and %s's own deadline to credit it, *%s* (%s), has passed; a credit in time is on a bill for %s at the latest.": "索赔`%[2]s`（%[3]s）中*%[1]s*未见于目前已录入的账单，%[4]s自己规定的赔付期限*%[5]s*（%[6]s）已过；按时的赔付最迟应出现在%[7]s的账单上。",
	"Sent %s by %s (case %s).":                    "已于%s通过%s提交（工单号%s）。",
	"Sent %s by %s.":                              "已于%s通过%s提交。",
	"Follow-up letter: `gpusla claims letter %s`": "催告函：`gpusla claims letter %s`",
	"Claims %s, %s: claimed %s · granted %s · received on bills %s · refused %s · outstanding *%s* · %s recovered": "索赔 %s，%s：申请 %s · 批准 %s · 账单已抵扣 %s · 被拒 %s · 待赔付 *%s* · 回收 %s",
	" · %d past the provider's deadline": " · %d 项已过服务商期限",
	// The follow-up letter.
	"To: %s":   "致：%s",
	"From: %s": "发函方：%s",
	"Date: %s": "日期：%s",
	"Subject: follow-up to our SLA credit claim %s for %s": "事由：关于%[2]s SLA 赔偿申请 %[1]s 的催告",
	", your reference %s": "，贵方编号 %s",
	"On %s we sent you, by %s%s, our claim for a service credit of %s for %s under contract %s.":                      "我方已于%[1]s通过%[2]s%[3]s，就合同 %[6]s 项下%[5]s的服务，向贵方提交 %[4]s 的服务赔偿申请。",
	"The claim rests on the evidence sealed in its report: observations SHA-256 %s, hash chain head %s (%d batches).": "该申请以报告封存的证据为依据：观测数据 SHA-256 %s，哈希链头 %s（共 %d 批）。",
	"Your terms give you until %s to answer a claim (%s).%s We have received no answer.":                              "按贵方条款，贵方应于%s前答复索赔申请（%s）。%s我方至今未收到答复。",
	"Please answer the claim, and tell us your decision with its reference.":                                          "请答复该申请，并告知处理结果及其编号。",
	"Your terms say the credit is applied by %s (%s)%s.":                                                              "按贵方条款，赔付应于%s前完成（%s）%s。",
	"%s is still outstanding. Please apply it and tell us on which bill it appears.":                                  "尚有%s未赔付。请予以赔付，并告知体现在哪一期账单上。",
	`, which reads: "%s"`:                  "，原文为：“%s”",
	" (reference %s)":                      "（编号 %s）",
	"On %s you accepted the claim%s.":      "贵方已于%s全部接受该申请%s。",
	"On %s you granted %s of the claim%s.": "贵方已于%s批准其中%s%s。",
	"No credit against the claim is on the bills we have received so far.": "我方迄今收到的账单上均无针对该申请的赔付。",
	"Your bill for %s credits %s against the claim.":                       "贵方%s的账单就该申请抵扣%s。",
}
