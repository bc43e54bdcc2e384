package chantext

import (
	"time"

	"github.com/gpusla/gpusla/sla/msg"
)

// EvidenceText is the incident engine's evidence (a transition's Why) as
// an alert's evidence line in lang: its times on zone's clock with the
// zone named, its durations in words ("1 minute", "1分钟", never Go's
// 1m0s); data inside it (a probe's check line) as it came.
func EvidenceText(lang, zone string, t msg.Text) string { return wordsOf(lang, zone).text(t) }

// text translates t through the catalog with the chat's own forms of its
// arguments (stamp, dur), where a document would use the printer's.
func (w words) text(t msg.Text) string {
	if t.IsZero() {
		return ""
	}
	if t.Format == "%s" && len(t.Args) == 1 {
		switch t.Args[0].(type) {
		case string, msg.ProbeWords, msg.RecordedWords:
			return w.p.Text(t) // data as it came; uncoded English marked in Chinese
		}
	}
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		switch v := a.(type) {
		case msg.Text:
			args[i] = w.text(v)
		case msg.Time:
			args[i] = w.stamp(v.Time)
		case time.Duration:
			args[i] = w.dur(v)
		case msg.Word:
			args[i] = w.p.Word(string(v))
		default:
			args[i] = a
		}
	}
	return w.t(t.Format, args...)
}

// PendingCause is the evidence of an unreachable gap's first alert: what
// the backend saw (why: no data from the node since …) and that whose
// fault the gap is waits for the node's own records, a correction
// following if they change it. The first message never guesses a cause.
func PendingCause(why msg.Text) msg.Text {
	return msg.New("%s. Whose fault the gap is, the node's own records will tell when they arrive; a correction follows if they change what this says.", why)
}
