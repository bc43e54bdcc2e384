package wire

import (
	"fmt"

	"github.com/gpusla/gpusla/sla/msg"
)

// Text is one of the probe's sentences with its arguments: Key is its
// English fmt format, one of Sentences; Args are strings (data: a path, an
// address, an error the system gave), numbers, or nested sentences. Its
// JSON: {"key": "%d usable GPUs, the order says %d", "args": [1, 8]}.
type Text = msg.Coded

// Arg is one argument of a Text: a string, a number or a nested Text.
type Arg = msg.Arg

// Say is a sentence of the probe's: its English, and its coded form for
// the backend to translate. args are strings, integers, floats, errors or
// nested Texts (T). Where key (or a nested one) is not one of Sentences
// yet, or the coded form would not read back as the same English (an
// argument fmt prints otherwise, such as a float32), the English alone is
// sent: a test lists every key of the probe's that is not a sentence.
func Say(key string, args ...any) (string, *Text) {
	en := fmt.Sprintf(key, args...)
	t := msg.Code(key, args...)
	if t.String() != en || knownKeys(&t, 0) != nil {
		return en, nil
	}
	return en, &t
}

// T is a sentence nested in another's arguments (Say("…: %s", T(…))).
func T(key string, args ...any) Text { return msg.Code(key, args...) }

// known is Sentences as a set.
var known = func() map[string]bool {
	m := make(map[string]bool, len(Sentences))
	for _, s := range Sentences {
		if m[s] {
			panic(fmt.Sprintf("wire: sentence %q listed twice", s))
		}
		if _, err := msg.Verbs(s); err != nil {
			panic(fmt.Sprintf("wire: sentence %q: %v", s, err))
		}
		m[s] = true
	}
	return m
}()

// Known reports whether key is one of the probe's sentences.
func Known(key string) bool { return known[key] }

// text is one of a check's texts: its English, its coded form, its field
// name and bound.
type text struct {
	name  string
	en    *string
	coded **Text
	max   int
}

func (c *Check) texts() []text {
	return []text{{"value", &c.Value, &c.ValueText, MaxValueBytes}, {"criterion", &c.Criterion, &c.CriterionText, MaxValueBytes},
		{"detail", &c.Detail, &c.DetailText, MaxDetailBytes}}
}

// CodeCheck gives each of c's texts that has no coded form one where its
// English is a sentence of the probe's with no argument ("at least one
// GPU", "recorded").
func CodeCheck(c *Check) {
	for _, f := range c.texts() {
		if *f.coded == nil && *f.en != "" && known[*f.en] {
			if n, _ := msg.Verbs(*f.en); n == 0 {
				*f.coded = &Text{Key: *f.en}
			}
		}
	}
}

// checkTexts refuses a coded text whose key is not one of Sentences (at
// any depth), whose arguments do not fit the key, or whose English is not
// the field's: the translation a renter reads must say what the signed
// English says.
func checkTexts(at checkAt, c *Check) error {
	for _, f := range c.texts() {
		t := *f.coded
		if t == nil {
			continue
		}
		field := func() string { return at.field() + "." + f.name + "_text" }
		if err := knownKeys(t, 0); err != nil {
			return &FieldError{Field: field(), Msg: err.Error()}
		}
		mt, err := t.Text()
		if err != nil {
			return &FieldError{Field: field(), Msg: err.Error()}
		}
		if en := mt.String(); en != *f.en {
			return &FieldError{Field: field(), Msg: fmt.Sprintf("reads %q, but the %s is %q", clip(en, 80), f.name, clip(*f.en, 80))}
		}
	}
	return nil
}

// knownKeys refuses a key, or a nested sentence's key, that is not one of
// Sentences.
func knownKeys(t *Text, depth int) error {
	if depth >= msg.MaxCodedDepth {
		return fmt.Errorf("sentences nested more than %d deep", msg.MaxCodedDepth)
	}
	if !known[t.Key] {
		return fmt.Errorf("key %q is not one of the probe's sentences", clip(t.Key, 80))
	}
	for _, a := range t.Args {
		if a.T != nil {
			if err := knownKeys(a.T, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetValue sets c's value to a sentence of the probe's (Say).
func (c *Check) SetValue(key string, args ...any) { c.Value, c.ValueText = Say(key, args...) }

// SetCriterion sets c's criterion to a sentence of the probe's (Say).
func (c *Check) SetCriterion(key string, args ...any) {
	c.Criterion, c.CriterionText = Say(key, args...)
}

// SetDetail sets c's detail to a sentence of the probe's (Say).
func (c *Check) SetDetail(key string, args ...any) { c.Detail, c.DetailText = Say(key, args...) }

// Put is t's English and t itself, for a text built before it is set
// (Check.Detail, Check.DetailText = Put(t)).
func Put(t Text) (string, *Text) {
	en := t.String()
	if knownKeys(&t, 0) != nil {
		return en, nil
	}
	return en, &t
}

// Join is parts joined with "; ", a sentence in every language (the
// catalog's separator); the zero Text for none.
func Join(parts []Text) Text {
	var t Text
	for i, p := range parts {
		if i == 0 {
			t = p
			continue
		}
		t = T("%s; %s", t, p)
	}
	return t
}
