package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/probe/wire/wiretest"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
)

// The probe's sentences and the backend's catalog are one set: every
// sentence has its Chinese, and the catalog's part for the probe holds no
// key the probe does not send.
func TestProbeSentencesAreTheCatalogs(t *testing.T) {
	for _, s := range wire.Sentences {
		if !i18n.Translated(i18n.ZH, s) {
			t.Errorf("sentence %q has no Chinese in sla/i18n", s)
		}
	}
	for _, k := range i18n.ProbeSentences() {
		if !wire.Known(k) {
			t.Errorf("catalog entry %q is not one of the probe's sentences", k)
		}
	}
}

// Every sentence, rendered from its key with sample arguments: in English
// it is the probe's English byte for byte (so the en outputs stay as
// they were), and in Chinese it keeps the house style (zhstyle: no English
// word outside the allowed names, full-width punctuation, no space between
// Chinese and a number).
func TestEverySentenceInBothLanguages(t *testing.T) {
	en, zh := i18n.New(i18n.EN), i18n.New(i18n.ZH)
	for _, sm := range wiretest.Samples() {
		key, c, data := sm.Text.Key, sm.Text, sm.Data
		text, err := c.Text()
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		verbs, _ := msg.VerbsOf(key)
		var goArgs []any
		for i, a := range c.Args {
			switch {
			case a.N != nil && strings.ContainsRune("dxXob", verbs[i]):
				goArgs = append(goArgs, int(*a.N))
			case a.N != nil:
				goArgs = append(goArgs, *a.N)
			default:
				goArgs = append(goArgs, *a.S)
			}
		}
		if got := en.Text(text); got != c.String() {
			t.Errorf("%q in English: %q, the probe sends %q", key, got, c.String())
		}
		if want := fmt.Sprintf(key, goArgs...); c.String() != want {
			t.Errorf("%q: coded %q, fmt %q", key, c.String(), want)
		}
		got := zh.Text(text)
		for _, f := range zhstyle.Check(got, data...) {
			t.Errorf("%q in Chinese: %q: %s", key, got, f)
		}
	}
	if m := zh.Missing(); len(m) > 0 {
		t.Errorf("missing Chinese: %q", m)
	}
}
