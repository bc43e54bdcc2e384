package app_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// bodyKeeper keeps the bodies a simulated month writes.
type bodyKeeper struct{ bodies [][]byte }

func (k *bodyKeeper) CreateNode(context.Context, store.Node) error                    { return nil }
func (k *bodyKeeper) PutState(context.Context, store.NodeState, int64) (int64, error) { return 1, nil }
func (k *bodyKeeper) PutRun(context.Context, store.HeartbeatRun) error                { return nil }
func (k *bodyKeeper) PutMaintenance(context.Context, store.Maintenance) error         { return nil }
func (k *bodyKeeper) PutBatch(_ context.Context, b store.BatchRecord) error {
	k.bodies = append(k.bodies, b.Body)
	return nil
}

// ReadStored gives what wire.Decode gives of a record's body, whether it
// reads the record's form (what ingest writes now) or, on a record written
// before forms, the body itself: a month of bodies, and bodies spelled
// every way JSON allows (keys in another case, repeated keys, unknown
// fields, escapes, numbers in every form, nulls), times in UTC as the
// books read them. A body Decode refuses is refused with Decode's words;
// a form that is damaged, or holds a batch Validate refuses, is refused.
func TestReadStoredIsDecode(t *testing.T) {
	var k bodyKeeper
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if _, err := fleetsim.Write(t.Context(), &k, fleetsim.Config{Nodes: 11, Prefix: "gz-", Contract: "cn-example", Loc: sh,
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, sh), Months: 1, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	head := `{"v":1,"id":"b","node":"gz-1","probe":"p","seq":2,"prev":"` + strings.Repeat("a", 64) + `","created_at":"2026-03-01T00:00:00Z",`
	odd := []string{
		head + `"observations":[{"at":"2026-03-01T00:00:00.123456789+08:00","kind":"check","checks":[{"name":"gpu.burn.fp32","category":"performance_below_spec","verdict":"pass","number":5.1e1,"gpu":3,"unit":"TFLOP/s"}]}]}`,
		head + `"Observations":[{"AT":"2026-03-01T00:00:00Z","Kind":"heartbeat"}],"observations":[{"at":"2026-03-01T00:00:01Z","kind":"heartbeat"}]}`,
		head + `"extra":{"deep":[1,{"x":null}]},"observations":[{"at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"n\u00e9\u0026\ud83d\ude00","category":"host","verdict":"pass","detail":"a\nb\t\"c\"","number":-0,"gpu":null}]}]}`,
		head + `"observations":[{"at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"x","category":"host","verdict":"pass","number":1.0000000000000002},{"name":"y","category":"host","verdict":"pass","number":5e-324},{"name":"z","category":"host","verdict":"pass","number":1.7976931348623157e308}]}]}`,
		head + `"observations":[{"at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"inventory","verdict":"pass","criterion":"8 (ordered)","criterion_text":{"key":"%d (ordered)","args":[8]}}]}]}`,
		head + `"clock_skew_ms":-1500,"dropped":{"batches":3,"from_seq":1,"to_seq":3,"reason":"full"},"observations":[]}`,
		head + `"observations":null}`,
		head + `"observations":[{"at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"x","category":"host","verdict":"pass","number":"7"}]}]}`,
		head + `"observations":[{"at":"not a time","kind":"heartbeat"}]}`,
		head + `"observations":[{"at":"2026-03-01T00:00:00Z","kind":"nap"}]}`,
		head + `"observations":[{"at":"2026-03-01T00:00:00Z","kind":"check","checks":[{"name":"\ud800","category":"host","verdict":"pass"}]}]}`,
		head + `"seq":18446744073709551616,"observations":[]}`,
		head + `"observations":[`,
		`{"v":2}`, `[]`, `null`, ``,
	}
	bodies := append(k.bodies, nil)
	for _, o := range odd {
		bodies = append(bodies, []byte(o))
	}
	for i, body := range bodies {
		want, werr := wire.Decode(body)
		got, gerr := app.ReadStored(&store.BatchRecord{Body: body})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("body %d %.200s: Decode error %v, ReadStored error %v", i, body, werr, gerr)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("body %d %.300s:\nDecode     %+v\nReadStored %+v", i, body, want, got)
		}
		if werr != nil {
			continue
		}
		fromForm, err := app.ReadStored(&store.BatchRecord{Body: body, Form: batchform.Append(nil, want)})
		if err != nil {
			t.Fatalf("body %d: its form: %v", i, err)
		}
		if w := inUTC(want); !reflect.DeepEqual(w, fromForm) {
			t.Fatalf("body %d %.300s:\nDecode %+v\nform   %+v", i, body, w, fromForm)
		}
	}
	bad := *must1(t)(wire.Decode(k.bodies[0]))
	bad.Observations = append(bad.Observations, wire.Observation{At: bad.CreatedAt, Kind: "nap"})
	if _, err := app.ReadStored(&store.BatchRecord{Body: k.bodies[0], Form: batchform.Append(nil, &bad)}); err == nil ||
		!strings.Contains(err.Error(), "observations[") || !strings.Contains(err.Error(), ".kind") {
		t.Fatalf("a form Validate refuses: %v", err)
	}
	form := batchform.Append(nil, &bad)
	if _, err := app.ReadStored(&store.BatchRecord{Body: k.bodies[0], Form: form[:len(form)-3]}); err == nil || !strings.Contains(err.Error(), "batch form") {
		t.Fatalf("a damaged form: %v", err)
	}
	if len(k.bodies) < 9000 {
		t.Fatalf("only %d bodies", len(k.bodies))
	}
}

func must1(t *testing.T) func(*wire.Batch, error) *wire.Batch {
	return func(b *wire.Batch, err error) *wire.Batch {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// inUTC is b with its times in UTC, as a form gives them.
func inUTC(b *wire.Batch) *wire.Batch {
	c := *b
	c.CreatedAt = c.CreatedAt.UTC()
	c.Observations = slices.Clone(b.Observations)
	for i := range c.Observations {
		c.Observations[i].At = c.Observations[i].At.UTC()
	}
	return &c
}
