package incident

import (
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/msg"
)

// Hysteresis is the open/close machine of one check (name and GPU, see
// CheckKey) on one node. Feed it that check's verdicts in probe-time order.
// It opens after FailureThreshold failures in a row — at the first one for
// a definitive check — backdated to the first of them, and closes after
// SuccessThreshold passes in a row, at the first of them, so a flapping
// check neither opens a storm of incidents nor ends one early. Results of
// other checks, of the same category or not, never touch its counts.
type Hysteresis struct {
	// Kind is the incident kind the check opens (its category's).
	Kind              Kind      `json:"kind,omitempty"`
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

// Step feeds one verdict of check v.Check at probe time at. It returns the
// transition it caused, if any. Verdicts older than the last one fed are
// ignored (the live path sees batches in receive order; the report sorts).
func (h *Hysteresis) Step(th Thresholds, at time.Time, v Verdict) (Transition, bool) {
	if at.Before(h.Last) {
		return Transition{}, false
	}
	h.Last = at
	if !h.Open && v.Fail {
		// The incident's kind is its opening failure's: a check may report
		// in another category when it passes (an XID scan: gpu_degraded
		// when clean, gpu_lost for XID 79).
		h.Kind = v.Kind
	}
	kind := h.Kind
	if v.Fail {
		h.PassRun, h.FirstPass = 0, time.Time{}
		h.FailRun++
		if h.FailRun == 1 {
			h.FirstFail, h.FirstFailEvidence = at, v.Evidence
		}
		need := th.fail()
		if th.IsDefinitive(v.Name) {
			need = 1
		}
		if !h.Open && h.FailRun >= need {
			h.Open, h.Since = true, h.FirstFail
			first := msg.At(h.FirstFail, time.UTC)
			confirm := msg.New("%d failing results of this check in a row from %s", h.FailRun, first)
			if need == 1 && h.FailRun == 1 {
				confirm = msg.New("a definitive check: one failure opens the incident (%s)", first)
			}
			t := Transition{Op: Open, Kind: kind, Check: v.Check, Since: h.Since, At: h.Since, Cause: CauseCheck, Counted: true}.
				because(msg.New("%s; %s", msg.Plain(h.FirstFailEvidence), confirm))
			h.Evidence = t.Evidence
			return t, true
		}
		return Transition{}, false
	}
	h.FailRun, h.FirstFail, h.FirstFailEvidence = 0, time.Time{}, ""
	h.PassRun++
	if h.PassRun == 1 {
		h.FirstPass = at
	}
	if h.Open && h.PassRun >= th.pass() {
		t := Transition{Op: Close, Kind: kind, Check: v.Check, Since: h.Since, At: h.FirstPass, Cause: CauseCheck, Counted: true}.
			because(msg.New("%d passing results of this check in a row from %s", h.PassRun, msg.At(h.FirstPass, time.UTC)))
		h.Open, h.Since, h.Evidence = false, time.Time{}, ""
		return t, true
	}
	return Transition{}, false
}

// Verdict is what one observation says about one check.
//
// Key is the check's identity in a node's state: kind and CheckKey.
type Verdict struct {
	Kind     Kind
	Check    string // CheckKey: name and GPU
	Name     string // the check's name (what Definitive patterns match)
	Fail     bool
	Evidence string // the failing check, for a failure
	// EvidenceText is Evidence as a sentence to translate; zero where
	// the verdict was rebuilt from its English.
	EvidenceText msg.Text
}

// Key identifies the hysteresis the verdict feeds (State.Checks): the
// check, whatever category it reported this time.
func (v Verdict) Key() string { return v.Check }

// SplitKey says which incident kind and check a State.Checks entry is
// about: a version 1 key is a bare kind with no check.
func SplitKey(key string, h *Hysteresis) (Kind, string) {
	if k := Kind(key); k.Valid() {
		return k, ""
	}
	return h.Kind, key
}

// CheckKey identifies a check across observations: its name, and the GPU
// it judged ("gpu.burn.fp32.errors/gpu3"); a node-wide check is its name.
func CheckKey(c *events.Check) string {
	if c.GPU == nil {
		return c.Name
	}
	return c.Name + "/gpu" + strconv.Itoa(*c.GPU)
}

// Keys makes CheckKey's strings once each, for a caller that asks for
// millions of them (the report: a year of stress runs is 56 a run, and
// joining each afresh was a thirtieth of a year's scorecard). Bounded: past
// maxKeys distinct checks the rest are joined every time. Not safe for
// concurrent use; the zero Keys is ready.
type Keys struct{ m map[keyOf]string }

type keyOf struct {
	name string
	gpu  int
}

const maxKeys = 1 << 16

// CheckKey is CheckKey(c), remembered.
func (k *Keys) CheckKey(c *events.Check) string {
	if k == nil || c.GPU == nil {
		return CheckKey(c)
	}
	id := keyOf{c.Name, *c.GPU}
	if s, ok := k.m[id]; ok {
		return s
	}
	s := CheckKey(c)
	if k.m == nil {
		k.m = make(map[keyOf]string)
	}
	if len(k.m) < maxKeys {
		k.m[id] = s
	}
	return s
}

// Verdicts lists an observation's verdicts per check (CheckKey), of the
// checks whose category opens incidents: a check fails if any of its results in the
// observation failed, passes if none failed and one passed; warn and
// skipped say nothing. Order is the checks' first appearance.
func Verdicts(checks []events.Check) []Verdict {
	if len(checks) == 0 {
		return nil
	}
	return AppendVerdicts(make([]Verdict, 0, len(checks)), checks, nil)
}

// AppendVerdicts is Verdicts written into dst's storage (dst[:0]), for a
// caller that reuses one buffer across observations (the report, over
// millions of them); keys, if not nil, makes the check keys.
func AppendVerdicts(dst []Verdict, checks []events.Check, keys *Keys) []Verdict {
	out := dst[:0]
	// A stress observation holds a check per GPU and figure, dozens: past a
	// few, finding a repeated check by scanning what came before costs more
	// than an index.
	var index map[string]int
	if len(checks) > 8 {
		index = indexPool.Get().(map[string]int)
		defer func() { clear(index); indexPool.Put(index) }()
	}
	for i := range checks {
		c := &checks[i]
		k, ok := KindOfCategory(c.Category)
		if !ok || (c.Verdict != events.Fail && c.Verdict != events.Pass) {
			continue
		}
		key := keys.CheckKey(c)
		j := -1
		if index != nil {
			if x, ok := index[key]; ok {
				j = x
			}
		} else {
			j = slices.IndexFunc(out, func(v Verdict) bool { return v.Check == key })
		}
		if j < 0 {
			out = append(out, Verdict{Kind: k, Check: key, Name: c.Name})
			j = len(out) - 1
			if index != nil {
				index[key] = j
			}
		}
		if c.Verdict == events.Fail && !out[j].Fail {
			t := CheckEvidenceText(c)
			out[j].Fail, out[j].Evidence, out[j].EvidenceText, out[j].Kind = true, t.String(), t, k
		}
	}
	return out
}

var indexPool = sync.Pool{New: func() any { return map[string]int{} }}

// Connectivity sums an observation's connectivity checks: fail if any failed,
// pass if one passed and none failed; ok is false when there were none.
func Connectivity(checks []events.Check) (fail bool, evidence string, ok bool) {
	fail, t, ok := ConnectivityText(checks)
	if fail {
		evidence = t.String()
	}
	return fail, evidence, ok
}

// ConnectivityText is Connectivity with the first failure's evidence as a
// sentence to translate.
func ConnectivityText(checks []events.Check) (fail bool, evidence msg.Text, ok bool) {
	for i := range checks {
		c := &checks[i]
		if c.Category != events.CategoryConnectivity {
			continue
		}
		switch c.Verdict {
		case events.Fail:
			if !fail {
				fail, evidence = true, CheckEvidenceText(c)
			}
			ok = true
		case events.Pass:
			ok = true
		}
	}
	return fail, evidence, ok
}

// CheckEvidence renders a check as one line of evidence (its English).
func CheckEvidence(c *events.Check) string { return CheckEvidenceText(c).String() }

// CheckEvidenceText is CheckEvidence as a sentence to translate: the
// check's name (data), its verdict, and the probe's value, criterion and
// detail in their coded forms where the probe sent them (msg.FromProbe).
func CheckEvidenceText(c *events.Check) msg.Text {
	t := msg.New("%s %s", msg.Plain(c.Name), msg.Word(c.Verdict))
	if c.GPU != nil {
		t = msg.New("%s (GPU %d) %s", msg.Plain(c.Name), *c.GPU, msg.Word(c.Verdict))
	}
	if c.Value != "" {
		v := msg.Plain(c.Value)
		if c.ValueText != nil {
			v = msg.FromProbe(c.Value, c.ValueText)
		}
		t = msg.New("%s: %s", t, v)
	}
	if c.Criterion != "" {
		t = msg.New("%s (want %s)", t, msg.FromProbe(c.Criterion, c.CriterionText))
	}
	if c.Detail != "" {
		t = msg.New("%s — %s", t, msg.FromProbe(c.Detail, c.DetailText))
	}
	return t
}
