package wiring

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/route"
	"github.com/gpusla/gpusla/infra/slack"
)

// SlackChannelName is the channel name Slack gets when it is configured the
// old way (serve's slack: section and GPUSLA_SLACK_*, the Lambdas' Slack
// parameters) beside an alerts: section; routes name it so.
const SlackChannelName = "slack"

// Alerts is where a backend's messages go: named channels (Channels) or one
// notifier (Notifier: Slack, or the console), and where the notices to the
// team go (the month's report, claim reminders): every channel the routes
// give them, or the one notifier.
type Alerts struct {
	Notifier notify.Notifier
	Channels app.Channels
	Notices  app.NoticeChannels
	// Summary says where alerts go, for the start-up log.
	Summary string
}

// Apply sets the service config's destinations.
func (a Alerts) Apply(c *app.Config) { c.Notifier, c.Channels = a.Notifier, a.Channels }

// OpenAlerts builds the destinations from an alerts: section (source names
// it in errors: the config file, the SSM parameter) and the Slack settings:
// with an alerts section, its channels plus Slack as channel "slack";
// without one, Slack alone, or console (the console writer) when there is
// no Slack either.
func OpenAlerts(cfg route.Config, source string, sl slack.Config, console io.Writer) (Alerts, error) {
	var sn *slack.Notifier
	if sl.Configured() {
		var err error
		if sn, err = slack.New(sl); err != nil {
			return Alerts{}, err
		}
	}
	if !cfg.Configured() {
		if sn == nil {
			c := &slack.Console{W: console}
			return Alerts{Notifier: c, Notices: app.OneChannel{Poster: c}, Summary: "the console (no Slack and no alerts: channels configured)"}, nil
		}
		return Alerts{Notifier: sn, Notices: app.OneChannel{Poster: sn}, Summary: "Slack"}, nil
	}
	var extra []route.Extra
	if sn != nil {
		extra = append(extra, route.Extra{Name: SlackChannelName, Type: "slack", Notifier: sn, From: "the Slack settings (slack: / " + EnvSlackWebhookURL + " / SSM)"})
	}
	r, err := cfg.Build(source, extra...)
	if err != nil {
		return Alerts{}, err
	}
	a := Alerts{Channels: r, Notices: r}
	var kinds []string
	for _, name := range r.Names() {
		kinds = append(kinds, name+" ("+r.Type(name)+")")
	}
	a.Summary = fmt.Sprintf("channels %s", strings.Join(kinds, ", "))
	return a, nil
}

// WithLinks puts the signed "Request replacement" link (functions/actionlink)
// on the hardware alerts of every channel that cannot call back into gpusla
// (the robots and the webhook; Slack has its own button). Without channels
// (Slack alone, the console) or without links (nil: no public URL) it
// changes nothing.
func (a *Alerts) WithLinks(links *actionlink.Signer) {
	r, ok := a.Channels.(*route.Router)
	if links == nil || !ok {
		return
	}
	a.Channels = actionlink.Channels{Router: r, Links: links}
	a.Summary += "; hardware alerts carry a replacement link to " + links.Base()
}
