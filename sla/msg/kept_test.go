package msg

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A kept sentence reads back to the same sentence and the same English
// through its JSON; a zero one is not kept; an argument a record cannot
// hold is named, and nothing is kept.
func TestKeepRoundTrips(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	why := New("no data from the node since %s (heartbeat every %s, grace %s; %d, %.4g, %s, %s%s)", At(at, time.UTC), 30*time.Second,
		90*time.Second, 0, 2.5, Word("no_data"), Plain(""), New("%s / %s", ProbeWords("fell off"), RecordedWords("kept")))
	k, err := Keep(why)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	var back Kept
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Text(); got.String() != why.String() || !reflect.DeepEqual(got, why) {
		t.Fatalf("read back %#v\nwant %#v", got, why)
	}
	if k, err := Keep(Text{}); k != nil || err != nil {
		t.Fatalf("a zero sentence kept as %+v, %v", k, err)
	}
	_, err = Keep(New("%s at %s", Plain("x"), New("%v", []string{"a"})))
	if err == nil || !strings.Contains(err.Error(), "argument 1: a []string") {
		t.Fatalf("an argument a record cannot hold: %v", err)
	}
	// A time in another zone would read back in UTC: refused, not changed.
	if _, err := Keep(New("since %s", At(at, time.FixedZone("x", 3600)))); err == nil {
		t.Fatal("a sentence whose English a record would change was kept")
	}
	if got := FromRecord("as stored", nil); got.String() != "as stored" || got.Args[0] != RecordedWords("as stored") {
		t.Fatalf("FromRecord without a kept form: %#v", got)
	}
	if !FromRecord("", nil).IsZero() {
		t.Fatal("FromRecord of nothing is not empty")
	}
}
