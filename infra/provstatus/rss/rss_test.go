package rss

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/provstatus/provstatustest"
)

func TestParseItems(t *testing.T) {
	data := provstatustest.Document(t, "history.rss")
	incs, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(incs) != 3 {
		t.Fatalf("%d items, want 3", len(incs))
	}
	a, b, c := incs[0], incs[1], incs[2]
	if a.ID != "tag:status.example-gpu.cloud,2005:Incident/p31zjtct2jer" || a.Title != "GPU instances unreachable in cn-east-2" ||
		!a.Start.Equal(time.Date(2026, 11, 30, 9, 52, 3, 0, time.UTC)) || !a.Updated.Equal(a.Start) || a.Resolved || !a.End.IsZero() ||
		a.Link != "https://status.example-gpu.cloud/incidents/p31zjtct2jer" || strings.Join(a.Components, "|") != "GPU Compute (cn-east-2)" {
		t.Fatalf("item 0 %+v", a)
	}
	// No guid: the link is the id; GMT is UTC.
	if b.ID != "https://status.example-gpu.cloud/incidents/k7q0c3pp9bnd" || !b.Start.Equal(time.Date(2026, 11, 12, 2, 14, 40, 0, time.UTC)) {
		t.Fatalf("item 1 %+v", b)
	}
	// No title: the description; no weekday, no seconds, EDT is -4.
	if c.ID != "console-2026-10-28" || c.Title != "Console login failures: logins work again." || !c.Start.Equal(time.Date(2026, 10, 28, 13, 0, 0, 0, time.UTC)) {
		t.Fatalf("item 2 %+v", c)
	}
}

func TestParseRefuses(t *testing.T) {
	good := provstatustest.Document(t, "history.rss")
	c := provstatustest.C
	cases := []provstatustest.Case{
		c("not xml", "<language>en-us</language>", "<language>en-us</langage>", 7, "", "not well-formed XML"),
		c("not rss", `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">`, `<html xmlns:atom="http://www.w3.org/2005/Atom">`, 2, "", "root is <html>"),
		c("old rss", `<rss version="2.0"`, `<rss version="0.91"`, 2, "rss.version", "only RSS 2.0"),
		c("no pubDate", "<pubDate>Thu, 12 Nov 2026 02:14:40 GMT</pubDate>", "", 18, "item[1].pubDate", "missing"),
		c("unknown zone", "Thu, 12 Nov 2026 02:14:40 GMT", "Thu, 12 Nov 2026 02:14:40 CET", 18, "item[1].pubDate", `zone "CET" is neither an offset`),
		c("offset out of range", "Thu, 12 Nov 2026 02:14:40 GMT", "Thu, 12 Nov 2026 02:14:40 +1900", 18, "item[1].pubDate", "no place uses"),
		c("two-digit year", "Thu, 12 Nov 2026 02:14:40 GMT", "Thu, 12 Nov 26 02:14:40 GMT", 18, "item[1].pubDate", "not four digits"),
		c("not a date", "Thu, 12 Nov 2026 02:14:40 GMT", "last Thursday", 18, "item[1].pubDate", "not an RFC 822 date"),
		c("bad day", "Thu, 12 Nov 2026 02:14:40 GMT", "Thu, 31 Nov 2026 02:14:40 GMT", 18, "item[1].pubDate", "out of range"),
		c("no id", "<link>https://status.example-gpu.cloud/incidents/k7q0c3pp9bnd</link>", "", 18, "item[1].guid", "nothing identifies"),
		c("no title", "<description>Console login failures: logins work again.</description>", "", 25, "item[2].title", "missing"),
		c("duplicate id", "<guid>console-2026-10-28</guid>", "<guid>tag:status.example-gpu.cloud,2005:Incident/p31zjtct2jer</guid>", 0, "incident 2", "also the id of incident 0"),
	}
	provstatustest.Refuses(t, "rss", good, Parse, cases)
}

func TestParseOversizedAndEmpty(t *testing.T) {
	if _, err := Parse([]byte(strings.Repeat(" ", provstatus.MaxBytes+1))); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized: %v", err)
	}
	if _, err := Parse([]byte("  ")); err == nil || !strings.Contains(err.Error(), "empty document") {
		t.Fatalf("empty: %v", err)
	}
	incs, err := Parse([]byte(`<rss version="2.0"><channel><title>quiet</title></channel></rss>`))
	if err != nil || len(incs) != 0 {
		t.Fatalf("a channel without items: %v %v", incs, err)
	}
}

func FuzzParse(f *testing.F) { provstatustest.Fuzz(f, "history.rss", Parse) }

// FuzzParseIn is FuzzParse in a Chinese provider's zone (zone names read
// by it first).
func FuzzParseIn(f *testing.F) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		f.Fatal(err)
	}
	provstatustest.Fuzz(f, "history.rss", func(data []byte) ([]provstatus.Incident, error) { return ParseIn(data, sh) })
}
