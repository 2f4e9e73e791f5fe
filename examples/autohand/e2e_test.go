// End-to-end tests of the Autohand RPC examples: the generated client role
// drives the scripted agent, spawned as a subprocess speaking
// newline-delimited JSON-RPC on its stdin and stdout, the protocol's real
// transport.
package autohand_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/exampletest"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// wait bounds every wait of the tests, so a bug fails instead of hanging.
const wait = 10 * time.Second

var agentBin, clientBin string

func TestMain(m *testing.M) {
	if script := os.Getenv(replayEnv); script != "" {
		os.Exit(replayCLI(script)) // this binary is the agent of a client test
	}
	exampletest.Main(m, map[string]*string{"./agent": &agentBin, "./client": &clientBin})
}

// event is a notification the client received.
type event struct {
	method string
	params json.RawMessage
}

// recorder is the client role: it records every notification; the tests
// answer the agent's requests themselves.
type recorder struct {
	autohand.UnimplementedClient
	mu      sync.Mutex
	events  []event
	changed chan struct{} // closed and replaced on every event
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) record(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			r.mu.Lock()
			r.events = append(r.events, event{req.Method, append(json.RawMessage{}, req.Params...)})
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
		}
		return next.Handle(ctx, req)
	})
}

// session is one spawned agent and the client connected to it.
type session struct {
	t     *testing.T
	rec   *recorder
	conn  *jsonrpc.Conn
	agent autohand.Agent
	ctx   context.Context
}

// start spawns the agent with args and connects the client.
func start(t *testing.T, opts jsonrpc.Options, args ...string) *session {
	t.Helper()
	args = append([]string{"-delay", "1ms", "-workspace", "/work/app"}, args...)
	proc, err := transport.Spawn(exec.Command(agentBin, args...), transport.SpawnOptions{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatalf("spawn agent: %v", err)
	}
	rec := newRecorder()
	opts.Middleware = append(opts.Middleware, rec.record)
	conn, agent := autohand.ConnectClient(proc, rec, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	t.Cleanup(func() {
		cancel()
		conn.Close()
		sctx, scancel := context.WithTimeout(context.Background(), wait)
		defer scancel()
		if err := proc.Shutdown(sctx); err != nil {
			t.Errorf("agent did not exit cleanly: %v", err)
		}
	})
	return &session{t: t, rec: rec, conn: conn, agent: agent, ctx: ctx}
}

// next waits for the first notification of method at or after index from.
func (s *session) next(method string, from int) event {
	s.t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		s.rec.mu.Lock()
		for i := from; i < len(s.rec.events); i++ {
			if s.rec.events[i].method == method {
				ev := s.rec.events[i]
				s.rec.mu.Unlock()
				return ev
			}
		}
		changed := s.rec.changed
		s.rec.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			s.t.Fatalf("no %s after event %d within %v; got %v", method, from, wait, s.methods())
		}
	}
}

// count waits until n notifications of method arrived from index from on,
// and returns them.
func (s *session) count(method string, from, n int) []event {
	s.t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		s.rec.mu.Lock()
		changed := s.rec.changed
		s.rec.mu.Unlock()
		if evs := s.all(method, from); len(evs) >= n {
			return evs
		}
		select {
		case <-changed:
		case <-deadline.C:
			s.t.Fatalf("fewer than %d %s within %v; got %v", n, method, wait, s.methods())
		}
	}
}

// mark returns the number of events so far.
func (s *session) mark() int {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return len(s.rec.events)
}

func (s *session) methods() []string {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	var ms []string
	for _, e := range s.rec.events {
		ms = append(ms, strings.TrimPrefix(e.method, "autohand."))
	}
	return ms
}

// all returns the events of method from index from on.
func (s *session) all(method string, from int) []event {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	var evs []event
	for _, e := range s.rec.events[from:] {
		if e.method == method {
			evs = append(evs, e)
		}
	}
	return evs
}

// decode decodes params with the generated type's decoder.
func decode[T any](t *testing.T, ev event) *T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.params, &v); err != nil {
		t.Fatalf("decode %s: %v", ev.method, err)
	}
	return &v
}

// ok fails the test on err.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// wantErr checks that err is the protocol error target.
func wantErr(t *testing.T, err error, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}

func TestTimeoutsMatchIDL(t *testing.T) {
	opts := autohand.Options()
	want := map[string]time.Duration{
		autohand.MethodPrompt:             30 * time.Second,
		autohand.MethodAbort:              10 * time.Second,
		autohand.MethodGetState:           10 * time.Second,
		autohand.MethodPermissionResponse: 10 * time.Second,
		autohand.MethodStepDecision:       10 * time.Second,
		autohand.MethodGetHistory:         10 * time.Second,
		autohand.MethodReset:              300 * time.Second, // the protocol default
		autohand.MethodChangesDecision:    300 * time.Second,
		autohand.MethodAnswer:             300 * time.Second,
		autohand.MethodSetup:              0, // none: the wizard waits for the user
	}
	for method, after := range want {
		got := opts.Timeout(method)
		if got.After != after || got.Action != jsonrpc.TimeoutFail || got.Cancel {
			t.Errorf("Timeout(%s) = %+v, want %v with action error", method, got, after)
		}
	}
}

// TestTimeoutFires scales the 10 s getState timeout down to 50 ms against an
// agent that answers after 300 ms: the call fails with a timeout and, as the
// action is "error", the connection carries on.
func TestTimeoutFires(t *testing.T) {
	scaled := func(method string) jsonrpc.Timeout {
		to := autohand.Options().Timeout(method)
		if to.After > 0 {
			to.After /= 200
		}
		return to
	}
	// The agent answers after 2 s, 40 times the scaled timeout: the
	// timeout fires first even on a loaded machine.
	s := start(t, jsonrpc.Options{Timeout: scaled}, "-latency", "2s")
	if got := scaled(autohand.MethodGetState); got.After != 50*time.Millisecond || got.Action != jsonrpc.TimeoutFail {
		t.Fatalf("scaled timeout = %+v", got)
	}
	_, err := s.agent.GetState(context.Background())
	wantErr(t, err, jsonrpc.ErrTimeout)
	var te *jsonrpc.TimeoutError
	if !errors.As(err, &te) || te.Timeout != 50*time.Millisecond {
		t.Fatalf("getState: %v, want the 50ms timeout", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	st, err := s.agent.GetState(ctx) // a deadline of the caller's own wins
	ok(t, err)
	if st.Status != autohand.AgentStatusIdle {
		t.Fatalf("status = %s", st.Status)
	}
}
