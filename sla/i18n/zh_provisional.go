package i18n

// zhProvisional is the part of the catalog of a report whose month is not
// over as of its as-of instant (functions/document): the mark on every
// page, the banner, and why no claim letter is written.
var zhProvisional = map[string]string{
	"provisional, as of %s":                     "临时报告，截至%s",
	"Credit earned so far (provisional)":        "截至目前的应得赔付（临时）",
	"%s, provisional, as of %s - page %d of %s": "%s，临时报告，截至%s，第%d页，共%s页",
	"Provisional, as of %s: the month is not over, so these figures cover the service up to that instant and will change. A claim is filed for a month that is over: this report holds no claim letter.": "临时报告，截至%s：本月尚未结束，以下数据只反映截至该时刻的服务，之后还会变化。索赔只针对已经结束的月份提出，因此本报告不附索赔函。",
	"none: no node of these contracts was in service this month": "无：本月这些合同下没有在服务的节点",
	"csv:provisional_as_of": "临时报告截至",
}
