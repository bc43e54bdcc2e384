package bundle

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/sla/report"
)

// IncidentsFile lists each incident the claim rests on, one row per counted
// outage, with the provider's instance id and region, its dates and times,
// what counted, and where its log lines are in observations.jsonl (the
// batch range kept for it and how many observations): what a provider's
// claim procedure asks a claim to hold ("the dates and times of each
// incident", "the instance IDs", "logs that document the errors"), in a
// form a billing desk opens in a spreadsheet.
const IncidentsFile = "incidents.csv"

var incidentsHead = []string{"contract", "node", "instance_id", "region", "kind", "cause", "start", "end", "seconds",
	"counted_seconds", "from_seq", "to_seq", "missing_seqs", "observations", "evidence"}

// incidentsCSV is incidents.csv for the manifest's intervals and the report
// they came from; Verify derives it again from the zip and compares.
func incidentsCSV(m *Manifest, r *report.Report) []byte {
	type rowKey struct{ node, kind, start string }
	nodes := map[string]*report.Node{}
	rows := map[rowKey]*report.Outage{}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		nodes[n.Node] = n
		for j := range n.Outages {
			o := &n.Outages[j]
			rows[rowKey{n.Node, o.Kind, o.Start}] = o
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(incidentsHead)
	for _, iv := range m.Intervals {
		var contract, instance, region, seconds, evidence string
		if n := nodes[iv.Node]; n != nil {
			contract, instance, region = n.Contract, n.InstanceID, n.Region
		}
		if o := rows[rowKey{iv.Node, iv.Kind, iv.Start}]; o != nil {
			seconds, evidence = strconv.FormatInt(o.Seconds, 10), strings.Join(o.Evidence, " | ")
		}
		missing := make([]string, len(iv.Missing))
		for i, s := range iv.Missing {
			missing[i] = strconv.FormatUint(s, 10)
		}
		_ = w.Write([]string{contract, iv.Node, instance, region, iv.Kind, iv.Cause, iv.Start, iv.End, seconds,
			strconv.FormatInt(iv.CountedSeconds, 10), strconv.FormatUint(iv.FromSeq, 10), strconv.FormatUint(iv.ToSeq, 10),
			strings.Join(missing, " "), strconv.Itoa(iv.Observations), evidence})
	}
	w.Flush()
	return b.Bytes()
}
