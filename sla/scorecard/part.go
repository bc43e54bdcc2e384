package scorecard

import (
	"fmt"
	"time"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/events"
)

// A scorecard built from the store rather than a log (app.Books) has its
// month reports made node by node elsewhere and hands the builder only
// what the scorecard reads itself: registrations and check results. Each
// node's records are read apart, on a worker of their own, into a NodePart;
// the parts are filed in node order (AddPart), the order a log lists the
// nodes in, and the events the log shares (tickets, notices, the backend's
// outages) are counted with Note. BuildFrom then gives the scorecard the
// log would have given, byte for byte.

// NodePart is what one node's records give the scorecard: its
// registration, acceptance and trial results, the stress figures the fleet
// is compared on, its network readings and XIDs, and how many events it
// counted. A part is read by one goroutine; parts of different nodes may
// be read at once.
type NodePart struct {
	b      *Builder
	id     string
	events int
	info   *nodeInfo
	figs   []figRec
	net    []netRec
	xids   []xidRec
	sink   sink
}

// figRec is one observation's stress figures, for the fleet's collector.
type figRec struct {
	at     time.Time
	checks []events.Check
}

// NodePart begins node id's part; it only reads the builder's options and
// contracts, so parts may be read while others are.
func (b *Builder) NodePart(id string) *NodePart {
	p := &NodePart{b: b, id: id}
	p.sink = sink{node: p.node, perf: p.addFigures, net: &p.net, xids: &p.xids}
	return p
}

func (p *NodePart) node(id string) *nodeInfo {
	if p.info == nil {
		p.info = &nodeInfo{}
	}
	return p.info
}

// addFigures keeps the checks the fleet's collector files (the rest it
// passes over), in their order.
func (p *NodePart) addFigures(_ string, at time.Time, checks []events.Check) {
	var keep []events.Check
	for i := range checks {
		if _, ok := baseline.FigureOf(&checks[i]); ok {
			keep = append(keep, checks[i])
		}
	}
	if len(keep) > 0 {
		p.figs = append(p.figs, figRec{at, keep})
	}
}

// Add reads one of the node's events as Builder.Add reads it for the
// scorecard itself (the month reports are not built from it).
func (p *NodePart) Add(e *events.Event) error {
	if e.Node != p.id {
		return fmt.Errorf("event %q of node %q read into node %s's part", e.ID, e.Node, p.id)
	}
	p.events++
	p.b.own(e, &p.sink)
	return nil
}

// AddPart files a node's part. Parts are filed in the order the log lists
// the nodes (the fleet's collector numbers nodes as it first sees them).
func (b *Builder) AddPart(p *NodePart) {
	b.events += p.events
	if p.info != nil {
		b.nodes[p.id] = p.info
	}
	for _, f := range p.figs {
		b.perf.Add(p.id, f.at, f.checks)
	}
	b.net = append(b.net, p.net...)
	b.xids = append(b.xids, p.xids...)
}

// Note reads an event the scorecard itself reads and counts, without the
// month reports: the events a log shares between nodes, when the reports
// are built elsewhere (BuildFrom).
func (b *Builder) Note(e *events.Event) {
	b.events++
	b.own(e, b.sink)
}
