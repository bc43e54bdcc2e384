package incident

import (
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// The instants an unreachable gap begins and ends, finer than the heartbeats
// where the evidence allows (docs/contract.md, "Resolution"). The live state
// and the monthly report both date gaps with these functions, so they agree
// to the nanosecond.
//
// The end. A gap ends when the backend hears the node again, and no
// earlier: a heartbeat the probe spooled in the last seconds of a network
// cut and delivered after it is heard in time (within SilenceAllowance), but
// it was made cut off, so it shows the node connected only from when the
// backend began to hear from it again — the first receipt after the silence
// (runFrom, the start of the receipt run the heartbeat arrived in). And a
// long cut leaves a spool to drain: its late batches arrive first, and the
// first heartbeat heard in time may come a minute later, but the node was
// heard from the first of them on, so the gap ends there at the latest.
//
// The beginning. With only heartbeats, a gap begins when the next one was
// due after the last one heard (DueAfter), up to an interval after the cut
// began. The
// probe's link watch (LinkCheck) dials the backend every few seconds and
// records the first failed dial after a successful one: a gap whose
// evidence holds such a record, made after the last heartbeat heard and
// before the next was due, begins there (RefineStart).

// LinkCheck is the probe's link watch: a connectivity check it records only
// when its dial of the backend starts failing after a success (fail, dated
// at the first failed dial) and when it succeeds again (pass).
const LinkCheck = "net.backend.link"

// TransitSlack is how late past a batch's normal wait a heartbeat may
// arrive and still show the node connected at its own time: the request's
// transit. It moves no gap's end by more than itself, and keeps the report
// from having to remember every prompt heartbeat.
const TransitSlack = 2 * time.Second

// ReceiptBreak is the silence in the backend's receipts from a node that
// starts a new receipt run: longer than heartbeats heard in time can leave
// between them (PromptTol apart, each up to SilenceAllowance late), so a
// node heard in time never breaks its run, and a run compacted by the
// backend's store (docs/events.md, heartbeat_run) is one run of receipts.
func ReceiptBreak(interval, push time.Duration, th Thresholds) time.Duration {
	return PromptTol(interval, th) + SilenceAllowance(interval, push, th)
}

// batchWait is how long a batch's first heartbeat normally waits on the
// node before it is sent: push − interval, zero at one heartbeat a push.
func batchWait(interval, push time.Duration) time.Duration {
	return max(push-interval, 0)
}

// HeardAt is the instant a heartbeat heard in time shows the node
// connected: its own time at (skew-corrected probe time), unless it was made
// before the receipt run it arrived in began (runFrom; zero: unknown) and
// reached the backend later than a batch's normal wait plus TransitSlack:
// then not before runFrom, nor before its receipt less the normal wait (a
// batch that waited as batches do shows the node connected when its first
// heartbeat was made).
func HeardAt(at, received, runFrom time.Time, interval, push time.Duration) time.Time {
	w := batchWait(interval, push)
	if received.Sub(at) <= w+TransitSlack || !runFrom.After(at) {
		return at
	}
	h := received.Add(-w)
	if runFrom.Before(h) {
		h = runFrom
	}
	if h.Before(at) {
		return at
	}
	return h
}

// GapEnd is when a gap that began at since ends: at the closing heartbeat's
// HeardAt (heard), or at runFrom, the first receipt of the run it arrived
// in, when that came inside the gap (a spool drained first); never before
// since. A run that began before the gap says nothing about it: its
// receipts may be up to ReceiptBreak apart, a missed heartbeat or two.
func GapEnd(since, heard, runFrom time.Time) time.Time {
	end := heard
	if runFrom.After(since) && runFrom.Before(end) {
		end = runFrom
	}
	if end.Before(since) {
		return since
	}
	return end
}

// LinkLost reports whether checks hold the probe's record of losing its
// link to the backend (LinkCheck failing).
func LinkLost(checks []events.Check) bool {
	for i := range checks {
		if checks[i].Name == LinkCheck && checks[i].Category == events.CategoryConnectivity && checks[i].Verdict == events.Fail {
			return true
		}
	}
	return false
}

// LinkReached reports whether checks hold the probe's record of reaching
// the backend again (LinkCheck passing).
func LinkReached(checks []events.Check) bool {
	for i := range checks {
		if checks[i].Name == LinkCheck && checks[i].Category == events.CategoryConnectivity && checks[i].Verdict == events.Pass {
			return true
		}
	}
	return false
}

// Reconnect is the longest a probe whose link watch has reached the
// backend takes to be heard by it: its retry wait, at most
// backend.max_backoff, which the probe holds to the heartbeat interval
// (docs/probe.md), and the request's transit (TransitSlack). A record of
// reaching the backend made longer than that before the backend heard the
// node is contradicted by the backend's own silence (SplitGap).
func Reconnect(interval time.Duration) time.Duration { return interval + TransitSlack }

// DueAfter is when the next heartbeat was due after the backend last heard
// the node in time at heard, the last heartbeat among what it heard being
// at beat (zero: none): one interval after that heartbeat, when that is
// after heard — a check result heard after the heartbeat says the node was
// connected then, not that the next heartbeat comes later — else one
// interval after heard (heartbeats stopped while other results came: the
// old rule, the one that claims least).
func DueAfter(heard, beat time.Time, interval time.Duration) time.Time {
	if due := beat.Add(interval); !beat.IsZero() && due.After(heard) {
		return due
	}
	return heard.Add(interval)
}

// RefineStart is when a gap begins whose next heartbeat was due at due,
// the backend having last heard the node in time at heard: at the earliest
// record in conns of the probe losing its link (Conn.Lost) made after heard
// and before due, or at due when there is none. Only a loss recorded inside
// that interval moves the start: before it the backend heard the node, and
// a record after due changes nothing the heartbeats had not shown.
func RefineStart(heard, due time.Time, conns []Conn) time.Time {
	start := due
	for _, c := range conns {
		if c.Lost && c.At.After(heard) && c.At.Before(start) {
			start = c.At
		}
	}
	return start
}
