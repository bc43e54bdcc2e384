package i18n

// zhBills is the part of the catalog about bill lines judged together (a
// charge split over several lines), kept apart so every sentence
// about them is found in one place; init merges it into zh.
var zhBills = map[string]string{
	"billed %s h, the contract allows %s h":                                        "账单计%s小时，合同允许%s小时",
	"charged %.2f %s, the contract price gives %.2f":                               "收费%.2f %s，按合同价格应为%.2f",
	"the bill rounds the %s h period up to whole hours; the contract bills per %s": "账单把%s小时的服务期向上取整为整小时；合同按%s计费",
	"rounding to %s adds %s h":                                                     "按%s取整多计%s小时",
	"the report has charges for this node but the bill has no line":                "报告中该节点有费用，但账单中没有对应的行",
	"bill lines %s are judged together as node %s's GPU time: %s h, %.2f":          "账单第 %s 行合并核对为节点 %s 的 GPU 时长：%s 小时，%.2f",
	"bill lines %s bill %s %s together, but %s; the lines before this one take %s %s of it, so %s %s of this line's %s are more than was there": "账单第 %[1]s 行合计计费 %[2]s %[3]s，但%[4]s；此前各行已占其中 %[5]s %[6]s，因此本行 %[9]s 中有 %[7]s %[8]s 超出实际",
	"the node's interfaces (%s) sent at most %s GB in %s – %s":                                                                                  "节点网卡（%[1]s）在 %[3]s – %[4]s 期间最多发送 %[2]s GB",
	"the system disk (%s) holds %s GB%s": "系统盘（%s）容量 %s GB%s",
}
