// Package loglevel reads Reginald's log levels, for the example host and
// plugin alike.
package loglevel

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

// names places the named levels on slog's scale, TRACE below DEBUG.
var names = map[string]slog.Level{
	"TRACE": slog.LevelDebug - 4, "DEBUG": slog.LevelDebug, "INFO": slog.LevelInfo,
	"WARN": slog.LevelWarn, "ERROR": slog.LevelError,
}

// Value reads a level as Reginald does: a name in any case, optionally
// followed by a signed offset ("INFO+2", "error-8" for INFO). It reports
// false for a value it cannot read.
func Value(l reginald.LogLevel) (slog.Level, bool) {
	name, offset := string(l), 0
	if i := strings.IndexAny(name, "+-"); i >= 0 {
		n, err := strconv.Atoi(name[i:])
		if err != nil {
			return 0, false
		}
		name, offset = name[:i], n
	}
	base, ok := names[strings.ToUpper(name)]
	return base + slog.Level(offset), ok
}
