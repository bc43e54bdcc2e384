package slack

import (
	"bytes"
	"context"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/infra/notify"
)

// PostReport shares a monthly report file in the channel with its summary
// as the comment (bot token: files.getUploadURLExternal, upload,
// files.completeUploadExternal). An incoming webhook cannot carry files,
// so through one only the summary is posted, saying where the files are.
//
// The summary's markup is bold and code only, and its values (providers,
// contracts, node ids) come from users, so all of it is escaped.
func (n *Notifier) PostReport(ctx context.Context, f notify.ReportFile) error {
	if n.client == nil {
		text := esc(f.Summary) + "\n_(" + f.Name + " is stored with the other formats; a webhook cannot attach files — use a bot token to get it here.)_"
		if err := slackapi.PostWebhookContext(ctx, n.cfg.WebhookURL, &slackapi.WebhookMessage{Text: text}); err != nil {
			return n.redact(fmt.Errorf("slack: post report summary: %w", err))
		}
		return nil
	}
	if len(f.Data) == 0 {
		return fmt.Errorf("slack: report %s is empty", f.Name)
	}
	_, err := n.client.UploadFileContext(ctx, slackapi.UploadFileParameters{Reader: bytes.NewReader(f.Data), FileSize: len(f.Data),
		Filename: f.Name, Title: f.Title, InitialComment: esc(f.Summary), Channel: n.cfg.Channel})
	if err != nil {
		return n.redact(fmt.Errorf("slack: upload %s: %w", f.Name, err))
	}
	return nil
}

// PostText posts a plain message (claim-deadline reminders), escaped: its
// markup is bold, code and emoji only, and it names contracts and providers.
func (n *Notifier) PostText(ctx context.Context, text string) error {
	var err error
	text = esc(text)
	if n.client == nil {
		err = slackapi.PostWebhookContext(ctx, n.cfg.WebhookURL, &slackapi.WebhookMessage{Text: text})
	} else {
		_, _, err = n.client.PostMessageContext(ctx, n.cfg.Channel, slackapi.MsgOptionText(text, false))
	}
	if err != nil {
		return n.redact(fmt.Errorf("slack: post message: %w", err))
	}
	return nil
}

// PostReport writes the summary and the file's name and size.
func (c *Console) PostReport(_ context.Context, f notify.ReportFile) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := fmt.Fprintf(c.W, "REPORT %s (%d bytes)\n%s\n", f.Name, len(f.Data), f.Summary)
	return err
}

// PostText writes the text.
func (c *Console) PostText(_ context.Context, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := fmt.Fprintf(c.W, "NOTICE %s\n", text)
	return err
}

var (
	_ notify.ReportPoster = (*Notifier)(nil)
	_ notify.ReportPoster = (*Console)(nil)
)
