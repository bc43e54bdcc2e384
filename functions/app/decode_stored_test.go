package app_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
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

// DecodeStored gives what wire.Decode gives on every body Decode accepts —
// the only bodies the store holds, for ingest keeps only what Decode
// accepted: a month of them, and bodies spelled every way JSON allows (keys
// in another case, repeated keys, unknown fields, escapes, numbers in every
// form, nulls). Of the bodies Decode refuses it refuses those damaged in
// the ways checked here too, with Decode's words where the text or the
// JSON is wrong (a number out of range it reads wrapped; Validate then
// names the field).
func TestDecodeStoredIsDecode(t *testing.T) {
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
		got, gerr := app.DecodeStored(body)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("body %d %.200s: Decode error %v, DecodeStored error %v", i, body, werr, gerr)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("body %d %.300s:\nDecode       %+v\nDecodeStored %+v", i, body, want, got)
		}
	}
	if len(k.bodies) < 9000 {
		t.Fatalf("only %d bodies", len(k.bodies))
	}
}
