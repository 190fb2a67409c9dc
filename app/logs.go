package app

import (
	"io"
	"log/slog"
	"os"
	"time"

	"golang.org/x/term"
)

// newLogger is the process's log on w: one JSON object a line for
// machines, or lines for a person to read (the time of day, the level, the
// message, then key=value); format "" picks the latter when w is a
// terminal.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	if format == "" {
		format = "json"
		if isTerminal(w) {
			format = "text"
		}
	}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime {
				return slog.String(slog.TimeKey, a.Value.Time().Format(time.TimeOnly+".000"))
			}
			return a
		}}))
}

// isTerminal tells whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
