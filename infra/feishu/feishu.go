// Package feishu delivers alerts and ticket messages to a Feishu / Lark
// (飞书) group through a custom bot's webhook, as its documentation
// describes: POST https://open.feishu.cn/open-apis/bot/v2/hook/<token> (or
// open.larksuite.com for Lark) with a JSON body of msg_type "interactive"
// and a card: a header whose colour says the level and a markdown element.
// With signature verification on, the body also carries timestamp (Unix
// seconds, as a string) and sign = base64(HMAC-SHA256(key =
// timestamp+"\n"+secret, message = empty)). The bot answers HTTP 200 with
// code 0, or a non-zero code on failure (19021: bad signature or timestamp;
// 11232: over its rate limit of 100 a minute and 5 a second), so this
// package limits itself to those rates and waits out 11232 and HTTP 429.
package feishu

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/notify/robot"
)

// Limits are the bot's documented quotas: "自定义机器人的频率控制和普通应用不
// 同，为单租户单机器人 100 次/分钟，5 次/秒" (custom bot guide,
// https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot,
// 使用限制).
var Limits = []robot.Limit{{N: 100, Per: time.Minute}, {N: 5, Per: time.Second}}

// The bot's rate-limit codes (HTTP 200 answers): 11232 "frequency
// limited", the custom bot's own, and 9499 "Too Many Request", the open
// platform gateway's answer to a burst past its limit.
const (
	errRateLimited = 11232
	errTooMany     = 9499
)

// Config is one bot.
type Config struct {
	// WebhookURL is the bot's URL, ending in its token.
	WebhookURL string `yaml:"webhook_url" json:"webhook_url"`
	// Secret is the signing secret; empty when the bot checks keywords or
	// an IP allow-list instead.
	Secret string `yaml:"secret" json:"secret"`
}

// Validate names the field that is wrong; prefix is where the config sits.
func (c Config) Validate(prefix string) error {
	u, err := robot.WebhookURL(prefix+".webhook_url", c.WebhookURL)
	if err != nil {
		return err
	}
	if !strings.Contains(u.Path, "/bot/v2/hook/") || strings.HasSuffix(u.Path, "/hook/") {
		return fmt.Errorf("%s.webhook_url: not a custom bot URL (…/open-apis/bot/v2/hook/<token>)", prefix)
	}
	return nil
}

// Notifier posts to one Feishu/Lark custom bot.
type Notifier struct {
	cfg Config
	// Poster sends with the rate limits and retries; tests set its clock,
	// sleep and client.
	Poster     *robot.Poster
	robot.Chat // Notify and NotifyTicket
}

// New returns a notifier for a valid config.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.Validate("feishu"); err != nil {
		return nil, err
	}
	n := &Notifier{cfg: cfg, Poster: robot.New("feishu", Limits...)}
	n.Poster.Secrets = append(notify.URLSecrets(cfg.WebhookURL), cfg.Secret)
	n.Chat = robot.Chat{Dialect: chantext.Feishu, Send: n.send}
	return n, nil
}

// Sign is the documented signature for timestamp (Unix seconds): the string
// timestamp+"\n"+secret is the HMAC key, and the message is empty.
func Sign(timestamp int64, secret string) string {
	mac := hmac.New(sha256.New, []byte(strconv.FormatInt(timestamp, 10)+"\n"+secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Card is the interactive card a message becomes.
type Card struct {
	Config   CardConfig `json:"config"`
	Header   Header     `json:"header"`
	Elements []Element  `json:"elements"`
}

// CardConfig asks for the wide layout.
type CardConfig struct {
	WideScreenMode bool `json:"wide_screen_mode"`
}

// Header is the card's title bar; Template is its colour.
type Header struct {
	Title    Text   `json:"title"`
	Template string `json:"template"`
}

// Text is a plain_text object.
type Text struct {
	Tag     string `json:"tag"`
	Content string `json:"content"`
}

// Element is an element of the card: markdown (Content) or an action
// row of buttons (Actions).
type Element struct {
	Tag     string   `json:"tag"`
	Content string   `json:"content,omitempty"`
	Actions []Button `json:"actions,omitempty"`
}

// Button is a card button that opens URL in the browser (the card's
// "url" jump; the bot cannot call back, so the link does the work).
// Type is its colour: default, primary or danger.
type Button struct {
	Tag  string `json:"tag"`
	Text Text   `json:"text"`
	Type string `json:"type"`
	URL  string `json:"url"`
}

type request struct {
	Timestamp string `json:"timestamp,omitempty"`
	Sign      string `json:"sign,omitempty"`
	MsgType   string `json:"msg_type"`
	Card      Card   `json:"card"`
}

var templates = map[chantext.Level]string{
	chantext.Critical: "red", chantext.Warning: "orange", chantext.Resolved: "green", chantext.Info: "blue",
}

// CardOf is the card of a rendered message.
func CardOf(m chantext.Message) Card {
	c := Card{Config: CardConfig{WideScreenMode: true},
		Header:   Header{Title: Text{Tag: "plain_text", Content: m.Title}, Template: templates[m.Level]},
		Elements: []Element{{Tag: "markdown", Content: m.Body}}}
	if len(m.Buttons) > 0 {
		row := Element{Tag: "action"}
		for _, b := range m.Buttons {
			// Every button we send asks for something irreversible (a
			// replacement): danger, as Slack's.
			row.Actions = append(row.Actions, Button{Tag: "button", Text: Text{Tag: "plain_text", Content: b.Label}, Type: "danger", URL: b.URL})
		}
		c.Elements = append(c.Elements, row)
	}
	return c
}

func (n *Notifier) send(ctx context.Context, m chantext.Message) error {
	card := CardOf(m)
	return n.Poster.Post(ctx, func(now time.Time) (*http.Request, error) {
		r := request{MsgType: "interactive", Card: card}
		if n.cfg.Secret != "" {
			ts := now.Unix()
			r.Timestamp, r.Sign = strconv.FormatInt(ts, 10), Sign(ts, n.cfg.Secret)
		}
		body, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		return robot.JSONRequest(ctx, n.cfg.WebhookURL, body)
	}, check)
}

var check = robot.CodeCheck("code", "msg", errRateLimited, errTooMany)

var (
	_ notify.Notifier     = (*Notifier)(nil)
	_ notify.NoticePoster = (*Notifier)(nil)
)
