package slackapi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Command is a parsed `/gpusla` slash command.
type Command struct {
	// Verb is one of: help, status, report, open, ref, responded, replied,
	// resolved, replaced.
	Verb string
	Node string // status (optional), open
	// Priority, Summary, ProviderRef, Category: open.
	Priority    string
	Summary     string
	ProviderRef string
	Category    string
	Ticket      string // ref, responded, replied, resolved, replaced
	Waiting     bool   // responded: the provider asked us something
	Month       string // report: YYYY-MM (empty: the current month); scorecard: the first month
	To          string // scorecard: the last month (empty: the month before now, or Month)
}

// SlashForm is the part of Slack's slash-command form the handler uses.
type SlashForm struct {
	Command     string
	Text        string
	UserID      string
	UserName    string
	ChannelID   string
	TeamID      string
	ResponseURL string
	TriggerID   string
}

// MaxTextLen bounds a command's text (Slack itself sends at most a few
// thousand characters).
const MaxTextLen = 4000

// unescape undoes the escaping Slack applies to what people type ('&',
// '<', '>' arrive as "&amp;", "&lt;", "&gt;"), so a ticket's summary is
// stored as written — the report shows it, and every answer escapes it
// again on the way out.
var unescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace

// ParseSlashForm decodes a slash command's url-encoded body. Only fields
// the handler reads are kept; a missing command or trigger is an error.
func ParseSlashForm(body []byte) (SlashForm, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return SlashForm{}, fmt.Errorf("slash command body: %w", err)
	}
	f := SlashForm{Command: v.Get("command"), Text: unescape(v.Get("text")), UserID: v.Get("user_id"), UserName: v.Get("user_name"),
		ChannelID: v.Get("channel_id"), TeamID: v.Get("team_id"), ResponseURL: v.Get("response_url"), TriggerID: v.Get("trigger_id")}
	switch {
	case f.Command == "":
		return f, errors.New("slash command body: command: missing")
	case f.TriggerID == "":
		return f, errors.New("slash command body: trigger_id: missing")
	case len(f.Text) > MaxTextLen:
		return f, fmt.Errorf("slash command body: text: longer than %d bytes", MaxTextLen)
	case !utf8.ValidString(f.Text):
		return f, errors.New("slash command body: text: not UTF-8")
	}
	if f.ResponseURL != "" {
		u, err := url.Parse(f.ResponseURL)
		if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			return f, errors.New("slash command body: response_url: not an http(s) URL")
		}
	}
	return f, nil
}

// Usage is the help text.
const Usage = "Usage:\n" +
	"• `/gpusla status [node]` — nodes, open incidents and open tickets with their deadlines\n" +
	"• `/gpusla ticket open <node> <priority> <summary…> [ref=<provider ticket>] [hardware]` — record a ticket you filed with the provider\n" +
	"• `/gpusla ticket ref <id> <provider ticket>` — add the provider's ticket number (e.g. to a ticket opened with a button)\n" +
	"• `/gpusla ticket responded <id> [waiting]` — the provider answered (`waiting`: they asked us something; pauses the resolution clock)\n" +
	"• `/gpusla ticket replied <id>` — we answered the provider\n" +
	"• `/gpusla ticket resolved <id>` · `/gpusla ticket replaced <id>` — resolved · hardware replaced\n" +
	"• `/gpusla report [YYYY-MM]` — the month's tickets against the contract\n" +
	"• `/gpusla scorecard [YYYY-MM [YYYY-MM]]` — providers compared on what the probes measured (default: last month)"

// ParseCommand parses the text after `/gpusla`. Errors say what is wrong
// in words a person can act on.
func ParseCommand(text string) (Command, error) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return Command{Verb: "help"}, nil
	}
	switch strings.ToLower(f[0]) {
	case "help":
		return Command{Verb: "help"}, nil
	case "status":
		if len(f) > 2 {
			return Command{}, fmt.Errorf("status takes at most one node, got %d words", len(f)-1)
		}
		c := Command{Verb: "status"}
		if len(f) == 2 {
			c.Node = f[1]
		}
		return c, nil
	case "report":
		c := Command{Verb: "report"}
		if len(f) > 2 {
			return Command{}, errors.New("report takes at most a month (YYYY-MM)")
		}
		if len(f) == 2 {
			if _, err := time.Parse("2006-01", f[1]); err != nil {
				return Command{}, fmt.Errorf("report: %q is not a month; write YYYY-MM, e.g. 2026-03", f[1])
			}
			c.Month = f[1]
		}
		return c, nil
	case "scorecard":
		if len(f) > 3 {
			return Command{}, errors.New("scorecard takes at most two months: from and to (YYYY-MM)")
		}
		c := Command{Verb: "scorecard"}
		for i, m := range f[1:] {
			if _, err := time.Parse("2006-01", m); err != nil {
				return Command{}, fmt.Errorf("scorecard: %q is not a month; write YYYY-MM, e.g. 2026-03", m)
			}
			if i == 0 {
				c.Month = m
			} else {
				c.To = m
			}
		}
		if c.To != "" && c.To < c.Month {
			return Command{}, fmt.Errorf("scorecard: %s is before %s; give the first month first", c.To, c.Month)
		}
		return c, nil
	case "ticket":
		if len(f) < 2 {
			return Command{}, errors.New("ticket needs a verb: open, ref, responded, replied, resolved or replaced")
		}
		verb := strings.ToLower(f[1])
		switch verb {
		case "open":
			if len(f) < 5 {
				return Command{}, errors.New("ticket open needs <node> <priority> <summary>")
			}
			c := Command{Verb: "open", Node: f[2], Priority: f[3]}
			var words []string
			for _, w := range f[4:] {
				switch {
				case strings.HasPrefix(w, "ref="):
					c.ProviderRef = strings.TrimPrefix(w, "ref=")
				case strings.EqualFold(w, "hardware") || strings.EqualFold(w, "category=hardware"):
					c.Category = "hardware"
				default:
					words = append(words, w)
				}
			}
			c.Summary = strings.Join(words, " ")
			if c.Summary == "" {
				return Command{}, errors.New("ticket open needs a summary after the priority")
			}
			return c, nil
		case "ref":
			if len(f) < 4 {
				return Command{}, errors.New("ticket ref needs <id> <provider ticket reference>")
			}
			if len(f) > 4 {
				return Command{}, fmt.Errorf("ticket ref: the provider reference is one word, got %q", strings.Join(f[3:], " "))
			}
			return Command{Verb: "ref", Ticket: f[2], ProviderRef: f[3]}, nil
		case "responded", "replied", "resolved", "replaced":
			if len(f) < 3 {
				return Command{}, fmt.Errorf("ticket %s needs a ticket id (T-…)", verb)
			}
			c := Command{Verb: verb, Ticket: f[2]}
			rest := f[3:]
			if verb == "responded" && len(rest) == 1 && strings.EqualFold(rest[0], "waiting") {
				c.Waiting, rest = true, nil
			}
			if len(rest) > 0 {
				return Command{}, fmt.Errorf("ticket %s: unexpected %q after the id", verb, strings.Join(rest, " "))
			}
			return c, nil
		default:
			return Command{}, fmt.Errorf("ticket %q: want open, ref, responded, replied, resolved or replaced", f[1])
		}
	}
	return Command{}, fmt.Errorf("unknown command %q", f[0])
}
