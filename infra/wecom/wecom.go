// Package wecom delivers alerts and ticket messages to a WeCom (企业微信)
// group through a group robot's webhook, as its documentation describes:
// POST https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…, a JSON body
// of msgtype "markdown" with markdown.content (at most 4096 bytes). The key
// in the URL is the robot's only credential (there is no signing). The robot
// answers HTTP 200 with errcode 0, or a non-zero errcode on failure (45009:
// over its 20 messages a minute), so this package limits itself to 20 a
// minute and waits out 45009 and HTTP 429 with backoff.
package wecom

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/notify/robot"
)

// Limit is the robot's documented quota: "每个机器人发送的消息不能超过20条/分
// 钟" (群机器人配置说明, https://developer.work.weixin.qq.com/document/path/91770);
// past it the robot answers errcode 45009 "api freq out of limit" (全局错误
// 码, https://developer.work.weixin.qq.com/document/path/90313).
var Limit = robot.Limit{N: 20, Per: time.Minute}

// errFreqOutOfLimit is WeCom's "api freq out of limit".
const errFreqOutOfLimit = 45009

// Config is one robot.
type Config struct {
	// WebhookURL is the robot's URL with its key.
	WebhookURL string `yaml:"webhook_url" json:"webhook_url"`
}

// Validate names the field that is wrong; prefix is where the config sits.
func (c Config) Validate(prefix string) error {
	u, err := robot.WebhookURL(prefix+".webhook_url", c.WebhookURL)
	if err != nil {
		return err
	}
	if u.Query().Get("key") == "" {
		return fmt.Errorf("%s.webhook_url: has no key parameter", prefix)
	}
	return nil
}

// Notifier posts to one WeCom group robot.
type Notifier struct {
	cfg Config
	// Poster sends with the rate limit and retries; tests set its clock,
	// sleep and client.
	Poster     *robot.Poster
	robot.Chat // Notify and NotifyTicket
}

// New returns a notifier for a valid config.
func New(cfg Config) (*Notifier, error) {
	if err := cfg.Validate("wecom"); err != nil {
		return nil, err
	}
	n := &Notifier{cfg: cfg, Poster: robot.New("wecom", Limit)}
	n.Poster.Secrets = notify.URLSecrets(cfg.WebhookURL)
	n.Chat = robot.Chat{Dialect: chantext.WeCom, Send: n.send}
	return n, nil
}

type request struct {
	MsgType  string `json:"msgtype"`
	Markdown struct {
		Content string `json:"content"`
	} `json:"markdown"`
}

func (n *Notifier) send(ctx context.Context, m chantext.Message) error {
	r := request{MsgType: "markdown"}
	r.Markdown.Content = m.Body
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return n.Poster.Post(ctx, func(time.Time) (*http.Request, error) {
		return robot.JSONRequest(ctx, n.cfg.WebhookURL, body)
	}, check)
}

// check judges an answer: HTTP errors first, then errcode.
var check = robot.CodeCheck("errcode", "errmsg", errFreqOutOfLimit)

var (
	_ notify.Notifier     = (*Notifier)(nil)
	_ notify.NoticePoster = (*Notifier)(nil)
)
