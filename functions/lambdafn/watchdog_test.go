package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
)

func TestParseTick(t *testing.T) {
	tests := []struct {
		name, event string
		want        time.Time
		wantErr     string
	}{
		{"scheduler input", `{"source":"gpusla.scheduler","schedule":"watchdog","scheduled_time":"2026-11-30T12:01:00Z"}`, time.Date(2026, 11, 30, 12, 1, 0, 0, time.UTC), ""},
		{"eventbridge rule", `{"version":"0","id":"x","detail-type":"Scheduled Event","source":"aws.events","time":"2026-11-30T12:02:00Z","resources":["arn:aws:events:us-east-1:1:rule/r"],"detail":{}}`, time.Date(2026, 11, 30, 12, 2, 0, 0, time.UTC), ""},
		{"scheduler without time", `{"source":"gpusla.scheduler"}`, time.Time{}, ""},
		{"empty object", `{}`, time.Time{}, `no "source"`},
		{"other source", `{"source":"aws.s3"}`, time.Time{}, `"aws.s3" is not a schedule`},
		{"http event", `{"version":"2.0","rawPath":"/v1/batches"}`, time.Time{}, `no "source"`},
		{"bad time", `{"source":"gpusla.scheduler","scheduled_time":"noon"}`, time.Time{}, `scheduled time "noon"`},
		{"not json", `[1,2]`, time.Time{}, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTick([]byte(tt.event))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestHandlerRunsWatchdogOnlyForTicks(t *testing.T) {
	runs := 0
	wd := func(context.Context) (app.WatchdogResult, error) {
		runs++
		return app.WatchdogResult{Nodes: 3}, nil
	}
	h := Watchdog(wd, slog.New(slog.NewTextHandler(io.Discard, nil)))
	res, err := h(context.Background(), json.RawMessage(`{"source":"gpusla.scheduler"}`))
	if err != nil || res.Nodes != 3 || runs != 1 {
		t.Fatalf("tick: %+v %v runs=%d", res, err, runs)
	}
	if _, err := h(context.Background(), json.RawMessage(`{"source":"nope"}`)); err == nil || runs != 1 {
		t.Fatalf("non-tick: err %v runs=%d; want an error and no run", err, runs)
	}
	failing := Watchdog(func(context.Context) (app.WatchdogResult, error) {
		return app.WatchdogResult{}, errors.New("store down")
	},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := failing(context.Background(), json.RawMessage(`{"source":"gpusla.scheduler"}`)); err == nil {
		t.Fatal("a failed run must fail the invocation (Lambda's error metric)")
	}
}
