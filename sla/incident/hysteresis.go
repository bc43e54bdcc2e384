package incident

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// Hysteresis is the open/close machine of one check incident kind on one
// node. Feed it that kind's verdicts in probe-time order. It opens after
// FailureThreshold failures in a row, backdated to the first of them, and
// closes after SuccessThreshold passes in a row, at the first of them, so a
// flapping check neither opens a storm of incidents nor ends one early.
type Hysteresis struct {
	Open              bool      `json:"open"`
	Since             time.Time `json:"since,omitzero"`
	Evidence          string    `json:"evidence,omitempty"`
	FailRun           int       `json:"fail_run,omitempty"`
	FirstFail         time.Time `json:"first_fail,omitzero"`
	FirstFailEvidence string    `json:"first_fail_evidence,omitempty"`
	PassRun           int       `json:"pass_run,omitempty"`
	FirstPass         time.Time `json:"first_pass,omitzero"`
	Last              time.Time `json:"last,omitzero"`
}

// Step feeds one verdict (fail or pass) at probe time at. It returns the
// transition it caused, if any. Verdicts older than the last one fed are
// ignored (the live path sees batches in receive order; the report sorts).
func (h *Hysteresis) Step(kind Kind, th Thresholds, at time.Time, fail bool, evidence string) (Transition, bool) {
	if at.Before(h.Last) {
		return Transition{}, false
	}
	h.Last = at
	if fail {
		h.PassRun, h.FirstPass = 0, time.Time{}
		h.FailRun++
		if h.FailRun == 1 {
			h.FirstFail, h.FirstFailEvidence = at, evidence
		}
		if !h.Open && h.FailRun >= th.fail() {
			h.Open, h.Since = true, h.FirstFail
			h.Evidence = fmt.Sprintf("%s; %d failing observations in a row from %s", h.FirstFailEvidence, h.FailRun, h.FirstFail.UTC().Format(time.RFC3339))
			return Transition{Op: Open, Kind: kind, Since: h.Since, At: h.Since, Cause: CauseCheck, Counted: true, Evidence: h.Evidence}, true
		}
		return Transition{}, false
	}
	h.FailRun, h.FirstFail, h.FirstFailEvidence = 0, time.Time{}, ""
	h.PassRun++
	if h.PassRun == 1 {
		h.FirstPass = at
	}
	if h.Open && h.PassRun >= th.pass() {
		t := Transition{Op: Close, Kind: kind, Since: h.Since, At: h.FirstPass, Cause: CauseCheck, Counted: true,
			Evidence: fmt.Sprintf("%d passing observations in a row from %s", h.PassRun, h.FirstPass.UTC().Format(time.RFC3339))}
		h.Open, h.Since, h.Evidence = false, time.Time{}, ""
		return t, true
	}
	return Transition{}, false
}

// Verdict is what one observation says about one incident kind.
type Verdict struct {
	Kind     Kind
	Fail     bool
	Evidence string // the first failing check, for a failure
}

// Verdicts sums an observation's checks per incident kind: a kind fails if
// any of its checks failed, passes if none failed and one passed; warn and
// skipped say nothing. Kinds with no checks are absent. Order is Kinds order.
func Verdicts(checks []events.Check) []Verdict {
	if len(checks) == 0 {
		return nil
	}
	var out []Verdict
	for _, k := range Kinds[1:] {
		v := Verdict{Kind: k}
		seen := false
		for i := range checks {
			c := &checks[i]
			ck, ok := KindOfCategory(c.Category)
			if !ok || ck != k {
				continue
			}
			switch c.Verdict {
			case events.Fail:
				if !v.Fail {
					v.Fail, v.Evidence = true, CheckEvidence(c)
				}
				seen = true
			case events.Pass:
				seen = true
			}
		}
		if seen {
			out = append(out, v)
		}
	}
	return out
}

// Connectivity sums an observation's connectivity checks: fail if any failed,
// pass if one passed and none failed; ok is false when there were none.
func Connectivity(checks []events.Check) (fail bool, evidence string, ok bool) {
	for i := range checks {
		c := &checks[i]
		if c.Category != events.CategoryConnectivity {
			continue
		}
		switch c.Verdict {
		case events.Fail:
			if !fail {
				fail, evidence = true, CheckEvidence(c)
			}
			ok = true
		case events.Pass:
			ok = true
		}
	}
	return fail, evidence, ok
}

// CheckEvidence renders a check as one line of evidence.
func CheckEvidence(c *events.Check) string {
	var b strings.Builder
	b.WriteString(c.Name)
	if c.GPU != nil {
		fmt.Fprintf(&b, " (GPU %d)", *c.GPU)
	}
	b.WriteString(" ")
	b.WriteString(c.Verdict)
	if c.Value != "" {
		b.WriteString(": ")
		b.WriteString(c.Value)
	}
	if c.Criterion != "" {
		b.WriteString(" (want ")
		b.WriteString(c.Criterion)
		b.WriteString(")")
	}
	if c.Detail != "" {
		b.WriteString(" — ")
		b.WriteString(c.Detail)
	}
	return b.String()
}
