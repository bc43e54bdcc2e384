package atom

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/provstatus/provstatustest"
)

func TestParseEntries(t *testing.T) {
	data := provstatustest.Document(t, "history.atom")
	incs, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(incs) != 3 {
		t.Fatalf("%d entries, want 3", len(incs))
	}
	a, b, c := incs[0], incs[1], incs[2]
	if a.ID != "tag:status.example-gpu.cloud,2005:Incident/p31zjtct2jer" || !a.Start.Equal(time.Date(2026, 11, 30, 9, 52, 3, 0, time.UTC)) ||
		!a.Updated.Equal(time.Date(2026, 11, 30, 10, 5, 11, 0, time.UTC)) || a.Resolved || !a.End.IsZero() ||
		a.Link != "https://status.example-gpu.cloud/incidents/p31zjtct2jer" || strings.Join(a.Components, "|") != "GPU Compute (cn-east-2)" {
		t.Fatalf("entry 0 %+v", a)
	}
	if b.Link != "https://status.example-gpu.cloud/incidents/k7q0c3pp9bnd" || strings.Join(b.Components, "|") != "Public Network" ||
		!b.Updated.Equal(time.Date(2026, 11, 12, 4, 2, 17, 0, time.UTC)) {
		t.Fatalf("entry 1 %+v", b)
	}
	// No published: updated is all there is.
	if !c.Start.Equal(time.Date(2026, 10, 28, 13, 47, 30, 0, time.UTC)) || !c.Updated.Equal(c.Start) || c.Link != "" {
		t.Fatalf("entry 2 %+v", c)
	}
}

func TestParseRefuses(t *testing.T) {
	good := provstatustest.Document(t, "history.atom")
	c := provstatustest.C
	cases := []provstatustest.Case{
		c("not xml", "<name>Example GPU Cloud</name>", "<name>Example & GPU Cloud</name>", 9, "", "not well-formed XML"),
		c("no atom namespace", `<feed xml:lang="en-US" xmlns="http://www.w3.org/2005/Atom">`, `<feed xml:lang="en-US">`, 2, "", "root is <feed>"),
		c("rss, not atom", `<feed xml:lang="en-US" xmlns="http://www.w3.org/2005/Atom">`, `<rss version="2.0">`, 2, "", "root is <rss>"),
		c("no id", "<id>tag:status.example-gpu.cloud,2005:Incident/b0rj4q2xw8yt</id>", "", 29, "entry[2].id", "missing"),
		c("no updated", "<updated>2026-10-28T09:47:30-04:00</updated>", "", 29, "entry[2].updated", "RFC 4287 requires it"),
		c("no title", "<title>Console login failures</title>", "", 29, "entry[2].title", "missing"),
		c("no zone", "<updated>2026-10-28T09:47:30-04:00</updated>", "<updated>2026-10-28T09:47:30</updated>", 29, "entry[2].updated", "has no time zone"),
		c("impossible zone", "<published>2026-11-12T02:14:40Z</published>", "<published>2026-11-12T02:14:40-13:00</published>", 20, "entry[1].published", "no place uses"),
		c("published after updated", "<published>2026-11-12T02:14:40Z</published>", "<published>2026-11-12T05:00:00Z</published>", 20, "entry[1].published", "after updated"),
	}
	provstatustest.Refuses(t, "atom", good, Parse, cases)
}

func TestParseOversized(t *testing.T) {
	doc := `<feed xmlns="http://www.w3.org/2005/Atom">` + strings.Repeat("<!-- pad -->", provstatus.MaxBytes/12+1) + `</feed>`
	if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized: %v", err)
	}
}

func FuzzParse(f *testing.F) { provstatustest.Fuzz(f, "history.atom", Parse) }
