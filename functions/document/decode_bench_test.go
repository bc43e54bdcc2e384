package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
	"unicode/utf8"

	goccy "github.com/goccy/go-json"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/internal/cputime"
	"github.com/gpusla/gpusla/sla/events"
)

// BenchmarkDecodeMonth100NodesRuns decodes the 100-node month in the
// backend's form (documenttest.FleetRuns: 297,900 lines, 123 MB) line by
// line on one goroutine, each line checked as strictly as the log is read
// (unknown members refused, then Event.Validate): MB/s and allocations of
// the event log's decoder (events.Reader: encoding/json/v2's semantics)
// against the peers on the same lines in the same run — goccy/go-json's
// strict decoder and encoding/json, each with the UTF-8 check it needs.
// Neither peer refuses a member given twice, which the log's decoder does.
func BenchmarkDecodeMonth100NodesRuns(b *testing.B) {
	var log bytes.Buffer
	if err := documenttest.FleetRuns(100, 2026, time.March).WriteLog(&log); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n"))
	run := func(b *testing.B, decode func(line []byte, e *events.Event) error) {
		b.SetBytes(int64(log.Len()))
		b.ReportAllocs()
		defer cpuRate(b, log.Len())()
		for b.Loop() {
			var e events.Event
			for _, l := range lines {
				e = events.Event{}
				if err := decode(l, &e); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(lines)), "lines")
	}
	b.Run("events.Reader", func(b *testing.B) {
		b.SetBytes(int64(log.Len()))
		b.ReportAllocs()
		defer cpuRate(b, log.Len())()
		for b.Loop() {
			r := events.NewReader("month", bytes.NewReader(log.Bytes()))
			var e events.Event
			for {
				err := r.Next(&e)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(lines)), "lines")
	})
	b.Run("goccy-strict", func(b *testing.B) {
		var br bytes.Reader
		run(b, func(l []byte, e *events.Event) error {
			// goccy refuses unknown members only in its stream decoder,
			// and needs the UTF-8 check before it (a long invalid key
			// made it index out of its buffer).
			if !utf8.Valid(l) {
				return errors.New("invalid UTF-8")
			}
			br.Reset(l)
			dec := goccy.NewDecoder(&br)
			dec.DisallowUnknownFields()
			if err := dec.Decode(e); err != nil {
				return err
			}
			return e.Validate()
		})
	})
	b.Run("encoding-json", func(b *testing.B) {
		var br bytes.Reader
		run(b, func(l []byte, e *events.Event) error {
			if !utf8.Valid(l) {
				return errors.New("invalid UTF-8")
			}
			br.Reset(l)
			dec := json.NewDecoder(&br)
			dec.DisallowUnknownFields()
			if err := dec.Decode(e); err != nil {
				return err
			}
			return e.Validate()
		})
	})
}

// cpuRate, deferred around a benchmark's loop, reports the process's CPU
// time per op and the MB decoded per CPU-second: the figures to quote when
// a shared machine disturbs wall time (on one P the decoder and its garbage
// collection are nearly all of the process's CPU).
func cpuRate(b *testing.B, size int) func() {
	cpu0 := cputime.Total()
	return func() {
		if cpu := cputime.Total() - cpu0; cpu > 0 && b.N > 0 {
			per := cpu.Seconds() / float64(b.N)
			b.ReportMetric(per, "cpu-s/op")
			b.ReportMetric(float64(size)/1e6/per, "MB/cpu-s")
		}
	}
}
