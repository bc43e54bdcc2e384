package notify

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Withheld is what a secret is replaced by in an error's text.
const Withheld = "[withheld]"

// minSecret is the shortest given secret that is looked for, and
// minSegment the shortest path segment of a webhook URL taken for a
// token: shorter ones ("services", a channel name) would blank ordinary
// words of the message. Robot tokens are 24 to 64 characters.
const (
	minSecret  = 6
	minSegment = 16
)

var (
	// anyURL is an absolute URL as error texts carry it (Go's url.Error
	// quotes it; slack-go and proxies may not).
	anyURL = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>\x60]+`)
	// tokenShaped are credentials recognisable by their form alone: Slack
	// tokens (xoxb-, xoxp-, xapp- …), gpusla API keys, a bearer header, a
	// credential-named query parameter left without its URL.
	tokenShaped = []*regexp.Regexp{
		regexp.MustCompile(`\bxox[a-z]-[A-Za-z0-9-]+`),
		regexp.MustCompile(`\bxapp-[A-Za-z0-9-]+`),
		regexp.MustCompile(`\bgsk_[A-Za-z0-9_-]+`),
		regexp.MustCompile(`(?i)\bbearer\s+[^\s"']+`),
		regexp.MustCompile(`(?i)\b(access_token|token|key|sign|secret|signature)=[^&\s"']+`),
	}
)

// Redact is the one way an error leaves a channel (Slack, the robots, the
// webhook) and is stored or logged by the application: its text keeps
// what went wrong but loses every URL's path and query (webhook URLs
// carry the credential there) — a URL is cut to its scheme and host —,
// every one of secrets (the token, the signing secret, the URL and its
// parts: URLSecrets) and anything shaped like a credential (Slack tokens,
// API keys, bearer headers). errors.Is still sees the original chain
// (context.DeadlineExceeded stays recognisable); errors.As does not, so no
// caller can reach the unredacted text through it. nil stays nil.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	r := &redacted{msg: RedactText(err.Error(), secrets...), orig: err}
	var ns *NotSentError
	if errors.As(err, &ns) {
		// The outbox must still learn when to try again: a NotSentError
		// around the redacted text, never around the original.
		return &NotSentError{After: ns.After, Err: r}
	}
	return r
}

// RedactText is Redact for a text.
func RedactText(s string, secrets ...string) string {
	// URLs first, so a secret URL still names its host; then the secrets,
	// longest first, so a secret that holds another is replaced whole.
	var look []string
	for _, sec := range secrets {
		if len(sec) < minSecret {
			continue
		}
		look = append(look, sec, url.QueryEscape(sec), url.PathEscape(sec))
	}
	slices.SortFunc(look, func(a, b string) int { return len(b) - len(a) })
	s = anyURL.ReplaceAllStringFunc(s, cutURL)
	for _, sec := range look {
		s = strings.ReplaceAll(s, sec, Withheld)
	}
	for _, re := range tokenShaped {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if i := strings.IndexAny(m, "= \t"); i > 0 {
				return m[:i+1] + Withheld
			}
			return Withheld
		})
	}
	return s
}

// cutURL keeps a URL's scheme and host: enough to say which service
// failed, nothing of its path, query or user.
func cutURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Withheld
	}
	if u.Path == "" && u.RawQuery == "" && u.User == nil && u.Fragment == "" {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + "://" + u.Host + "/" + Withheld
}

// URLSecrets lists the parts of a webhook URL that are, or may be, its
// credential: the URL itself, its path, and every query value and path
// segment long enough to be a token. "" gives none.
func URLSecrets(raw string) []string {
	if raw == "" {
		return nil
	}
	out := []string{raw}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	if u.Path != "" && u.Path != "/" {
		out = append(out, u.Path)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= minSegment {
			out = append(out, seg)
		}
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	return out
}

// redacted is an error whose text had its secrets taken out.
type redacted struct {
	msg  string
	orig error
}

func (e *redacted) Error() string { return e.msg }

// Is lets errors.Is match the original chain's sentinels without handing
// out the errors themselves.
func (e *redacted) Is(target error) bool { return errors.Is(e.orig, target) }
