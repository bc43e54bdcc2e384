package msg

import (
	"fmt"
	"time"
)

// Kept is a Text as a record keeps it (the incident store's JSON and
// DynamoDB items): its format and each argument with its type, so a page
// can translate it long after the engine wrote it. Every field is a plain
// value, so any encoder of structs stores it without code of its own.
type Kept struct {
	Format string    `json:"format"`
	Args   []KeptArg `json:"args,omitempty"`
}

// KeptArg is one argument of a Kept: exactly one field is set.
type KeptArg struct {
	S *string        `json:"s,omitempty"` // data, shown as it is
	I *int64         `json:"i,omitempty"` // a whole number
	F *float64       `json:"f,omitempty"` // a number
	X *float64       `json:"x,omitempty"` // a number shown with its sender's digits (Exact)
	T *time.Time     `json:"t,omitempty"` // an instant (Time), in UTC
	D *time.Duration `json:"d,omitempty"` // a duration
	W *string        `json:"w,omitempty"` // a vocabulary word (Word)
	P *string        `json:"p,omitempty"` // a probe's uncoded English (ProbeWords)
	R *string        `json:"r,omitempty"` // a record's uncoded English (RecordedWords)
	N *Kept          `json:"n,omitempty"` // a nested sentence
}

// Keep is t as a record keeps it; an error names an argument of a type a
// record cannot hold (the Text is then kept by its English only). The kept
// form reads back (Kept.Text) to the same English, byte for byte.
func Keep(t Text) (*Kept, error) {
	if t.IsZero() {
		return nil, nil
	}
	k, err := keep(t, 0)
	if err != nil {
		return nil, err
	}
	if back := k.Text().String(); back != t.String() {
		return nil, fmt.Errorf("kept sentence %q reads back as %q", t.String(), back)
	}
	return k, nil
}

func keep(t Text, depth int) (*Kept, error) {
	if depth > MaxCodedDepth {
		return nil, fmt.Errorf("sentence %q: nested more than %d deep", t.Format, MaxCodedDepth)
	}
	k := &Kept{Format: t.Format, Args: make([]KeptArg, len(t.Args))}
	for i, a := range t.Args {
		arg, err := keepArg(a, depth)
		if err != nil {
			return nil, fmt.Errorf("sentence %q, argument %d: %w", t.Format, i+1, err)
		}
		k.Args[i] = arg
	}
	return k, nil
}

func keepArg(a any, depth int) (KeptArg, error) {
	var k KeptArg
	whole := func(v int64) { k.I = &v }
	switch v := a.(type) {
	case string:
		k.S = &v
	case int:
		whole(int64(v))
	case int64:
		whole(v)
	case int32:
		whole(int64(v))
	case float64:
		k.F = &v
	case float32:
		f := float64(v)
		k.F = &f
	case Exact:
		f, ok := v.V.(float64)
		if !ok {
			return k, fmt.Errorf("an exact %T", v.V)
		}
		k.X = &f
	case Time:
		t := v.Time.UTC()
		k.T = &t
	case time.Duration:
		k.D = &v
	case Word:
		s := string(v)
		k.W = &s
	case ProbeWords:
		s := string(v)
		k.P = &s
	case RecordedWords:
		s := string(v)
		k.R = &s
	case Text:
		n, err := keep(v, depth+1)
		if err != nil {
			return k, err
		}
		k.N = n
	default:
		return k, fmt.Errorf("a %T", a)
	}
	return k, nil
}

// Text is the sentence k keeps; an argument with no value reads as an
// empty string.
func (k Kept) Text() Text {
	t := Text{Format: k.Format, Args: make([]any, len(k.Args))}
	for i, a := range k.Args {
		t.Args[i] = a.value()
	}
	return t
}

func (a KeptArg) value() any {
	switch {
	case a.S != nil:
		return *a.S
	case a.I != nil:
		return int(*a.I)
	case a.F != nil:
		return *a.F
	case a.X != nil:
		return Exact{*a.X}
	case a.T != nil:
		return Time{a.T.UTC()}
	case a.D != nil:
		return *a.D
	case a.W != nil:
		return Word(*a.W)
	case a.P != nil:
		return ProbeWords(*a.P)
	case a.R != nil:
		return RecordedWords(*a.R)
	case a.N != nil:
		return a.N.Text()
	}
	return ""
}

// RecordedWords is the backend's own English as a record kept it without
// its coded form (a record written before records kept one): shown as it
// is; in Chinese marked as the system's record, so the reader knows why
// it is English.
type RecordedWords string

// FromRecord is a record's sentence: its kept form where the record has
// one, else its English as RecordedWords.
func FromRecord(en string, kept *Kept) Text {
	if kept != nil {
		return kept.Text()
	}
	if en == "" {
		return Text{}
	}
	return Text{Format: "%s", Args: []any{RecordedWords(en)}}
}

// Clone is a deep copy of k (nil for nil): a record's copy shares no
// memory with the record.
func (k *Kept) Clone() *Kept {
	if k == nil {
		return nil
	}
	c := &Kept{Format: k.Format}
	if k.Args != nil {
		c.Args = make([]KeptArg, len(k.Args))
		for i, a := range k.Args {
			c.Args[i] = KeptArg{S: dup(a.S), I: dup(a.I), F: dup(a.F), X: dup(a.X), T: dup(a.T), D: dup(a.D), W: dup(a.W), P: dup(a.P),
				R: dup(a.R), N: a.N.Clone()}
		}
	}
	return c
}

func dup[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
