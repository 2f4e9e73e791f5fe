package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		stdout string
		stderr string
	}{
		{args: []string{"version"}, status: 0, stdout: "rpcgen "},
		{args: []string{"help"}, status: 0, stdout: "Usage: rpcgen"},
		{args: nil, status: 2, stderr: "Usage: rpcgen"},
		{args: []string{"frobnicate"}, status: 2, stderr: `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		if got := run(tt.args, &out, &errOut); got != tt.status {
			t.Errorf("run(%q) = %d, want %d", tt.args, got, tt.status)
		}
		if !strings.Contains(out.String(), tt.stdout) {
			t.Errorf("run(%q) stdout = %q, want it to contain %q", tt.args, out.String(), tt.stdout)
		}
		if !strings.Contains(errOut.String(), tt.stderr) {
			t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, errOut.String(), tt.stderr)
		}
	}
}
