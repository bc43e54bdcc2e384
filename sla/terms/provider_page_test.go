package terms

import (
	"strings"
	"testing"
	"time"
)

const withProviderPage = minimal + `provider_status_page:
  url: https://status.example.com/api/v2/incidents.json
  format: statuspage
  every: 2m
  slack: 10m
  keywords: [GPU, "ap-east-1"]
`

func TestProviderPageParse(t *testing.T) {
	ts, err := Parse("s.yaml", []byte(withProviderPage))
	if err != nil {
		t.Fatal(err)
	}
	sp := ts[0].ProviderStatusPage
	if sp == nil || sp.URL != "https://status.example.com/api/v2/incidents.json" || sp.Format != FormatStatuspage ||
		sp.Every != 2*time.Minute || sp.Slack != 10*time.Minute || strings.Join(sp.Keywords, ",") != "GPU,ap-east-1" || sp.Line != 16 {
		t.Fatalf("status page %+v", sp)
	}
	if !sp.Concerns("Degraded gpu capacity", nil) || !sp.Concerns("Network", []string{"AP-EAST-1 compute"}) || sp.Concerns("Billing portal slow", []string{"Console"}) {
		t.Fatal("keyword matching is wrong")
	}
	d, _ := Parse("d.yaml", []byte(strings.Replace(withProviderPage, "  every: 2m\n  slack: 10m\n  keywords: [GPU, \"ap-east-1\"]\n", "", 1)))
	if sp := d[0].ProviderStatusPage; sp.Every != DefaultStatusEvery || sp.Slack != DefaultStatusSlack || sp.Keywords != nil || !sp.Concerns("anything", nil) {
		t.Fatalf("defaults %+v", sp)
	}
	// A page inside the renter's network, allowed explicitly.
	in, err := Parse("i.yaml", []byte(strings.Replace(withProviderPage, "url: https://status.example.com", "allow_private: true\n  url: http://10.0.0.5", 1)))
	if err != nil || !in[0].ProviderStatusPage.AllowPrivate || sp.AllowPrivate {
		t.Fatalf("allow_private: %v %+v", err, in)
	}
	// The page's zone: the contract's by default (RSS zone names are read
	// by it), or its own timezone.
	if sp.Zone == nil || sp.Zone.String() != "UTC" {
		t.Fatalf("default zone %v, want the contract's UTC", sp.Zone)
	}
	z, err := Parse("z.yaml", []byte(strings.Replace(withProviderPage, "  every: 2m\n", "  every: 2m\n  timezone: Asia/Shanghai\n", 1)))
	if err != nil || z[0].ProviderStatusPage.Zone.String() != "Asia/Shanghai" {
		t.Fatalf("timezone: %v %+v", err, z)
	}
	if m, _ := Parse("m.yaml", []byte(minimal)); m[0].ProviderStatusPage != nil {
		t.Fatal("a contract without provider_status_page has one")
	}
}

func TestProviderPageErrors(t *testing.T) {
	cases := []errCase{
		{"bad format", "format: statuspage", "format: html", 18, "provider_status_page.format", `"html" is not a status page format`},
		{"missing format", "  format: statuspage\n", "", 17, "provider_status_page.format", "missing"},
		{"missing url", "  url: https://status.example.com/api/v2/incidents.json\n", "", 17, "provider_status_page.url", "missing"},
		{"ftp url", "url: https://status", "url: ftp://status", 17, "provider_status_page.url", "not an http or https URL"},
		{"no host", "url: https://status.example.com/api", "url: https:///api", 17, "provider_status_page.url", "names no host"},
		{"credentials", "url: https://status", "url: https://me:pw@status", 17, "provider_status_page.url", "user or password"},
		{"too often", "every: 2m", "every: 10s", 19, "provider_status_page.every", "outside 1m0s to 24h0m0s"},
		{"huge slack", "slack: 10m", "slack: 3d", 20, "provider_status_page.slack", "more than 24h"},
		{"negative slack", "slack: 10m", "slack: -1m", 20, "provider_status_page.slack", "negative"},
		{"empty keyword", `keywords: [GPU, "ap-east-1"]`, `keywords: [GPU, ""]`, 21, "provider_status_page.keywords[1]", "must not be empty"},
		{"empty keywords", `keywords: [GPU, "ap-east-1"]`, `keywords: []`, 21, "provider_status_page.keywords", "empty list"},
		{"unknown field", "  every: 2m", "  every: 2m\n  token: x", 20, "provider_status_page.token", "unknown field"},
		// An address inside a network was accepted and
		// fetched on every tick.
		{"loopback", "url: https://status.example.com", "url: http://127.0.0.1:8080", 17, "provider_status_page.url", "names a loopback address, inside a network"},
		{"localhost", "url: https://status.example.com", "url: http://localhost", 17, "provider_status_page.url", "names a loopback address"},
		{"private", "url: https://status.example.com", "url: http://10.0.0.5", 17, "provider_status_page.url", "names a private address"},
		{"CGNAT", "url: https://status.example.com", "url: http://100.64.1.1", 17, "provider_status_page.url", "carrier-grade NAT"},
		{"link-local", "url: https://status.example.com", "url: http://169.254.10.10", 17, "provider_status_page.url", "names a link-local address"},
		{"metadata", "url: https://status.example.com", "url: http://169.254.169.254", 17, "provider_status_page.url", "names a cloud metadata address: never fetched"},
		{"mapped metadata", "url: https://status.example.com", "url: http://[::ffff:169.254.169.254]", 17, "provider_status_page.url", "cloud metadata"},
		{"IPv6 metadata", "url: https://status.example.com", "url: http://[fd00:ec2::254]", 17, "provider_status_page.url", "cloud metadata"},
		{"IPv6 loopback", "url: https://status.example.com", "url: http://[::1]:80", 17, "provider_status_page.url", "loopback"},
		{"metadata even allowed", "url: https://status.example.com", "allow_private: true\n  url: http://169.254.169.254", 18, "provider_status_page.url", "never fetched"},
		{"bad timezone", "  every: 2m", "  every: 2m\n  timezone: CST", 20, "provider_status_page.timezone", `"CST" is not an IANA time zone`},
		{"decimal address", "url: https://status.example.com", "url: http://2130706433", 17, "provider_status_page.url", "numeric form"},
		{"hex address", "url: https://status.example.com", "url: http://0x7f.1", 17, "provider_status_page.url", "numeric form"},
		{"allow not a bool", "  every: 2m", "  every: 2m\n  allow_private: yes please", 20, "provider_status_page.allow_private", ""},
		{"not a mapping", "provider_status_page:\n  url: https://status.example.com/api/v2/incidents.json\n  format: statuspage\n  every: 2m\n  slack: 10m\n  keywords: [GPU, \"ap-east-1\"]\n", "provider_status_page: https://x\n", 16, "provider_status_page", "must be a mapping"},
	}
	checkErrors(t, withProviderPage, cases)
}
