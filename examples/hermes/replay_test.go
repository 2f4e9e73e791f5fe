package hermes_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// A replay script plays an extension by replaying the exact messages a
// real one sends (testdata/upstream/*.replay). Each line is one step:
//
//	< method    wait for a request or notification named method
//	< 7         wait for the response to the request with id 7
//	> {...}     send this JSON body, byte for byte, framed as the real
//	            extension frames it ("Content-Length: N\r\n\r\n")
//
// Blank lines and lines starting with # are comments. Every message the
// host sends is written to stderr as "replay: got <body>", which the host
// logs; messages that arrive while a step waits for another are kept for
// the steps after it, so the script does not depend on how the host
// orders what it sends. The peer exits once the script ends.

// replayMode makes the test binary run the script at path (see child).
func replayMode(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		panic(err)
	}
	return "replay:" + abs
}

// runReplay runs the script at path over stdin and stdout.
func runReplay(path string) int {
	script, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "replay: %v\n", err)
		return 1
	}
	in := framing.ContentLength.NewReader(os.Stdin, framing.Limits{})
	out := bufio.NewWriter(os.Stdout)
	var early []replayed
	for _, line := range strings.Split(string(script), "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			body := line[2:]
			fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
			if err := out.Flush(); err != nil {
				fmt.Fprintf(os.Stderr, "replay: writing: %v\n", err)
				return 1
			}
		case strings.HasPrefix(line, "< "):
			if err := awaitMessage(in, &early, strings.TrimSpace(line[2:])); err != nil {
				fmt.Fprintf(os.Stderr, "replay: waiting for %s: %v\n", line[2:], err)
				return 1
			}
		}
	}
	return 0
}

// replayed is a message the host sent: its method, or the id of the
// request it answers.
type replayed struct {
	Method *string          `json:"method"`
	ID     *json.RawMessage `json:"id"`
}

// matches reports whether m is what a step waits for: a method name, or
// the id of a response.
func (m replayed) matches(want string) bool {
	if m.Method != nil {
		return *m.Method == want
	}
	_, err := strconv.Atoi(want)
	return err == nil && m.ID != nil && string(*m.ID) == want
}

// awaitMessage takes the first message of early that matches want, or
// reads messages until one does, keeping the others in early.
func awaitMessage(in framing.Reader, early *[]replayed, want string) error {
	for i, m := range *early {
		if m.matches(want) {
			*early = append((*early)[:i], (*early)[i+1:]...)
			return nil
		}
	}
	for {
		body, err := in.Read()
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "replay: got %s\n", body)
		var m replayed
		if err := json.Unmarshal(body, &m); err != nil {
			return err
		}
		if m.matches(want) {
			return nil
		}
		*early = append(*early, m)
	}
}

// received returns the bodies of the messages the replayed extension got,
// in order, from the host's log.
func received(t *testing.T, hostLog string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(messages(hostLog), "\n") {
		if body, ok := strings.CutPrefix(line, "replay: got "); ok {
			got = append(got, body)
		}
	}
	return got
}

// findReceived returns the first body the extension got that contains
// part, failing the test when there is none.
func findReceived(t *testing.T, hostLog, part string) string {
	t.Helper()
	for _, body := range received(t, hostLog) {
		if strings.Contains(body, part) {
			return body
		}
	}
	t.Fatalf("the extension got no message containing %s; host log:\n%s", part, hostLog)
	return ""
}
