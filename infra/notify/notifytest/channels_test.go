package notifytest_test

import (
	"testing"

	"github.com/gpusla/gpusla/infra/dingtalk"
	"github.com/gpusla/gpusla/infra/feishu"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/notifytest"
	"github.com/gpusla/gpusla/infra/notify/robot"
	"github.com/gpusla/gpusla/infra/webhook"
	"github.com/gpusla/gpusla/infra/wecom"
)

func TestFeishu(t *testing.T) {
	notifytest.Run(t, notifytest.Case{
		Service: notifytest.Feishu{Token: "0f6e6f3c-8d2a-4c55-9e0b-4b1f6a3d2c11", Sec: "fs-sign-secret"},
		New: func(url, secret string) (notify.Notifier, *robot.Poster, error) {
			n, err := feishu.New(feishu.Config{WebhookURL: url, Secret: secret})
			if err != nil {
				return nil, nil, err
			}
			return n, n.Poster, nil
		},
		Limits: feishu.Limits,
	})
}

func TestDingTalk(t *testing.T) {
	notifytest.Run(t, notifytest.Case{
		Service: notifytest.DingTalk{Token: "6a1b2c3d4e5f60718293a4b5c6d7e8f9", Sec: "SEC7d3f0c1b9a8e7d6c5b4a39281706f5e4d3c2b1a0"},
		New: func(url, secret string) (notify.Notifier, *robot.Poster, error) {
			n, err := dingtalk.New(dingtalk.Config{WebhookURL: url, Secret: secret})
			if err != nil {
				return nil, nil, err
			}
			return n, n.Poster, nil
		},
		Limits: []robot.Limit{dingtalk.Limit},
	})
}

func TestWeCom(t *testing.T) {
	notifytest.Run(t, notifytest.Case{
		Service: notifytest.WeCom{Key: "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"},
		New: func(url, _ string) (notify.Notifier, *robot.Poster, error) {
			n, err := wecom.New(wecom.Config{WebhookURL: url})
			if err != nil {
				return nil, nil, err
			}
			return n, n.Poster, nil
		},
		Limits: []robot.Limit{wecom.Limit},
	})
}

func TestWebhook(t *testing.T) {
	notifytest.Run(t, notifytest.Case{
		Service: notifytest.Webhook{Sec: "whsec-2b7e151628aed2a6abf71588"},
		New: func(url, secret string) (notify.Notifier, *robot.Poster, error) {
			n, err := webhook.New(webhook.Config{URL: url, Secret: secret})
			if err != nil {
				return nil, nil, err
			}
			return n, n.Poster, nil
		},
	})
}
