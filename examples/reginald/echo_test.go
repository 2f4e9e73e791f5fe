package reginald_test

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The plugin's errors quote what the host sent truncated.
func TestPluginErrorsTruncateHostValues(t *testing.T) {
	s := start(t, nil)
	s.handshake(t)
	huge := strings.Repeat("x", 1<<20)
	short := func(what string, err error) {
		t.Helper()
		if e := wantCode(t, err, jsonrpc.CodeInvalidParams); len(e.Message) > 2*jsonrpc.MaxEchoBytes {
			t.Errorf("%s: %d bytes of error message", what, len(e.Message))
		}
	}
	_, err := s.plugin.Initialize(ctx(t), &reginald.InitializeParams{
		Config:  []reginald.ConfigEntry{{Key: huge, Value: raw(true), Type: reginald.ValueTypeBool}},
		Logging: reginald.LoggingConfig{Enabled: true, Level: reginald.LogLevelInfo},
	})
	short("an unknown config key", err)
	_, err = s.plugin.Initialize(ctx(t), &reginald.InitializeParams{
		Logging: reginald.LoggingConfig{Enabled: true, Level: reginald.LogLevel(huge)},
	})
	short("an unknown log level", err)
	s.initialize(t, reginald.LogLevelWarn)
	_, err = s.plugin.SetupCommand(ctx(t), &reginald.SetupCommandParams{Name: huge, Args: []string{}})
	short("an unknown command", err)
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Name: huge})
	short("a command not set up", err)
	_, err = s.plugin.ValidateTask(ctx(t), &reginald.ValidateTaskParams{Type: huge})
	short("an unknown task type", err)
}
