package terms

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/sla/calendar"
)

// withSources is the minimal contract with one primary and one secondary
// source, each on its own lines so errors can name them.
const withSources = minimal + `sources:
  - terms: [uptime.target, claim]
    url: https://aws.amazon.com/compute/sla/
    read: 2026-11-30
    quote: "AWS will use commercially reasonable efforts to make Amazon EC2 available for each AWS region with a Monthly Uptime Percentage of at least 99.99%"
  - terms: [uptime.tiers, uptime.target]
    url: https://sla.directory/vendors/aws/
    read: 2026-11-29
    quote: "10% below 99.5%"
    secondary: true
`

func TestSources(t *testing.T) {
	ts, err := Parse("s.yaml", []byte(withSources))
	if err != nil {
		t.Fatal(err)
	}
	x := ts[0]
	if len(x.Sources) != 2 {
		t.Fatalf("sources %+v", x.Sources)
	}
	s := x.Sources[1]
	if !s.Secondary || s.Read != (calendar.Date{Year: 2026, Month: 11, Day: 29}) || s.Line != 21 || s.URL != "https://sla.directory/vendors/aws/" {
		t.Fatalf("second source %+v", s)
	}
	// uptime.target has a primary source besides the secondary one; the
	// tiers (and a tier inside them) only the secondary one; billing none.
	if !x.Verified("uptime.target") || !x.Verified("claim.within_days") || x.Verified("uptime.tiers[0].credit") || x.Verified("billing") {
		t.Fatalf("verified: target %v claim %v tiers %v", x.Verified("uptime.target"), x.Verified("claim.within_days"), x.Verified("uptime.tiers[0].credit"))
	}
	if got := strings.Join(x.Unverified(), ","); got != "uptime.tiers" {
		t.Fatalf("unverified %q, want uptime.tiers", got)
	}
	// A source may back one entry of a list.
	one := strings.Replace(withSources, "terms: [uptime.tiers, uptime.target]", `terms: ["uptime.tiers[1].credit"]`, 1)
	if ts, err = Parse("s.yaml", []byte(one)); err != nil {
		t.Fatal(err)
	}
	// The tiers as a whole have no source now, the one entry only a
	// secondary one.
	if got := strings.Join(ts[0].Unverified(), ","); got != "uptime.tiers,uptime.tiers[1].credit" {
		t.Fatalf("unverified %q", got)
	}
	// A figure the file gives that no source backs is unverified too.
	bare := strings.Replace(withSources, "terms: [uptime.target, claim]", "terms: [uptime.target]", 1)
	if ts, err = Parse("s.yaml", []byte(bare)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ts[0].Unverified(), ","); got != "claim,uptime.tiers" {
		t.Fatalf("unverified %q, want claim,uptime.tiers", got)
	}
	// "sources: []" says no published text was found: every figure is
	// unverified.
	if ts, err = Parse("e.yaml", []byte(minimal+"sources: []\n")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ts[0].Unverified(), ","); got != "claim,uptime.target,uptime.tiers" {
		t.Fatalf("sources: [] unverified %q", got)
	}
	// A contract citing no sources is its own source.
	if ts, err = Parse("m.yaml", []byte(minimal)); err != nil || ts[0].Unverified() != nil {
		t.Fatalf("no sources: %v %v", ts[0].Unverified(), err)
	}
}

func TestSourceErrorsNameFileLineField(t *testing.T) {
	checkErrors(t, withSources, []errCase{
		{"unknown source key", "    secondary: true", "    secondary: true\n    mirror: x", 26, "sources[1].mirror", "unknown field"},
		{"not a field", "terms: [uptime.target, claim]", "terms: [uptime.target, uptime.minimum_outage]", 17, "sources[0].terms[1]", `"uptime.minimum_outage" is not a field of this contract`},
		{"no such index", "terms: [uptime.tiers, uptime.target]", `terms: ["uptime.tiers[2]", uptime.target]`, 21, "sources[1].terms[0]", "not a field"},
		{"no terms", "terms: [uptime.target, claim]", "terms: []", 17, "sources[0].terms", "names no term"},
		{"http", "https://aws.amazon.com", "http://aws.amazon.com", 18, "sources[0].url", "not an https address"},
		{"no host", "https://aws.amazon.com/compute/sla/", "https:///compute/sla/", 18, "sources[0].url", "not an https address"},
		{"port", "https://aws.amazon.com/", "https://aws.amazon.com:443/", 18, "sources[0].url", "port"},
		{"test host", "https://aws.amazon.com/", "https://packet.test1.hostedai.dev/", 18, "sources[0].url", `test or staging host ("test1")`},
		{"staging host", "https://aws.amazon.com/", "https://staging.aws.amazon.com/", 18, "sources[0].url", "test or staging host"},
		{"example host", "https://aws.amazon.com/", "https://docs.example.com/", 18, "sources[0].url", "reserved example host"},
		{"ip", "https://aws.amazon.com/", "https://192.0.2.1/", 18, "sources[0].url", "IP address"},
		{"bad read", "read: 2026-11-30", "read: 2026-11-31", 19, "sources[0].read", "not a date"},
		{"empty quote", `quote: "10% below 99.5%"`, `quote: " "`, 24, "sources[1].quote", "must not be empty"},
		{"missing quote", "    quote: \"10% below 99.5%\"\n", "", 21, "sources[1].quote", "missing"},
		{"bad secondary", "secondary: true", "secondary: maybe", 25, "sources[1].secondary", "neither true nor false"},
		{"cites sources", "terms: [uptime.target, claim]", "terms: [sources]", 17, "sources[0].terms[0]", "not a field"},
	})
}
