package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wait bounds every wait of the suite.
const wait = 10 * time.Second

// transcript records every byte both peers write, in order, with the step
// the test was at, so that a failure shows the exchange that led to it.
type transcript struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	step string
}

// setStep names the step the test is at; it is printed with failures and
// marked in the transcript.
func (tr *transcript) setStep(step string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.step = step
	fmt.Fprintf(&tr.buf, "--- step: %s\n", step)
}

func (tr *transcript) current() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.step
}

func (tr *transcript) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.buf.String()
}

// sent returns every chunk written by the side labelled from, concatenated.
func (tr *transcript) sent(from string) string {
	var out strings.Builder
	for _, line := range strings.Split(tr.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, from+" "); ok {
			out.WriteString(rest)
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// recorder is the writing end of a pipe that logs what goes through it.
type recorder struct {
	tr    *transcript
	label string
	w     io.WriteCloser
}

func (r *recorder) Write(p []byte) (int, error) {
	r.tr.mu.Lock()
	// One line per chunk; a chunk holding several messages keeps its own
	// newlines, and each following message is marked with the sender again.
	text := strings.TrimSuffix(string(p), "\n")
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(&r.tr.buf, "%s %s\n", r.label, line)
	}
	if !strings.HasSuffix(string(p), "\n") {
		fmt.Fprintf(&r.tr.buf, "%s (chunk ended without a newline)\n", r.label)
	}
	r.tr.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) Close() error { return r.w.Close() }

// stream is one side's end of the pair of pipes.
type stream struct {
	io.Reader
	io.WriteCloser
	rc io.Closer
}

func (s stream) Close() error {
	return errors.Join(s.WriteCloser.Close(), s.rc.Close())
}

// The labels of the two directions in the transcript.
const (
	fromOurs = "rpcgen->sdk"
	fromSDK  = "sdk->rpcgen"
)

// pipes returns our side's stream and the SDK's transport, joined by two
// io.Pipes whose traffic tr records.
func pipes(tr *transcript) (io.ReadWriteCloser, *sdk.IOTransport) {
	toSDKr, toSDKw := io.Pipe()
	toOursr, toOursw := io.Pipe()
	ours := stream{Reader: toOursr, WriteCloser: &recorder{tr: tr, label: fromOurs, w: toSDKw}, rc: toOursr}
	theirs := &sdk.IOTransport{Reader: toSDKr, Writer: &recorder{tr: tr, label: fromSDK, w: toOursw}}
	return ours, theirs
}

// exchange starts a transcript for t and prints it if t fails, or always
// when INTEROP_TRANSCRIPT is set. peer names
// the implementation on the other side.
func exchange(t *testing.T, peer string) *transcript {
	tr := &transcript{}
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("INTEROP_TRANSCRIPT") != "" {
			t.Logf("peer: %s; failed at step %q; bytes exchanged (%s = written by our generated package, %s = written by the SDK):\n%s",
				peer, tr.current(), fromOurs, fromSDK, tr.String())
		}
	})
	return tr
}

// receive waits for a value from ch, failing the test after the bound.
func receive[T any](t *testing.T, tr *transcript, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("step %q: no %s within %s", tr.current(), what, wait)
		panic("unreachable")
	}
}

// bounded returns a context ending after the suite's bound.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// sdkVersion is the SDK release go.mod requires.
const sdkVersion = "v1.8.0"

// message is one JSON-RPC message of the transcript.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// find returns the messages written by from that match.
func find(t *testing.T, tr *transcript, from string, match func(message) bool) []message {
	t.Helper()
	var out []message
	for _, line := range strings.Split(tr.sent(from), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var m message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("step %q: %s wrote a line that is not a JSON object (%v): %s", tr.current(), from, err, line)
		}
		if match(m) {
			out = append(out, m)
		}
	}
	return out
}

// requestID returns the id of the one request written by from that matches.
func requestID(t *testing.T, tr *transcript, from string, match func(message) bool) string {
	t.Helper()
	found := find(t, tr, from, match)
	if len(found) != 1 {
		t.Fatalf("step %q: %d requests match, want 1", tr.current(), len(found))
	}
	return string(found[0].ID)
}

// gjson returns the raw JSON of member name of the object raw.
func gjson(t *testing.T, raw json.RawMessage, name string) string {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	return string(obj[name])
}
