package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

// The host logs a record at the level the plugin sent, and one whose level
// it cannot read at INFO, keeping that level.
func TestLogKeepsTheLevel(t *testing.T) {
	var buf bytes.Buffer
	h := &host{logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug - 4}))}
	for _, l := range []reginald.LogLevel{"info+2", "Warn", "chatty"} {
		if err := h.Log(context.Background(), &reginald.LogParams{Level: l, Msg: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		_, rest, _ := strings.Cut(line, " level=")
		got = append(got, "level="+rest)
	}
	want := []string{"level=INFO+2 msg=m", "level=WARN msg=m", "level=INFO msg=m plugin_level=chatty"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
