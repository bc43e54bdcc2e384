package notifytest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The services as their documentation describes them. Signatures are
// recomputed here from the documented algorithm, independently of the
// adapters' code.

func hmacSHA256(key, msg string) []byte {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// strict decodes body into v refusing unknown fields: a field the service
// does not document would be ignored by it, so sending one is a bug.
func strict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func code200(field string, code int, msgField, msg string) *Answer {
	b, _ := json.Marshal(map[string]any{field: code, msgField: msg})
	return &Answer{Status: 200, Body: string(b)}
}

func within(ts, now time.Time, d time.Duration) bool { return ts.Sub(now) <= d && now.Sub(ts) <= d }

func jsonPost(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
}

// Feishu is the Feishu/Lark custom bot.
type Feishu struct{ Token, Sec string }

func (f Feishu) URL(base string) string { return base + "/open-apis/bot/v2/hook/" + f.Token }
func (f Feishu) Secret() string         { return f.Sec }
func (f Feishu) Markdown() bool         { return true }
func (f Feishu) Credential() string     { return f.Token }
func (f Feishu) OK() Answer {
	return Answer{Status: 200, Body: `{"StatusCode":0,"StatusMessage":"success","code":0,"data":{},"msg":"success"}`}
}
func (f Feishu) RateLimited() Answer {
	return *code200("code", 11232, "msg", "frequency limited")
}
func (f Feishu) Failure() Answer { return *code200("code", 19024, "msg", "Key Words Not Found") }

// Check verifies the body: timestamp within an hour, sign = base64 of
// HMAC-SHA256 keyed with timestamp+"\n"+secret over nothing, msg_type
// interactive, a card with a plain_text title, a known header template and
// markdown elements.
func (f Feishu) Check(r *http.Request, body []byte, now time.Time) (Seen, *Answer) {
	if !jsonPost(r) || r.URL.Path != "/open-apis/bot/v2/hook/"+f.Token {
		return Seen{}, code200("code", 19001, "msg", "param invalid: incoming webhook access token invalid")
	}
	var req struct {
		Timestamp string `json:"timestamp"`
		Sign      string `json:"sign"`
		MsgType   string `json:"msg_type"`
		Card      struct {
			Config struct {
				WideScreenMode bool `json:"wide_screen_mode"`
			} `json:"config"`
			Header struct {
				Title struct {
					Tag     string `json:"tag"`
					Content string `json:"content"`
				} `json:"title"`
				Template string `json:"template"`
			} `json:"header"`
			Elements []struct {
				Tag     string `json:"tag"`
				Content string `json:"content"`
				Actions []struct {
					Tag  string `json:"tag"`
					Text struct {
						Tag     string `json:"tag"`
						Content string `json:"content"`
					} `json:"text"`
					Type string `json:"type"`
					URL  string `json:"url"`
				} `json:"actions"`
			} `json:"elements"`
		} `json:"card"`
	}
	if err := strict(body, &req); err != nil {
		return Seen{}, code200("code", 9499, "msg", "Bad Request: "+err.Error())
	}
	if f.Sec != "" {
		ts, err := strconv.ParseInt(req.Timestamp, 10, 64)
		want := base64.StdEncoding.EncodeToString(hmacSHA256(req.Timestamp+"\n"+f.Sec, ""))
		if err != nil || !within(time.Unix(ts, 0), now, time.Hour) || req.Sign != want {
			return Seen{}, code200("code", 19021, "msg", "sign match fail or timestamp is not within one hour from current time")
		}
	}
	c := req.Card
	templates := "blue wathet turquoise green yellow orange red carmine violet purple indigo grey"
	if req.MsgType != "interactive" || c.Header.Title.Tag != "plain_text" || c.Header.Title.Content == "" ||
		!strings.Contains(" "+templates+" ", " "+c.Header.Template+" ") || len(c.Elements) == 0 {
		return Seen{}, code200("code", 11246, "msg", "create message content fail")
	}
	fail := func(why string) (Seen, *Answer) {
		return Seen{}, code200("code", 11246, "msg", "create message content fail: "+why)
	}
	shown := []string{c.Header.Title.Content}
	var buttons []Button
	for _, e := range c.Elements {
		switch {
		case e.Tag == "markdown" && e.Content != "" && e.Actions == nil:
			shown = append(shown, e.Content)
		case e.Tag == "action" && e.Content == "" && len(e.Actions) > 0:
			// A button that opens a link: tag button, a plain_text text,
			// a type of default / primary / danger, an absolute url.
			for _, a := range e.Actions {
				if a.Tag != "button" || a.Text.Tag != "plain_text" || a.Text.Content == "" ||
					!slices.Contains([]string{"default", "primary", "danger"}, a.Type) || !absoluteURL(a.URL) {
					return fail(fmt.Sprintf("button %+v", a))
				}
				buttons = append(buttons, Button{Label: a.Text.Content, URL: a.URL})
			}
		default:
			return fail("element " + e.Tag)
		}
	}
	return Seen{Text: strings.Join(shown, "\n"), Buttons: buttons}, nil
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsAny(s, " \n")
}

// DingTalk is the DingTalk custom robot.
type DingTalk struct{ Token, Sec string }

func (d DingTalk) URL(base string) string { return base + "/robot/send?access_token=" + d.Token }
func (d DingTalk) Secret() string         { return d.Sec }
func (d DingTalk) Markdown() bool         { return true }
func (d DingTalk) Credential() string     { return d.Token }
func (d DingTalk) OK() Answer             { return Answer{Status: 200, Body: `{"errcode":0,"errmsg":"ok"}`} }
func (d DingTalk) RateLimited() Answer {
	return *code200("errcode", 130101, "errmsg", "send too fast, exceed 20 times per minute")
}
func (d DingTalk) Failure() Answer {
	return *code200("errcode", 310000, "errmsg", "keywords not in content")
}

// Check verifies the query (access_token; timestamp in ms within an hour;
// sign url-encoded, = base64 HMAC-SHA256(secret, timestamp+"\n"+secret))
// and a markdown body with a title and a text.
func (d DingTalk) Check(r *http.Request, body []byte, now time.Time) (Seen, *Answer) {
	q := r.URL.Query()
	if !jsonPost(r) || r.URL.Path != "/robot/send" || q.Get("access_token") != d.Token {
		return Seen{}, code200("errcode", 300001, "errmsg", "token is not exist")
	}
	if d.Sec != "" {
		ts, err := strconv.ParseInt(q.Get("timestamp"), 10, 64)
		want := base64.StdEncoding.EncodeToString(hmacSHA256(d.Sec, q.Get("timestamp")+"\n"+d.Sec))
		encoded := strings.Contains("&"+r.URL.RawQuery+"&", "&sign="+url.QueryEscape(want)+"&")
		if err != nil || !within(time.UnixMilli(ts), now, time.Hour) || q.Get("sign") != want || !encoded {
			return Seen{}, code200("errcode", 310000, "errmsg", "sign not match")
		}
	}
	// A markdown message (title, text), or an actionCard: the same title
	// and markdown text with one button (singleTitle, singleURL) or
	// several (btns: title, actionURL), stacked or side by side.
	var req struct {
		MsgType  string `json:"msgtype"`
		Markdown *struct {
			Title string `json:"title"`
			Text  string `json:"text"`
		} `json:"markdown"`
		ActionCard *struct {
			Title          string `json:"title"`
			Text           string `json:"text"`
			BtnOrientation string `json:"btnOrientation"`
			SingleTitle    string `json:"singleTitle"`
			SingleURL      string `json:"singleURL"`
			Btns           []struct {
				Title     string `json:"title"`
				ActionURL string `json:"actionURL"`
			} `json:"btns"`
		} `json:"actionCard"`
	}
	missing := func(what string, err error) (Seen, *Answer) {
		return Seen{}, code200("errcode", 40035, "errmsg", fmt.Sprintf("缺少参数 %s (%v)", what, err))
	}
	if err := strict(body, &req); err != nil {
		return missing("msgtype", err)
	}
	var seen Seen
	var title string
	switch {
	case req.MsgType == "markdown" && req.Markdown != nil && req.ActionCard == nil:
		title, seen.Text = req.Markdown.Title, req.Markdown.Text
	case req.MsgType == "actionCard" && req.ActionCard != nil && req.Markdown == nil:
		c := req.ActionCard
		title, seen.Text = c.Title, c.Text
		if c.BtnOrientation != "" && c.BtnOrientation != "0" && c.BtnOrientation != "1" {
			return missing("btnOrientation", nil)
		}
		if c.SingleTitle != "" || c.SingleURL != "" {
			if c.SingleTitle == "" || !absoluteURL(c.SingleURL) {
				return missing("singleTitle/singleURL", nil)
			}
			seen.Buttons = []Button{{Label: c.SingleTitle, URL: c.SingleURL}}
		} else {
			if len(c.Btns) == 0 {
				return missing("btns", nil)
			}
			for _, b := range c.Btns {
				if b.Title == "" || !absoluteURL(b.ActionURL) {
					return missing("btns", nil)
				}
				seen.Buttons = append(seen.Buttons, Button{Label: b.Title, URL: b.ActionURL})
			}
		}
	default:
		return missing("markdown", nil)
	}
	if title == "" || seen.Text == "" {
		return missing("title/text", nil)
	}
	if !strings.HasPrefix(seen.Text, "### ") {
		return Seen{}, code200("errcode", 40035, "errmsg", "test: the text does not open with its heading")
	}
	return seen, nil
}

// WeCom is the WeCom group robot.
type WeCom struct{ Key string }

func (w WeCom) URL(base string) string { return base + "/cgi-bin/webhook/send?key=" + w.Key }
func (w WeCom) Secret() string         { return "" }
func (w WeCom) Markdown() bool         { return true }
func (w WeCom) Credential() string     { return w.Key }
func (w WeCom) OK() Answer             { return Answer{Status: 200, Body: `{"errcode":0,"errmsg":"ok"}`} }
func (w WeCom) RateLimited() Answer {
	return *code200("errcode", 45009, "errmsg", "api freq out of limit")
}
func (w WeCom) Failure() Answer { return *code200("errcode", 40008, "errmsg", "invalid message type") }

// Check verifies the key and a markdown body of at most 4096 bytes.
func (w WeCom) Check(r *http.Request, body []byte, _ time.Time) (Seen, *Answer) {
	if !jsonPost(r) || r.URL.Path != "/cgi-bin/webhook/send" || r.URL.Query().Get("key") != w.Key {
		return Seen{}, code200("errcode", 93000, "errmsg", "invalid webhook url")
	}
	var req struct {
		MsgType  string `json:"msgtype"`
		Markdown struct {
			Content string `json:"content"`
		} `json:"markdown"`
	}
	if err := strict(body, &req); err != nil || req.MsgType != "markdown" || req.Markdown.Content == "" {
		return Seen{}, code200("errcode", 40008, "errmsg", fmt.Sprintf("invalid message type (%v)", err))
	}
	if len(req.Markdown.Content) > 4096 {
		return Seen{}, code200("errcode", 40058, "errmsg", "markdown.content exceed max length 4096")
	}
	if !strings.HasPrefix(req.Markdown.Content, "### ") {
		return Seen{}, code200("errcode", 40008, "errmsg", "test: the content does not open with its heading")
	}
	// The markdown message has no buttons; a link [label](url) is its
	// clickable form (an escaped \[ is text, not a link).
	seen := Seen{Text: req.Markdown.Content}
	for _, m := range markdownLink.FindAllStringSubmatch(req.Markdown.Content, -1) {
		seen.Buttons = append(seen.Buttons, Button{Label: m[2], URL: m[3]})
	}
	return seen, nil
}

// markdownLink is a link in WeCom's markdown, not preceded by a backslash.
var markdownLink = regexp.MustCompile(`(^|[^\\])\[([^\]\\]+)\]\((https?://[^)\s]+)\)`)

// Webhook is a receiver of the generic signed webhook, verifying as
// infra/webhook's documentation tells receivers to.
type Webhook struct{ Sec string }

func (h Webhook) URL(base string) string { return base + "/hooks/gpusla" }
func (h Webhook) Secret() string         { return h.Sec }
func (h Webhook) Markdown() bool         { return false }
func (h Webhook) Credential() string     { return "" }
func (h Webhook) OK() Answer             { return Answer{Status: 204} }
func (h Webhook) RateLimited() Answer {
	return Answer{Status: 429, Header: http.Header{"Retry-After": {"2"}}, Body: `{"error":"slow down"}`}
}
func (h Webhook) Failure() Answer { return Answer{Status: 400, Body: `{"error":"unknown node"}`} }

// Check verifies the timestamp (five minutes), the signature over
// timestamp "." raw body, the event id, and the payload's shape.
func (h Webhook) Check(r *http.Request, body []byte, now time.Time) (Seen, *Answer) {
	unauthorized := &Answer{Status: 401, Body: `{"error":"bad signature"}`}
	if !jsonPost(r) || r.URL.Path != "/hooks/gpusla" {
		return Seen{}, &Answer{Status: 404}
	}
	ts := r.Header.Get("X-Gpusla-Timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || !within(time.Unix(sec, 0), now, 5*time.Minute) {
		return Seen{}, unauthorized
	}
	want := "sha256=" + hex.EncodeToString(hmacSHA256(h.Sec, ts+"."+string(body)))
	if !hmac.Equal([]byte(r.Header.Get("X-Gpusla-Signature")), []byte(want)) {
		return Seen{}, unauthorized
	}
	var p struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Text   string          `json:"text"`
		Alert  json.RawMessage `json:"alert"`
		Ticket json.RawMessage `json:"ticket"`
		Notice json.RawMessage `json:"notice"`
	}
	bad := func(why string) (Seen, *Answer) { return Seen{}, &Answer{Status: 422, Body: `{"error":"` + why + `"}`} }
	if err := strict(body, &p); err != nil {
		return bad("payload: " + err.Error())
	}
	if id := r.Header.Get("X-Gpusla-Event"); len(id) != 32 || id != p.ID {
		return bad("event id")
	}
	switch {
	case p.Type == "alert" && p.Alert != nil && p.Ticket == nil:
		var m map[string]any
		if json.Unmarshal(p.Alert, &m) != nil || m["node"] == nil || m["incident_id"] == nil || m["kind"] == nil {
			return bad("alert object")
		}
		seen := Seen{Text: p.Text + "\n" + fmt.Sprint(m["detail"])}
		if u, ok := m["replacement_url"]; ok {
			s, _ := u.(string)
			if !absoluteURL(s) {
				return bad("alert.replacement_url")
			}
			seen.Buttons = []Button{{Label: "replacement_url", URL: s}}
		}
		return seen, nil
	case p.Type == "notice" && p.Notice != nil && p.Alert == nil && p.Ticket == nil:
		var m struct {
			Kind     string `json:"kind"`
			Contract string `json:"contract"`
			Title    string `json:"title"`
			Lines    [][]struct {
				Text string `json:"text"`
			} `json:"lines"`
		}
		if json.Unmarshal(p.Notice, &m) != nil || m.Kind == "" || m.Contract == "" || m.Title == "" || len(m.Lines) == 0 {
			return bad("notice object")
		}
		return Seen{Text: p.Text}, nil
	case p.Type == "ticket" && p.Ticket != nil && p.Alert == nil:
		var m map[string]any
		if json.Unmarshal(p.Ticket, &m) != nil || m["ticket"] == nil || m["node"] == nil {
			return bad("ticket object")
		}
		return Seen{Text: p.Text}, nil
	}
	return bad("type")
}
