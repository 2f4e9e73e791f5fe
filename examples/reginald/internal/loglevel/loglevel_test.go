package loglevel

import (
	"log/slog"
	"testing"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

func TestLevelValue(t *testing.T) {
	for in, want := range map[reginald.LogLevel]slog.Level{
		"TRACE": -8, "debug": slog.LevelDebug, "Info": slog.LevelInfo, "WARN": slog.LevelWarn, "error": slog.LevelError,
		"INFO+2": 2, "ERROR-8": slog.LevelInfo, "trace-1": -9,
	} {
		if got, ok := Value(in); !ok || got != want {
			t.Errorf("Value(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []reginald.LogLevel{"", "LOUD", "INFO+", "INFO+x", "+2"} {
		if _, ok := Value(in); ok {
			t.Errorf("Value(%q) reads it", in)
		}
	}
}
