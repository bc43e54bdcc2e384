package msg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Coded is a sentence as it travels between programs and is kept in
// records: Key is its English fmt format (the catalog key), Args its
// arguments as JSON values. The probe sends its check texts so beside
// their English, and the backend translates them (Text); a Coded's English
// (String) is the probe's English byte for byte.
type Coded struct {
	Key  string `json:"key"`
	Args []Arg  `json:"args,omitempty"`
}

// Arg is one argument of a Coded: a string (data, shown as it is in every
// language: a path, a host, an error the system gave), a number, or a
// nested sentence. Its JSON is the bare value: "gz-01", 8, {"key":…}.
type Arg struct {
	S *string
	N *float64
	T *Coded
}

// MaxCodedArgs bounds a Coded's arguments (the probe's sentences take at
// most 9); MaxCodedDepth bounds sentences nested in sentences (the
// probe's go 5 deep: a stress power value and its notes).
const (
	MaxCodedArgs  = 12
	MaxCodedDepth = 6
)

// Code builds a Coded from Go values: strings, integers, floats, errors
// and Stringers (as their text), and Coded (nested).
func Code(key string, args ...any) Coded {
	c := Coded{Key: key}
	for _, a := range args {
		c.Args = append(c.Args, argOf(a))
	}
	return c
}

func argOf(a any) Arg {
	num := func(f float64) Arg { return Arg{N: &f} }
	str := func(s string) Arg { return Arg{S: &s} }
	switch v := a.(type) {
	case string:
		return str(v)
	case Coded:
		return Arg{T: &v}
	case *Coded:
		return Arg{T: v}
	case int:
		return num(float64(v))
	case int64:
		return num(float64(v))
	case int32:
		return num(float64(v))
	case uint:
		return num(float64(v))
	case uint64:
		return num(float64(v))
	case uint32:
		return num(float64(v))
	case uint16:
		return num(float64(v))
	case float64:
		return num(v)
	case float32:
		return num(float64(v))
	case error:
		return str(v.Error())
	case fmt.Stringer:
		return str(v.String())
	}
	return str(fmt.Sprint(a))
}

// MarshalJSON writes the bare value.
func (a Arg) MarshalJSON() ([]byte, error) {
	switch {
	case a.S != nil:
		return json.Marshal(*a.S)
	case a.N != nil:
		return json.Marshal(*a.N)
	case a.T != nil:
		return json.Marshal(a.T)
	}
	return nil, errors.New("an argument with no value")
}

// UnmarshalJSON reads a string, a number or a sentence.
func (a *Arg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*a = Arg{}
	switch {
	case len(b) > 0 && b[0] == '"':
		a.S = new(string)
		return json.Unmarshal(b, a.S)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		a.N = new(float64)
		return json.Unmarshal(b, a.N)
	case len(b) > 0 && b[0] == '{':
		a.T = new(Coded)
		return json.Unmarshal(b, a.T)
	}
	return fmt.Errorf("an argument is a string, a number or a sentence, not %.20s", b)
}

// verbs are the fmt verbs of format in order: 'd', 's', 'g', …; an error
// for a format this package does not carry (explicit argument indexes,
// '*' widths, a trailing '%').
func verbs(format string) ([]rune, error) {
	var out []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			return nil, errors.New("the format ends in the middle of a verb")
		}
		switch v := format[i]; {
		case v == '%':
			continue
		case v == '*' || v == '[':
			return nil, errors.New("the format takes computed widths or argument indexes")
		default:
			out = append(out, rune(v))
		}
	}
	return out, nil
}

// Verbs counts the arguments format takes; an error for a format a Coded
// cannot carry.
func Verbs(format string) (int, error) {
	v, err := verbs(format)
	return len(v), err
}

// VerbsOf are the verbs of format in order ('d', 's', 'g', …).
func VerbsOf(format string) ([]rune, error) { return verbs(format) }

// Text is c as a sentence to translate, each argument typed by its verb in
// Key: an integer verb (%d %x %X %o %b %c) takes a whole number, a float
// verb (%e %f %g) a number, %s %q %v a string or a sentence. Numbers are
// Exact: every language shows the digits the sender wrote. The error names
// the argument that does not fit, or says how many were wanted.
func (c Coded) Text() (Text, error) {
	return c.text(0)
}

func (c Coded) text(depth int) (Text, error) {
	if depth >= MaxCodedDepth {
		return Text{}, fmt.Errorf("sentences nested more than %d deep", MaxCodedDepth)
	}
	vs, err := verbs(c.Key)
	switch {
	case err != nil:
		return Text{}, fmt.Errorf("key: %w", err)
	case len(c.Args) > MaxCodedArgs:
		return Text{}, fmt.Errorf("args: %d is over the limit of %d", len(c.Args), MaxCodedArgs)
	case len(vs) != len(c.Args):
		return Text{}, fmt.Errorf("args: %d, the key takes %d", len(c.Args), len(vs))
	}
	t := Text{Format: c.Key}
	for i, a := range c.Args {
		v, err := a.value(vs[i], depth)
		if err != nil {
			return Text{}, fmt.Errorf("args[%d]: %w", i, err)
		}
		t.Args = append(t.Args, v)
	}
	return t, nil
}

// value is a as the argument of verb.
func (a Arg) value(verb rune, depth int) (any, error) {
	switch {
	case strings.ContainsRune("dxXobc", verb):
		if a.N == nil || *a.N != math.Trunc(*a.N) || math.Abs(*a.N) > 1<<53 {
			return nil, fmt.Errorf("%%%c takes a whole number", verb)
		}
		return Exact{int64(*a.N)}, nil
	case strings.ContainsRune("eEfFgG", verb):
		if a.N == nil {
			return nil, fmt.Errorf("%%%c takes a number", verb)
		}
		return Exact{*a.N}, nil
	case strings.ContainsRune("sqv", verb):
		if a.S != nil {
			return *a.S, nil
		}
		if a.T != nil {
			return a.T.text(depth + 1)
		}
		return nil, fmt.Errorf("%%%c takes a string or a sentence", verb)
	}
	return nil, fmt.Errorf("%%%c is not a verb a sentence carries", verb)
}

// String is c's English, as the sender wrote it; a Coded that does not
// fit its key reads as fmt shows a mismatch.
func (c Coded) String() string {
	t, err := c.Text()
	if err != nil {
		return fmt.Sprintf("%s (%v)", c.Key, err)
	}
	return t.String()
}

// Exact is a number shown as fmt formats it, in every language: a reading
// keeps the digits its sender wrote (no grouping, the sender's decimals).
type Exact struct{ V any }

// Format formats V with the verb and flags given.
func (e Exact) Format(f fmt.State, verb rune) { fmt.Fprintf(f, fmt.FormatString(f, verb), e.V) }

// ProbeWords is a probe's English text that came without its coded form (a
// probe older than the coded texts, a record stored before them, a text the
// probe sends as data): shown as it is; in Chinese marked as the probe's
// own words where it holds words, so the reader knows why it is English.
type ProbeWords string

// FromProbe is one of a probe check's sentences (a criterion, a detail): its
// coded form where the probe sent one that fits its key, else its English
// as ProbeWords.
func FromProbe(en string, coded *Coded) Text {
	if coded != nil {
		if t, err := coded.Text(); err == nil {
			return t
		}
	}
	return Text{Format: "%s", Args: []any{ProbeWords(en)}}
}
