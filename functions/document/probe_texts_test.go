package document

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/probe/wire/wiretest"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/trial"
)

// Every sentence of the probe's, as the value, criterion and detail of a
// failing check that opens an incident, reads in a zh contract's monthly
// report (the incident's evidence) by the house style, and in the en
// report as the probe's English.
func TestProbeSentencesInTheReport(t *testing.T) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	l := documenttest.ClaimMonth()
	samples := wiretest.Samples()
	var data []string
	at := documenttest.Local(ny, "2026-11-22 00:00")
	for i := range samples {
		s := &samples[i]
		c := s.Text
		name := fmt.Sprintf("gpu.s%03d", i)
		for k, v := range []string{"fail", "fail", "fail", "pass", "pass", "pass"} {
			ck := events.Check{Name: name, Category: events.CategoryGPUDegraded, Verdict: v}
			if v == "fail" {
				ck.Value, ck.ValueText, ck.Criterion, ck.CriterionText, ck.Detail, ck.DetailText = s.En, &c, s.En, &c, s.En, &c
			}
			when := at.Add(time.Duration(6*i+k) * time.Minute)
			l.Observation("va-02", when, when.Add(time.Second), events.KindCheck, ck)
		}
		data = append(data, s.Data...)
	}
	r := buildReport(t, tm, report.Options{Year: 2026, Month: time.November, AsOf: documenttest.ClaimAsOf}, "probe-texts", l.Events)
	for _, lang := range i18n.Langs {
		var buf bytes.Buffer
		if err := Render(&buf, r, "md", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		md := buf.String()
		for i, s := range samples {
			name := fmt.Sprintf("gpu.s%03d", i)
			line := lineWith(md, name+" ")
			if line == "" {
				line = lineWith(md, name+"（")
			}
			if line == "" {
				t.Errorf("%s: no evidence line for %s", lang, name)
				continue
			}
			if lang == i18n.EN {
				if want := mdInline(name + " fail: " + s.En + " (want " + s.En + ") — " + s.En); !strings.Contains(line, want) {
					t.Errorf("en: %q not in %q", want, line)
				}
				continue
			}
			cell := line[strings.Index(line, name):]
			cell = cell[:strings.Index(cell, " |")]
			for _, f := range zhstyle.Check(cell, append(data, name)...) {
				t.Errorf("zh, %q: %s", s.Text.Key, f)
			}
		}
	}
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// Every sentence of the probe's, as the detail of an iperf run that gave
// no figure, is the trial page's detail of the iperf row (sla/trial): in
// Chinese by the house style, in English the probe's own.
func TestProbeSentencesInTrialRows(t *testing.T) {
	for _, s := range wiretest.Samples() {
		c := s.Text
		n := trial.Node{Model: "H200", GPUs: 8, Results: []trial.Result{{Name: "net.iperf3.peer", Category: "network_degraded", Verdict: "fail",
			Detail: s.En, DetailText: &c, At: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}}}
		var row *trial.Row
		for _, r := range trial.Judge(n) {
			if r.Key == trial.KeyIperf {
				row = &r
			}
		}
		if row == nil || row.DetailText.IsZero() {
			t.Fatalf("%q: no iperf row with the run's detail", c.Key)
		}
		if got := i18n.New(i18n.EN).Text(row.DetailText); got != s.En {
			t.Errorf("en: %q, the probe sent %q", got, s.En)
		}
		zh := i18n.New(i18n.ZH)
		got := zh.Text(row.DetailText)
		for _, f := range zhstyle.Check(got, s.Data...) {
			t.Errorf("zh, %q: %q: %s", c.Key, got, f)
		}
		if m := zh.Missing(); len(m) > 0 {
			t.Errorf("zh: not in the catalog: %q", m)
		}
	}
}
