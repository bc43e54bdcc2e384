// Package logtext makes structured logs a person can read: a duration is
// written as text ("602ms", "1m30s"), never as the nanoseconds a JSON
// handler writes for a time.Duration.
package logtext

import (
	"io"
	"log/slog"
)

// Options are handler options at level whose ReplaceAttr writes every
// duration attribute, in groups too, as its text.
func Options(level slog.Leveler) *slog.HandlerOptions {
	return &slog.HandlerOptions{Level: level, ReplaceAttr: durationText}
}

// JSON is a JSON logger to w at level with durations as text.
func JSON(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, Options(level)))
}

// durationText rewrites a duration attribute as its text.
func durationText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}
