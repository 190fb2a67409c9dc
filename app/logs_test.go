package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"regexp"
	"testing"
)

// The log is JSON unless it goes to a terminal or LOG_FORMAT says text;
// a text line reads as the time of day, the level, the message, then the
// attributes.
func TestLoggerFormats(t *testing.T) {
	for _, c := range []struct {
		format string
		json   bool
	}{{"", true}, {"json", true}, {"text", false}} {
		var b bytes.Buffer
		newLogger(&b, c.format, slog.LevelInfo).Info("listening", slog.String("addr", ":8080"))
		var v map[string]any
		isJSON := json.Unmarshal(b.Bytes(), &v) == nil
		if isJSON != c.json {
			t.Errorf("LOG_FORMAT=%q: %q", c.format, b.String())
		}
		if !c.json && !regexp.MustCompile(`^time=\d\d:\d\d:\d\d\.\d\d\d level=INFO msg=listening addr=:8080\n$`).Match(b.Bytes()) {
			t.Errorf("text line %q", b.String())
		}
	}
}
