// Package slack delivers the application's alerts to Slack with slack-go:
// Block Kit messages for degraded / unreachable / recovered / reclassified
// incidents, later alerts as replies in the incident's thread, Slack's rate
// limits honoured (Retry-After). A bot token (chat.postMessage, threads) or
// an incoming webhook (no threads: replies name the incident instead) is
// configured; with neither, Console writes the same alerts as text.
package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/internal/ctxsleep"
)

// Config says where alerts go. Exactly one of WebhookURL and BotToken (with
// Channel) is set; secrets come from the environment or the secret store,
// never from a file in the repository.
type Config struct {
	WebhookURL string `yaml:"webhook_url" json:"webhook_url"`
	BotToken   string `yaml:"bot_token" json:"bot_token"`
	Channel    string `yaml:"channel" json:"channel"`
	// APIURL overrides Slack's API base URL (tests use slacktest).
	APIURL string `yaml:"-" json:"-"`
	// MaxWait bounds how long one Notify waits for rate limits in total
	// (default 30 s); past it the alert stays pending and is retried later.
	MaxWait time.Duration `yaml:"-" json:"-"`
}

// Configured reports whether any Slack destination is set.
func (c Config) Configured() bool { return c.WebhookURL != "" || c.BotToken != "" }

// Validate names the field that is wrong.
func (c Config) Validate() error {
	switch {
	case c.WebhookURL != "" && c.BotToken != "":
		return errors.New("slack: set webhook_url or bot_token, not both")
	case c.WebhookURL != "":
		u, err := url.Parse(c.WebhookURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return errors.New("slack.webhook_url: not an http(s) URL")
		}
	case c.BotToken != "":
		if !strings.HasPrefix(c.BotToken, "xoxb-") && !strings.HasPrefix(c.BotToken, "xoxp-") {
			return errors.New("slack.bot_token: does not look like a Slack token (xoxb-…)")
		}
		if c.Channel == "" {
			return errors.New("slack.channel: required with bot_token")
		}
	default:
		return errors.New("slack: neither webhook_url nor bot_token is set")
	}
	return nil
}

// Notifier posts alerts to Slack.
type Notifier struct {
	cfg    Config
	client *slackapi.Client
	sleep  func(context.Context, time.Duration) error
}

// New returns a Slack notifier for a valid config.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 30 * time.Second
	}
	n := &Notifier{cfg: cfg, sleep: ctxsleep.Sleep}
	if cfg.BotToken != "" {
		var opts []slackapi.Option
		if cfg.APIURL != "" {
			opts = append(opts, slackapi.OptionAPIURL(cfg.APIURL))
		}
		n.client = slackapi.New(cfg.BotToken, opts...)
	}
	return n, nil
}

// Notify posts a. With a bot token a first message returns its ts (the
// thread); later alerts reply in that thread, and recoveries,
// reclassifications and late deliveries are also broadcast to the channel.
func (n *Notifier) Notify(ctx context.Context, a notify.Alert) (string, error) {
	broadcast := a.Kind == notify.AlertRecovered || a.Kind == notify.AlertReclassified || a.Kind == notify.AlertDelivered
	return n.send(ctx, a.Thread, broadcast, Blocks(a), Text(a), "alert")
}

// NotifyTicket posts a ticket message, in the ticket's thread when it has
// one; a breached deadline is also broadcast to the channel.
func (n *Notifier) NotifyTicket(ctx context.Context, m notify.TicketMessage) (string, error) {
	return n.send(ctx, m.Thread, m.Kind == notify.TicketBreached, TicketBlocks(m), TicketText(m), "ticket message")
}

// send posts one message, waiting out Slack's rate limits up to MaxWait in
// all; what it is ("alert") only names it in errors. Its error is
// redacted (notify.Redact): the webhook URL is the credential itself, and
// slack-go's transport errors quote it whole.
func (n *Notifier) send(ctx context.Context, thread string, broadcast bool, blocks []slackapi.Block, text, what string) (string, error) {
	ts, err := n.sendRetrying(ctx, thread, broadcast, blocks, text, what)
	if err != nil {
		return "", notify.Redact(err, append(notify.URLSecrets(n.cfg.WebhookURL), n.cfg.BotToken)...)
	}
	return ts, nil
}

func (n *Notifier) sendRetrying(ctx context.Context, thread string, broadcast bool, blocks []slackapi.Block, text, what string) (string, error) {
	var waited time.Duration
	for {
		ts, err := n.post(ctx, thread, broadcast, blocks, text)
		var rl *slackapi.RateLimitedError
		if !errors.As(err, &rl) {
			if err != nil {
				return "", fmt.Errorf("slack: %w", err)
			}
			return ts, nil
		}
		wait := rl.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		if waited+wait > n.cfg.MaxWait {
			return "", fmt.Errorf("slack: rate limited for %s more; leaving the %s pending: %w", wait, what, err)
		}
		waited += wait
		if err := n.sleep(ctx, wait); err != nil {
			return "", fmt.Errorf("slack: waiting out a rate limit: %w", err)
		}
	}
}

func (n *Notifier) post(ctx context.Context, thread string, broadcast bool, blocks []slackapi.Block, text string) (string, error) {
	// The fallback text is made of probe and user text with no markup of
	// ours: escape all of it (what slack-go's MsgOptionText(text, true)
	// does, here for the webhook too).
	text = esc(text)
	if n.client == nil {
		msg := &slackapi.WebhookMessage{Text: text, Blocks: &slackapi.Blocks{BlockSet: blocks}}
		return "", slackapi.PostWebhookContext(ctx, n.cfg.WebhookURL, msg)
	}
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, false), slackapi.MsgOptionBlocks(blocks...)}
	if thread != "" {
		opts = append(opts, slackapi.MsgOptionTS(thread))
		if broadcast {
			opts = append(opts, slackapi.MsgOptionBroadcast())
		}
	}
	_, ts, err := n.client.PostMessageContext(ctx, n.cfg.Channel, opts...)
	if err != nil {
		return "", err
	}
	if thread != "" {
		return thread, nil
	}
	return ts, nil
}

// Console writes alerts as text lines, for `gpusla serve` without Slack.
type Console struct {
	mu sync.Mutex
	W  io.Writer
}

// Notify writes one line per alert; the thread is the incident id.
func (c *Console) Notify(_ context.Context, a notify.Alert) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.W, "ALERT %s\n", Text(a)); err != nil {
		return "", err
	}
	return a.IncidentID, nil
}

// NotifyTicket writes one line per ticket message; the thread is the ticket id.
func (c *Console) NotifyTicket(_ context.Context, m notify.TicketMessage) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.W, "TICKET %s\n", TicketText(m)); err != nil {
		return "", err
	}
	return m.Ticket, nil
}

var (
	_ notify.Notifier = (*Notifier)(nil)
	_ notify.Notifier = (*Console)(nil)
)
