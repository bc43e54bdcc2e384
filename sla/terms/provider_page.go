package terms

import (
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/publicaddr"
)

// StatusFormat is the format of a provider's public status page feed.
type StatusFormat string

// Status page formats.
const (
	// FormatStatuspage is Atlassian Statuspage's incidents JSON
	// (/api/v2/incidents.json): incidents with their updates and the
	// components they affected.
	FormatStatuspage StatusFormat = "statuspage"
	FormatRSS        StatusFormat = "rss"  // RSS 2.0: one item per incident
	FormatAtom       StatusFormat = "atom" // Atom (RFC 4287): one entry per incident
)

// StatusFormats lists the formats in the order docs/terms.md gives them.
var StatusFormats = []StatusFormat{FormatStatuspage, FormatRSS, FormatAtom}

// Status page defaults and bounds.
const (
	DefaultStatusEvery = 5 * time.Minute
	MinStatusEvery     = time.Minute
	MaxStatusEvery     = 24 * time.Hour
	DefaultStatusSlack = 30 * time.Minute
	MaxStatusSlack     = 24 * time.Hour
)

// ProviderPage is the provider's own public status page (the terms'
// provider_status_page; status_page is the renter's own page, statuspage.go). The renter's backend
// polls it and the monthly report lists which measured outages the provider
// acknowledged there. It never changes what is counted: the contract's
// books are the probes' measurements alone.
type ProviderPage struct {
	URL    string
	Format StatusFormat
	// Every is how often the page is fetched.
	Every time.Duration
	// Slack widens each provider incident on both sides when it is matched
	// with measured outages: a provider posts an incident some minutes
	// after the failure began and resolves it some minutes after it ended.
	Slack time.Duration
	// Keywords, when given, keep only the provider incidents whose title
	// or affected components contain one of them (case-insensitive): a
	// page covers every region and product, the contract only some.
	Keywords []string
	// AllowPrivate lets the poller reach the page's own host (the host of
	// URL, not a host it redirects to) at a loopback, private, CGNAT or
	// link-local address: a page inside the renter's network. Without it
	// those are refused; a cloud metadata address always is.
	AllowPrivate bool
	// Zone is the zone the page is published from (timezone, else the
	// contract's): a zone name in an RSS date that this zone goes by is
	// read as this zone — a Chinese provider's "CST" is +08:00, not RFC
	// 822's US Central.
	Zone *time.Location
	Line int // of the provider_status_page key, for messages
}

// Concerns reports whether a provider incident with this title and these
// components is about the contract's service (always, without keywords).
func (s *ProviderPage) Concerns(title string, components []string) bool {
	if len(s.Keywords) == 0 {
		return true
	}
	hay := strings.ToLower(title + "\n" + strings.Join(components, "\n"))
	for _, k := range s.Keywords {
		if strings.Contains(hay, strings.ToLower(k)) {
			return true
		}
	}
	return false
}

// providerPage reads the optional provider_status_page section.
func (p *parser) providerPage(o *object, t *Terms) error {
	n, ok := o.vals["provider_status_page"]
	if !ok {
		return nil
	}
	so, err := p.object(n, "provider_status_page", "url", "format", "every", "slack", "keywords", "allow_private", "timezone")
	if err != nil {
		return err
	}
	sp := &ProviderPage{Every: DefaultStatusEvery, Slack: DefaultStatusSlack, Line: keyLine(o.n, "provider_status_page")}
	if t.Calendar != nil {
		sp.Zone = t.Calendar.Loc
	}
	if v, ok := so.vals["timezone"]; ok {
		name, err := p.str(v, "provider_status_page.timezone")
		if err != nil {
			return err
		}
		if sp.Zone, err = time.LoadLocation(name); err != nil || name == "Local" || name == "" {
			return p.err(v, "provider_status_page.timezone", "%q is not an IANA time zone (e.g. Asia/Shanghai)", name)
		}
	}
	if v, ok := so.vals["allow_private"]; ok {
		if sp.AllowPrivate, err = p.boolean(v, "provider_status_page.allow_private"); err != nil {
			return err
		}
	}
	un, err := p.require(so, "url")
	if err != nil {
		return err
	}
	if sp.URL, err = p.str(un, "provider_status_page.url"); err != nil {
		return err
	}
	if err := checkStatusURL(sp.URL, sp.AllowPrivate); err != "" {
		return p.err(un, "provider_status_page.url", "%q %s", sp.URL, err)
	}
	fn, err := p.require(so, "format")
	if err != nil {
		return err
	}
	f, err := p.str(fn, "provider_status_page.format")
	if err != nil {
		return err
	}
	sp.Format = StatusFormat(f)
	if !slices.Contains([]string{string(FormatStatuspage), string(FormatRSS), string(FormatAtom)}, f) {
		return p.err(fn, "provider_status_page.format", "%q is not a status page format (statuspage, rss, atom)", f)
	}
	if v, ok := so.vals["every"]; ok {
		if sp.Every, err = p.duration(v, "provider_status_page.every"); err != nil {
			return err
		}
		if sp.Every < MinStatusEvery || sp.Every > MaxStatusEvery {
			return p.err(v, "provider_status_page.every", "%s is outside %s to %s (be kind to the provider's page)", sp.Every, MinStatusEvery, MaxStatusEvery)
		}
	}
	if v, ok := so.vals["slack"]; ok {
		if sp.Slack, err = p.duration(v, "provider_status_page.slack"); err != nil {
			return err
		}
		if sp.Slack > MaxStatusSlack {
			return p.err(v, "provider_status_page.slack", "%s is more than %s", sp.Slack, MaxStatusSlack)
		}
	}
	if v, ok := so.vals["keywords"]; ok {
		items, err := p.seq(v, "provider_status_page.keywords")
		if err != nil {
			return err
		}
		for i, it := range items {
			k, err := p.str(it, fmt.Sprintf("provider_status_page.keywords[%d]", i))
			if err != nil {
				return err
			}
			sp.Keywords = append(sp.Keywords, strings.TrimSpace(k))
		}
		if len(sp.Keywords) == 0 {
			return p.err(v, "provider_status_page.keywords", "an empty list keeps no incident; leave the field out to keep every one")
		}
	}
	t.ProviderStatusPage = sp
	return nil
}

// numericHost is a host made of numbers alone (decimal, octal, hex, up to
// four parts): inet_aton's address forms.
var numericHost = regexp.MustCompile(`(?i)^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$`)

// checkStatusURL says what is wrong with a status page address, or "".
// Only http and https are fetched, and the address must name a host: the
// poller sends nothing but a GET to it. A host that is a literal address
// (or localhost) inside a network — loopback, private, link-local … — is
// refused unless allowPrivate; a metadata service's always (the poller
// checks every address it resolves and dials the same way).
func checkStatusURL(s string, allowPrivate bool) string {
	u, err := url.Parse(s)
	if err == nil && u.Hostname() != "" {
		kind := publicaddr.OfName(u.Hostname())
		if a, aerr := netip.ParseAddr(u.Hostname()); aerr == nil {
			kind = publicaddr.Of(a)
		} else if numericHost.MatchString(u.Hostname()) {
			// 2130706433, 0x7f.1, 017700000001: forms some resolvers read as
			// an address (127.0.0.1) and others as a name.
			return "names an address in a numeric form some resolvers read as another address; write it dotted (1.2.3.4) or use the page's name"
		}
		if !publicaddr.Opens(kind, allowPrivate) {
			if publicaddr.Opens(kind, true) {
				return fmt.Sprintf("names a %s address, inside a network: the poller fetches public pages only (set provider_status_page.allow_private: true for a page inside your own network)", kind)
			}
			return fmt.Sprintf("names a %s address: never fetched", kind)
		}
	}
	switch {
	case err != nil:
		return "is not a URL"
	case u.Scheme != "https" && u.Scheme != "http":
		return "is not an http or https URL"
	case u.Host == "" || u.Hostname() == "":
		return "names no host"
	case u.User != nil:
		return "must not carry a user or password"
	case u.Fragment != "":
		return "must not have a #fragment"
	}
	return ""
}
