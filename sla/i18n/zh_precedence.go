package i18n

// zhPrecedence is the part of the catalog about the evidence precedence
// rule (docs/contract.md, "Evidence precedence"): what the backend itself
// heard outranks what a node says about its own reachability, and the
// node's records it contradicts are shown as evidence that changes
// nothing; init merges it into zh.
var zhPrecedence = map[string]string{
	// The report's evidence of a gap (sla/report).
	"its connectivity check passed":      "其连通性检查通过",
	"its link watch reached the backend": "其链路监测连上了后端",
	"the node's record says %s at %s, but the backend, itself up, heard nothing from it until %s: kept as evidence, it changes nothing": "节点的记录称其于 %[2]s %[1]s，但后端自身正常运行，直到 %[3]s 才收到该节点的消息：此记录作为证据保留，不改变任何结论",
	"%d more such records, kept as evidence": "另有 %d 条此类记录，作为证据保留",
	"the end of the report":                  "报告结束",
	"the node's own batches show it running; no connectivity result the backend's receipts allow covers this interval": "节点自己的批次显示其在运行；没有后端收到的记录所允许的连通性结果覆盖此区间",
	// The live engine's evidence (sla/incident).
	"an observation heard in time shows the node connected earlier": "一条按时收到的观测表明节点更早已连通",
}
