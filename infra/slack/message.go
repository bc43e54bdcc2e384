package slack

import (
	"fmt"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/infra/notify"
)

var kindNames = map[string]string{
	"unreachable":            "unreachable",
	"gpu_lost":               "GPU lost",
	"gpu_degraded":           "GPU degraded",
	"network_degraded":       "network degraded",
	"performance_below_spec": "performance below spec",
	"inventory_mismatch":     "hardware not as ordered",
}

var causeNames = map[string]string{
	"no_data":                  "no data from the node covers the gap (node down)",
	"network":                  "the node was up but had no external connectivity",
	"no_connectivity_evidence": "the node was up; no connectivity check shows the outside was reachable",
	"backend_unreachable_only": "the node was up and reached its other targets, only not the backend",
	"backend_outage":           "the backend itself was down",
	"check_failed":             "a check failed",
}

func kindName(k string) string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return k
}

func causeName(c string) string {
	if n, ok := causeNames[c]; ok {
		return n
	}
	return c
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// slackDate renders t in each reader's own time zone, with a UTC fallback.
func slackDate(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} {time_secs}|%s>", t.Unix(), stamp(t))
}

// Duration renders a duration for people: 4m40s, 2h05m, 3d4h.
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Hour:
		return d.String()
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// FailedLine renders a failing check with its measured value and criterion.
func FailedLine(c notify.FailedCheck) string {
	var b strings.Builder
	b.WriteString(c.Name)
	if c.GPU != nil {
		fmt.Fprintf(&b, " (GPU %d)", *c.GPU)
	}
	b.WriteString(": ")
	if c.Value != "" {
		b.WriteString(c.Value)
	} else {
		b.WriteString(c.Verdict)
	}
	if c.Criterion != "" {
		fmt.Fprintf(&b, " (want %s)", c.Criterion)
	}
	if c.Detail != "" {
		fmt.Fprintf(&b, " — %s", c.Detail)
	}
	return b.String()
}

// Title is the one-line summary of an alert.
func Title(a notify.Alert) string {
	k := kindName(a.IncidentKind)
	switch a.Kind {
	case notify.AlertRecovered:
		return fmt.Sprintf("%s recovered: %s for %s", a.Node, k, Duration(a.Duration))
	case notify.AlertReclassified:
		verdict := "counts against the provider"
		if !a.Counted {
			verdict = "does NOT count against the provider"
		}
		return fmt.Sprintf("%s %s reclassified: %s", a.Node, k, verdict)
	default:
		return fmt.Sprintf("%s %s", a.Node, k)
	}
}

// Counted is the incident's verdict as every alert states it: "yes", or
// "no" with the contract's reason (the report's words for the same row).
func Counted(a notify.Alert) string {
	switch {
	case a.Counted:
		return "yes"
	case a.Reason != "":
		return "no — " + a.Reason
	}
	return "no"
}

func emoji(a notify.Alert) string {
	switch a.Kind {
	case notify.AlertRecovered:
		return ":large_green_circle:"
	case notify.AlertReclassified:
		return ":large_blue_circle:"
	case notify.AlertUnreachable:
		return ":red_circle:"
	default:
		return ":large_orange_circle:"
	}
}

// Text is the plain-text form (notification fallback and console).
func Text(a notify.Alert) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s — provider %s, since %s", a.Kind, Title(a), a.Provider, stamp(a.Since))
	if a.Kind == notify.AlertRecovered {
		fmt.Fprintf(&b, ", until %s", stamp(a.Until))
	}
	for _, c := range a.Failed {
		fmt.Fprintf(&b, "; %s", FailedLine(c))
	}
	fmt.Fprintf(&b, "; counts as outage: %s", Counted(a))
	if a.Kind == notify.AlertReclassified {
		fmt.Fprintf(&b, "; cause: %s", causeName(a.Cause))
	}
	if a.Detail != "" {
		fmt.Fprintf(&b, "; %s", a.Detail)
	}
	fmt.Fprintf(&b, " (incident %s)", a.IncidentID)
	return b.String()
}

// Blocks is the Block Kit form: a header, the facts as fields, what failed
// with its measured values, and the engine's evidence.
func Blocks(a notify.Alert) []slackapi.Block {
	md := func(s string) *slackapi.TextBlockObject {
		return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, false)
	}
	header := slackapi.NewHeaderBlock(slackapi.NewTextBlockObject(slackapi.PlainTextType, truncate(emoji(a)+" "+Title(a), 150), true, false))
	fields := []*slackapi.TextBlockObject{
		md("*Node*\n" + a.Node),
		md("*Provider*\n" + a.Provider),
		md("*Incident*\n" + kindName(a.IncidentKind)),
		md("*Since*\n" + slackDate(a.Since)),
	}
	if a.Kind == notify.AlertRecovered {
		fields = append(fields, md("*Until*\n"+slackDate(a.Until)), md("*Duration*\n"+Duration(a.Duration)))
	}
	fields = append(fields, md("*Counts as outage*\n"+Counted(a)))
	if a.Kind == notify.AlertReclassified {
		fields = append(fields, md("*Cause*\n"+causeName(a.Cause)))
	}
	blocks := []slackapi.Block{header, slackapi.NewSectionBlock(nil, fields, nil)}
	if len(a.Failed) > 0 {
		var lines []string
		for i, c := range a.Failed {
			if i == 10 {
				lines = append(lines, fmt.Sprintf("… and %d more", len(a.Failed)-10))
				break
			}
			lines = append(lines, "• `"+FailedLine(c)+"`")
		}
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate("*What failed*\n"+strings.Join(lines, "\n"), 3000)), nil, nil))
	}
	if a.Detail != "" {
		blocks = append(blocks, slackapi.NewSectionBlock(md(truncate(a.Detail, 3000)), nil, nil))
	}
	if b := ticketButtons(a); b != nil { // ticket_buttons.go
		blocks = append(blocks, b)
	}
	blocks = append(blocks, slackapi.NewContextBlock("", md("incident `"+a.IncidentID+"`")))
	return blocks
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
