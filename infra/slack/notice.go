package slack

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/infra/notify"
)

// Mrkdwn is a notice in Slack's mrkdwn: the title in bold, then its lines,
// strong spans bold and code spans as code. Every span's text is escaped
// (esc): providers, contracts and node ids come from users.
func Mrkdwn(n notify.Notice) string {
	var b strings.Builder
	b.WriteString("*" + esc(n.Title) + "*")
	for _, l := range n.Lines {
		b.WriteString("\n")
		for _, s := range l {
			switch {
			case s.Strong:
				b.WriteString("*" + esc(s.Text) + "*")
			case s.Code:
				b.WriteString("`" + esc(strings.ReplaceAll(s.Text, "`", "ˋ")) + "`")
			default:
				b.WriteString(esc(s.Text))
			}
		}
	}
	return b.String()
}

// PostNotice posts a notice to the channel. With a bot token, a notice's
// file (the month's PDF) is shared with the text as its comment
// (files.getUploadURLExternal, upload, files.completeUploadExternal); an
// incoming webhook cannot carry files, so through one the text alone is
// posted, and its lines say where the files are.
func (n *Notifier) PostNotice(ctx context.Context, nt notify.Notice) error {
	text := Mrkdwn(nt)
	var err error
	switch {
	case n.client != nil && nt.File != nil && len(nt.File.Data) > 0:
		f := nt.File
		_, err = n.client.UploadFileContext(ctx, slackapi.UploadFileParameters{Reader: bytes.NewReader(f.Data), FileSize: len(f.Data),
			Filename: f.Name, Title: f.Title, InitialComment: text, Channel: n.cfg.Channel})
	case n.client != nil:
		_, _, err = n.client.PostMessageContext(ctx, n.cfg.Channel, slackapi.MsgOptionText(text, false))
	default:
		err = slackapi.PostWebhookContext(ctx, n.cfg.WebhookURL, &slackapi.WebhookMessage{Text: text})
	}
	if err != nil {
		return n.redact(fmt.Errorf("slack: post %s notice: %w", nt.Kind, err))
	}
	return nil
}

// PostNotice writes the notice as text, with its file's name and size.
func (c *Console) PostNotice(_ context.Context, nt notify.Notice) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := nt.PlainText()
	if nt.File != nil {
		text += fmt.Sprintf("\n(%s, %d bytes)", nt.File.Name, len(nt.File.Data))
	}
	_, err := fmt.Fprintf(c.W, "NOTICE %s\n", text)
	return err
}

var (
	_ notify.NoticePoster = (*Notifier)(nil)
	_ notify.NoticePoster = (*Console)(nil)
)
