package daydigest_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/functions/daydigest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

var day = time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)

// sample is a day of three batches: heartbeats alone, a check observation
// with every kind of check a judgement keeps (failures, a failed link
// watch, a figure, the inventory, usage, coded texts) and some it drops,
// and a batch reporting a drop and holding no observation.
func sample() *daydigest.Digest {
	num := func(f float64) *float64 { return &f }
	gpu := func(g int) *int { return &g }
	s := "gz-01"
	recv := day.Add(10 * time.Hour)
	cs := []events.Check{
		{Name: "gpu.xid", Category: events.CategoryGPULost, Verdict: events.Pass, GPU: gpu(0)},
		{Name: "gpu.ecc", Category: events.CategoryGPUDegraded, Verdict: events.Fail, GPU: gpu(1), Value: "3", Criterion: "0",
			ValueText: &msg.Coded{Key: "%d errors", Args: []msg.Arg{{N: num(3)}}}, DetailText: &msg.Coded{Key: "on %s", Args: []msg.Arg{{S: &s}, {T: &msg.Coded{Key: "x"}}}}},
		{Name: incident.LinkCheck, Category: events.CategoryConnectivity, Verdict: events.Fail, Detail: "lost"},
		{Name: "gpu.power", Category: events.CategoryPerformance, Verdict: events.Pass, GPU: gpu(0), Number: num(612.5), Unit: "W", UUID: "GPU-1"},
		{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Value: "8", Number: num(8), Unit: "GPUs"},
		{Name: "usage.boot", Category: events.CategoryHost, Verdict: events.Pass, Detail: "boot_id=b1&boot_time=1772294400", Number: num(3600.5)},
		{Name: "usage.disk.vda", Category: events.CategoryHost, Verdict: events.Pass, Detail: "size_bytes=107374182400&system=1&vendor=virtio"},
		{Name: "usage.net.eth0", Category: events.CategoryHost, Verdict: events.Pass, Detail: "physical=1&rx_bytes=1&tx_bytes=2&speed_mbps=100000&ifindex=2"},
	}
	bad := []events.Check{{Name: "usage.net.eth1", Category: events.CategoryHost, Verdict: events.Pass, Detail: "rx_bytes=x"}}
	judge := func(e events.Event) report.Judged {
		e.Type, e.Node, e.ReceivedAt = events.TypeObservation, "gz-01", recv
		var j report.Judged
		report.Judge(&e, nil, &j)
		j.Compact()
		return j
	}
	return &daydigest.Digest{Node: "gz-01", Day: day, Batches: []daydigest.Batch{
		{Seq: 7, ReceivedAt: recv, Obs: []report.Judged{judge(events.Event{At: recv.Add(-time.Minute), Kind: events.KindHeartbeat}),
			judge(events.Event{At: recv.Add(-30 * time.Second), Kind: events.KindHeartbeat})}},
		{Seq: 8, ReceivedAt: recv, Obs: []report.Judged{judge(events.Event{At: recv.Add(-time.Second), Kind: events.KindCheck, Checks: cs}),
			judge(events.Event{At: recv.Add(-time.Second), Kind: events.KindCheck, Checks: bad})}},
		{Seq: 9, ReceivedAt: recv.Add(time.Hour), Dropped: &wire.Drop{Batches: 2, FromSeq: 3, ToSeq: 4, Reason: "spool full"}},
	}}
}

// A digest reads back as it was written, judgement for judgement.
func TestDigestReadsBack(t *testing.T) {
	d := sample()
	if j, b := d.Batches[1].Obs[0], d.Batches[1].Obs[1]; !b.UsageBad || b.UsageErr == "" || len(j.Checks) != 4 || j.Verdicts[1].Ev < 0 || !j.Conn.Fail || len(j.Figures) != 1 || !j.UsageOK || len(j.Usage.Ifaces) != 1 || len(j.Inventory) != 1 {
		t.Fatalf("the sample's judgement is not what the test is for: %+v", j)
	}
	got, err := daydigest.Decode(daydigest.Append(nil, d), &batchform.Decoder{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("read back\n%+v\nwritten\n%+v", got, d)
	}
}

// A digest of another format or judge is ErrVersion; a damaged one — cut
// anywhere, or a byte changed — is an error or a digest that reads back
// as itself, never a panic.
func TestDamagedDigestIsRefused(t *testing.T) {
	p := daydigest.Append(nil, sample())
	for i := range len(p) {
		if _, err := daydigest.Decode(p[:i], nil); err == nil {
			t.Fatalf("cut at %d of %d: no error", i, len(p))
		}
	}
	other := append([]byte(nil), p...)
	other[3]++
	if _, err := daydigest.Decode(other, nil); !errors.Is(err, daydigest.ErrVersion) {
		t.Fatalf("another format: %v, want ErrVersion", err)
	}
	other = append([]byte(nil), p...)
	other[4] = report.JudgeVersion + 1
	if _, err := daydigest.Decode(other, nil); !errors.Is(err, daydigest.ErrVersion) {
		t.Fatalf("another judge: %v, want ErrVersion", err)
	}
	other = append([]byte("xdd"), p[3:]...)
	if _, err := daydigest.Decode(other, nil); err == nil || errors.Is(err, daydigest.ErrVersion) || !strings.Contains(err.Error(), "magic") {
		t.Fatalf("bad magic: %v", err)
	}
	for i := 5; i < len(p); i++ {
		q := append([]byte(nil), p...)
		q[i] ^= 0x5a
		roundTrips(t, q)
	}
}

// roundTrips holds a decoded digest to reading back as itself: written
// again, it reads back and writes the same bytes (compared as bytes, so a
// number that is no number — NaN — counts as itself).
func roundTrips(t *testing.T, p []byte) {
	d, err := daydigest.Decode(p, nil)
	if err != nil {
		return
	}
	once := daydigest.Append(nil, d)
	again, err := daydigest.Decode(once, nil)
	if err != nil {
		t.Fatalf("a digest read (%x) does not read back: %v", p, err)
	}
	if twice := daydigest.Append(nil, again); !bytes.Equal(once, twice) {
		t.Fatalf("a digest read (%x) reads back as another", p)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(daydigest.Append(nil, sample()))
	f.Add(daydigest.Append(nil, &daydigest.Digest{Node: "n", Day: day}))
	f.Fuzz(func(t *testing.T, p []byte) { roundTrips(t, p) })
}
