package lsp_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// wait bounds each run of the client.
const wait = 20 * time.Second

// bin holds the example binaries built by TestMain.
var bin struct{ client, server string }

func TestMain(m *testing.M) {
	exampletest.Main(m, map[string]*string{"./client": &bin.client, "./server": &bin.server})
}

// The example client starts the example server, opens a note and prints
// the hover at a position: a word's count (positions in UTF-16 code
// units), or "no hover" between words; both programs exit 0 and log no
// warning.
func TestClientHoversNotes(t *testing.T) {
	note := filepath.Join(t.TempDir(), "today.notes")
	if err := os.WriteFile(note, []byte("milk and eggs\ncall Zoë TODO soon\n𝄞 milk again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ at, want string }{
		{"2:4", "**milk** occurs 2 times"},
		{"1:7", "**Zoë** occurs 1 time"},
		{"0:4", "no hover"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		cmd := exec.CommandContext(ctx, bin.client, "-file", note, "-at", c.at, "--", bin.server)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		if got := strings.TrimSpace(stdout.String()); err != nil || got != c.want {
			t.Errorf("hover at %s: %q, %v; want %q\n--- stderr ---\n%s", c.at, got, err, c.want, stderr.String())
		}
		if s := stderr.String(); strings.Contains(s, "level=WARN") || strings.Contains(s, "level=ERROR") {
			t.Errorf("hover at %s: a warning or error was logged:\n%s", c.at, s)
		}
	}
}

// The client reports usage errors with status 2.
func TestClientUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-file", "x"}, {"-file", "x", "-at", "1:2"}, {"-at", "nonsense", "--", "server"}} {
		err := exec.Command(bin.client, args...).Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("client %q: %v, want exit status 2", args, err)
		}
	}
}
