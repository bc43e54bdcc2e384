package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
)

// Environment of the local reports and status page.
const (
	envStatusToken  = "GPUSLA_STATUS_TOKEN" // overrides <data>/status.token
	envReportDelay  = "GPUSLA_REPORT_DELAY" // e.g. 6h (default app.DefaultReportDelay)
	statusTokenFile = "status.token"
	reportsDir      = "reports"
)

// serveReports is the local side of the monthly reports: reports stored in
// <data>/reports, the status page on the API's mux, the job on serve's cron.
type serveReports struct {
	job *app.ReportJob
	log *slog.Logger
}

// setupReports mounts the status page (token from GPUSLA_STATUS_TOKEN or
// <data>/status.token, created 0600 on first start) and prepares the job.
func setupReports(data string, store store.Store, tickets *ticketDesk, api *httpapi.API, notifier notify.Notifier, log *slog.Logger) (*serveReports, error) {
	blobs, err := blob.NewDir(filepath.Join(data, reportsDir))
	if err != nil {
		return nil, fmt.Errorf("reports folder: %w", err)
	}
	token := os.Getenv(envStatusToken)
	if token == "" {
		if token, err = loadOrCreateToken(filepath.Join(data, statusTokenFile)); err != nil {
			return nil, err
		}
	}
	statuspage.New(statuspage.Config{Nodes: store, Tickets: tickets.desk, Reports: blobs, Token: token, Log: log}).Register(api.Mux())
	log.Info("status page", "path", statuspage.PathStatus, "token", "in "+filepath.Join(data, statusTokenFile)+" (open "+statuspage.PathStatus+"?token=…)")
	delay := app.DefaultReportDelay
	if v := os.Getenv(envReportDelay); v != "" {
		if delay, err = time.ParseDuration(v); err != nil || delay < 0 {
			return nil, fmt.Errorf("%s=%q: want a duration such as 6h", envReportDelay, v)
		}
	}
	poster, _ := notifier.(notify.ReportPoster)
	return &serveReports{log: log, job: &app.ReportJob{Desk: tickets.desk, Blobs: blobs, Poster: poster, Renderer: bundle.Renderer{},
		Delay: delay, Log: log}}, nil
}

// schedule runs the job hourly (it does only what is due) and once now.
func (s *serveReports) schedule(ctx context.Context, sched *cron.Cron) error {
	run := func() {
		if _, err := s.job.Run(context.WithoutCancel(ctx), time.Now().UTC()); err != nil {
			s.log.Error("monthly reports", "err", err)
		}
	}
	if _, err := sched.AddFunc("@every 1h", run); err != nil {
		return err
	}
	go run()
	return nil
}

func loadOrCreateToken(path string) (string, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		tok := hex.EncodeToString(b)
		if err := writeFileAtomic(path, []byte(tok+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("status token: %w", err)
		}
		return tok, nil
	}
	if err != nil {
		return "", fmt.Errorf("status token: %w", err)
	}
	tok := strings.TrimSpace(string(raw))
	if len(tok) < 16 {
		return "", fmt.Errorf("status token %s: shorter than 16 characters", path)
	}
	return tok, nil
}
