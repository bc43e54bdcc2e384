package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// What a redacted error keeps and loses, on the errors the channels meet:
// Go's transport error quoting the URL, slack-go's wrapping of it, an
// answer's body quoting the request back, a token in the text.
func TestRedact(t *testing.T) {
	hook := "https://hooks.slack.com/services/T0001/B0002/XyZsecretWebhookToken42"
	ding := "https://oapi.dingtalk.com/robot/send?access_token=0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		name    string
		err     error
		secrets []string
		want    string
		gone    []string
	}{
		{"url.Error", fmt.Errorf("failed to post webhook: %w", &url.Error{Op: "Post", URL: hook, Err: errors.New("dial tcp 10.0.0.1:443: connect: connection refused")}),
			URLSecrets(hook), `failed to post webhook: Post "https://hooks.slack.com/[withheld]": dial tcp 10.0.0.1:443: connect: connection refused`,
			[]string{"XyZsecretWebhookToken42", "/services/"}},
		{"query credential", &url.Error{Op: "Post", URL: ding, Err: context.DeadlineExceeded},
			URLSecrets(ding), `Post "https://oapi.dingtalk.com/[withheld]": context deadline exceeded`, []string{"0123456789abcdef"}},
		{"body quoting the token without its URL", errors.New("HTTP 403: token XyZsecretWebhookToken42 is revoked; access_token=abc123"),
			URLSecrets(hook), "HTTP 403: token [withheld] is revoked; access_token=[withheld]", []string{"XyZsecret", "abc123"}},
		{"escaped secret", errors.New("sign=SEC%2Bab%2Fcd%3D%3Dxx bad"), []string{"SEC+ab/cd==xx"}, "sign=[withheld] bad", []string{"SEC"}},
		{"token shapes", errors.New("invalid_auth for xoxb-1234-5678-abcdEFGH; key gsk_live_0a1b2c; Authorization: Bearer gsk_x"),
			nil, "invalid_auth for [withheld]; key [withheld]; Authorization: Bearer [withheld]", []string{"xoxb-", "gsk_"}},
		{"a host alone stays", errors.New(`Post "https://hooks.slack.com": EOF`), nil, `Post "https://hooks.slack.com": EOF`, nil},
	} {
		got := Redact(c.err, c.secrets...)
		if got.Error() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		for _, g := range c.gone {
			if strings.Contains(got.Error(), g) {
				t.Errorf("%s: %q survived: %s", c.name, g, got)
			}
		}
	}
	// errors.Is still sees a deadline; errors.As cannot dig the URL out.
	err := Redact(fmt.Errorf("slack: %w", &url.Error{Op: "Post", URL: hook, Err: context.DeadlineExceeded}))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("errors.Is lost the deadline")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		t.Errorf("errors.As reached the unredacted error %v", ue)
	}
	if Redact(nil) != nil {
		t.Error("Redact(nil) is not nil")
	}
	if s := RedactText("channel ops: 500", "ops"); s != "channel ops: 500" {
		t.Errorf("a short secret blanked ordinary text: %s", s)
	}
}
