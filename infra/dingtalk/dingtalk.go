// Package dingtalk delivers alerts and ticket messages to a DingTalk (钉钉)
// group through a custom robot's webhook, as its documentation describes:
// POST https://oapi.dingtalk.com/robot/send?access_token=…, a JSON body of
// msgtype "markdown" with markdown.title (the notification's text) and
// markdown.text; with "加签" (signing) on, the query also carries timestamp
// (Unix milliseconds) and sign = urlencode(base64(HMAC-SHA256(secret,
// timestamp+"\n"+secret))). The robot answers HTTP 200 with errcode 0, or a
// non-zero errcode on failure (130101: more than 20 messages a minute, after
// which it refuses messages for ten minutes), so this package limits itself
// to 20 a minute and waits out 130101 and HTTP 429 with backoff.
package dingtalk

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

// Limit is the robot's documented quota: "每个机器人每分钟最多发送20条消息到
// 群里，如果超过20条，会限流10分钟" (custom robot guide,
// https://open.dingtalk.com/document/orgapp/custom-robot-access, 消息发送频率
// 限制); past it the robot answers errcode 130101 "send too fast, exceed 20
// times per minute".
var Limit = robot.Limit{N: 20, Per: time.Minute}

// Rate-limit error codes (HTTP 200 answers).
const errSendTooFast = 130101

// Config is one robot.
type Config struct {
	// WebhookURL is the robot's URL with its access_token.
	WebhookURL string `yaml:"webhook_url" json:"webhook_url"`
	// Secret is the "SEC…" signing secret; empty when the robot uses
	// keywords or an IP allow-list instead.
	Secret string `yaml:"secret" json:"secret"`
}

// Validate names the field that is wrong; prefix is where the config sits
// ("channels.ops").
func (c Config) Validate(prefix string) error {
	u, err := robot.WebhookURL(prefix+".webhook_url", c.WebhookURL)
	if err != nil {
		return err
	}
	if u.Query().Get("access_token") == "" {
		return fmt.Errorf("%s.webhook_url: has no access_token parameter", prefix)
	}
	if c.Secret != "" && !strings.HasPrefix(c.Secret, "SEC") {
		return fmt.Errorf("%s.secret: a DingTalk signing secret starts with SEC", prefix)
	}
	return nil
}

// Notifier posts to one DingTalk robot.
type Notifier struct {
	cfg Config
	// Poster sends with the rate limit and retries; tests set its clock,
	// sleep and client.
	Poster     *robot.Poster
	robot.Chat // Notify and NotifyTicket
}

// New returns a notifier for a valid config.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.Validate("dingtalk"); err != nil {
		return nil, err
	}
	n := &Notifier{cfg: cfg, Poster: robot.New("dingtalk", Limit)}
	n.Poster.Secrets = append(notify.URLSecrets(cfg.WebhookURL), cfg.Secret)
	n.Chat = robot.Chat{Dialect: chantext.DingTalk, Send: n.send}
	return n, nil
}

// Sign is the documented signature of timestamp (Unix ms) with secret.
func Sign(timestampMS int64, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(timestampMS, 10) + "\n" + secret))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

type markdown struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// actionCard is the message with buttons: the same markdown text, and
// one button as singleTitle/singleURL or several as btns.
type actionCard struct {
	Title          string `json:"title"`
	Text           string `json:"text"`
	BtnOrientation string `json:"btnOrientation"` // "0": buttons stacked
	SingleTitle    string `json:"singleTitle,omitempty"`
	SingleURL      string `json:"singleURL,omitempty"`
	Btns           []btn  `json:"btns,omitempty"`
}

type btn struct {
	Title     string `json:"title"`
	ActionURL string `json:"actionURL"`
}

type request struct {
	MsgType    string      `json:"msgtype"`
	Markdown   *markdown   `json:"markdown,omitempty"`
	ActionCard *actionCard `json:"actionCard,omitempty"`
}

// requestOf is a markdown message, or an actionCard when the message has
// buttons (a markdown message has none).
func requestOf(m chantext.Message) request {
	if len(m.Buttons) == 0 {
		return request{MsgType: "markdown", Markdown: &markdown{Title: m.Title, Text: m.Body}}
	}
	c := &actionCard{Title: m.Title, Text: m.Body, BtnOrientation: "0"}
	if len(m.Buttons) == 1 {
		c.SingleTitle, c.SingleURL = m.Buttons[0].Label, m.Buttons[0].URL
	} else {
		for _, b := range m.Buttons {
			c.Btns = append(c.Btns, btn{Title: b.Label, ActionURL: b.URL})
		}
	}
	return request{MsgType: "actionCard", ActionCard: c}
}

func (n *Notifier) send(ctx context.Context, m chantext.Message) error {
	body, err := json.Marshal(requestOf(m))
	if err != nil {
		return err
	}
	return n.Poster.Post(ctx, func(now time.Time) (*http.Request, error) {
		u, _ := robot.WebhookURL("webhook_url", n.cfg.WebhookURL) // validated in New
		if n.cfg.Secret != "" {
			q := u.Query()
			ts := now.UnixMilli()
			q.Set("timestamp", strconv.FormatInt(ts, 10))
			q.Set("sign", Sign(ts, n.cfg.Secret)) // Encode url-encodes it, as documented
			u.RawQuery = q.Encode()
		}
		return robot.JSONRequest(ctx, u.String(), body)
	}, check)
}

// check judges an answer: HTTP errors first, then errcode.
var check = robot.CodeCheck("errcode", "errmsg", errSendTooFast)

var (
	_ notify.Notifier     = (*Notifier)(nil)
	_ notify.NoticePoster = (*Notifier)(nil)
)
