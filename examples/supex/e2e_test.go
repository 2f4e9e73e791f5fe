// End-to-end tests of the Supex examples: the runtime example runs as a
// child process serving TCP on 127.0.0.1, and the generated driver side
// (in this process) and the driver example talk to it over that socket.
// The runtime only answers: Supex has no messages from runtime to driver.
package supex_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/internal/exampletest"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestMain(m *testing.M) {
	exampletest.Main(m, map[string]*string{"./runtime": &bin.runtime, "./driver": &bin.driver})
}

// Every request waits 15 s and closes the connection on timeout, as the IDL says.
func TestOptionsMatchIDL(t *testing.T) {
	want := jsonrpc.Timeout{After: 15 * time.Second, Action: jsonrpc.TimeoutClose}
	for _, m := range []string{supex.MethodHello, supex.MethodPing, supex.MethodResourcesList, supex.MethodToolsCall} {
		if got := supex.Options().Timeout(m); got != want {
			t.Errorf("Timeout(%q) = %+v, want %+v", m, got, want)
		}
	}
}

func TestNothingButHelloBeforeHello(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	conn, rt := dial(t, rp.addr, jsonrpc.Options{})
	ctx := ctxT(t)

	_, err := rt.Ping(ctx)
	e := wantCode(t, err, jsonrpc.ErrInvalidRequest)
	var data supex.ErrorData
	if json.Unmarshal(e.Data, &data); data.Hint == "" || !strings.Contains(data.Hint, "hello") {
		t.Errorf("-32600 data %s: want a hint naming hello", e.Data)
	}
	_, err = rt.ResourcesList(ctx)
	wantCode(t, err, jsonrpc.ErrInvalidRequest)
	wantCode(t, call(t, rt, supex.ToolNameGetModelInfo, nil, nil), jsonrpc.ErrInvalidRequest)
	wantCode(t, conn.Call(ctx, "no/such", nil, nil), jsonrpc.ErrInvalidRequest)

	// A hello missing a required member is rejected by the generated decoder.
	err = conn.Call(ctx, supex.MethodHello, map[string]any{"name": "x", "version": "1", "agent": "a"}, nil)
	if !errors.Is(err, jsonrpc.ErrInvalidParams) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("hello without pid: %v, want -32602 naming pid", err)
	}

	if _, err := rt.Hello(ctx, helloParams("", "")); err != nil {
		t.Fatalf("hello: %v", err)
	}
	ping, err := rt.Ping(ctx)
	if err != nil || ping.Status != "ok" || ping.Version != "0.2.0" {
		t.Fatalf("ping after hello = %+v, %v", ping, err)
	}
	if err := conn.Call(ctx, "no/such", nil, nil); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Fatalf("unknown method after hello: %v, want -32601", err)
	}
	rp.waitLog(t, reClientIdentified, 1)
}

func TestAuthentication(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_AUTH_TOKEN=s3cret")
	_, rt := dial(t, rp.addr, jsonrpc.Options{})
	ctx := ctxT(t)

	_, err := rt.Hello(ctx, helloParams("", ""))
	wantCode(t, err, supex.ErrAuthenticationFailed)
	_, err = rt.Hello(ctx, helloParams("s3cre", ""))
	wantCode(t, err, supex.ErrAuthenticationFailed)
	_, err = rt.Ping(ctx)
	wantCode(t, err, jsonrpc.ErrInvalidRequest) // still unidentified

	if _, err := rt.Hello(ctx, helloParams("s3cret", "")); err != nil {
		t.Fatalf("hello with the token: %v", err)
	}
	if _, err := rt.Ping(ctx); err != nil {
		t.Fatalf("ping after authenticating: %v", err)
	}
	// A later failed hello takes the identification back.
	_, err = rt.Hello(ctx, helloParams("wrong", ""))
	wantCode(t, err, supex.ErrAuthenticationFailed)
	_, err = rt.Ping(ctx)
	wantCode(t, err, jsonrpc.ErrInvalidRequest)
	rp.waitLog(t, reAuthFailed, 3)
}

func TestResourcesList(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	_, rt := session(t, rp, "")
	res, err := rt.ResourcesList(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || len(res.Resources) != 7 {
		t.Fatalf("resources/list = %+v, want 7 entities", res)
	}
	box := res.Resources[0]
	if box.ID != 1001 || box.Type != "group" || box.Bounds == nil || box.Bounds.Center[2] != 39.37/2 {
		t.Errorf("first resource = %+v, want the box group with its bounds", box)
	}
}

// Timeouts: the IDL's 15 s scaled down to 100 ms, with the same action;
// the runtime delays its answers after hello by 5 s.
func TestTimeoutClosesConnection(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_RESPONSE_DELAY=5")
	timedOut := make(chan string, 1)
	conn, rt := dial(t, rp.addr, jsonrpc.Options{
		Timeout: func(method string) jsonrpc.Timeout {
			to := supex.Options().Timeout(method)
			to.After = 100 * time.Millisecond
			return to
		},
		OnTimeout: func(method string, _ jsonrpc.ID) { timedOut <- method },
	})
	if _, err := rt.Hello(ctxT(t), helloParams("", "")); err != nil {
		t.Fatalf("hello is not delayed: %v", err)
	}
	// The default timeout applies to calls whose context has no deadline;
	// the runtime's 5 s delay still bounds this one if it is broken.
	_, err := rt.ToolsCall(context.Background(), &supex.ToolsCallParams{Name: supex.ToolNameGetModelInfo})
	var te *jsonrpc.TimeoutError
	// The error names the timeout that fired: the scaled 100 ms, not the
	// IDL's 15 s, however long the machine took to get there.
	if !errors.Is(err, jsonrpc.ErrTimeout) || !errors.As(err, &te) || te.Method != supex.MethodToolsCall || te.Timeout != 100*time.Millisecond {
		t.Fatalf("tools/call: %v, want the 100ms timeout", err)
	}
	select {
	case m := <-timedOut:
		if m != supex.MethodToolsCall {
			t.Errorf("OnTimeout for %q", m)
		}
	case <-time.After(wait):
		t.Fatal("OnTimeout not called")
	}
	select {
	case <-conn.Done(): // action close
	case <-time.After(wait):
		t.Fatal("connection still open after a timeout with action close")
	}
	if _, err := rt.Ping(ctxT(t)); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("ping on the closed connection: %v, want ErrClosed", err)
	}
}

func TestExamplesPrintUsage(t *testing.T) {
	for _, path := range []string{bin.runtime, bin.driver} {
		code, stdout, stderr := runBin(t, path, "", nil, "-h")
		if code != 0 || !strings.Contains(stdout+stderr, "usage:") {
			t.Errorf("%s -h: exit %d, output %q", filepath.Base(path), code, stdout+stderr)
		}
	}
}

// With -close-after-request the runtime closes the connection after
// answering any request but hello, refused or not, as upstream's does;
// without it the connection carries on.
func TestRuntimeCloseAfterRequest(t *testing.T) {
	for _, closing := range []bool{false, true} {
		var flags []string
		if closing {
			flags = []string{"-close-after-request"}
		}
		rp := startRuntimeWith(t, "127.0.0.1:0", flags)
		ctx := ctxT(t)

		// Before hello: refused, and then closed when closing.
		conn, rt := dial(t, rp.addr, jsonrpc.Options{})
		_, err := rt.Ping(ctx)
		wantCode(t, err, jsonrpc.ErrInvalidRequest)
		if closing {
			waitClosed(t, conn)
			if !errors.Is(conn.Err(), jsonrpc.ErrPeerClosed) {
				t.Errorf("after a refused request: %v, want the runtime to close", conn.Err())
			}
		} else if _, err := rt.Hello(ctx, helloParams("", "")); err != nil {
			t.Errorf("hello after a refused request: %v", err)
		}

		// hello keeps the connection; ping is answered, then it closes
		// when closing, or carries on.
		conn, rt = session(t, rp, "")
		if _, err := rt.Hello(ctx, helloParams("", "")); err != nil {
			t.Fatalf("a second hello: %v", err)
		}
		if _, err := rt.Ping(ctx); err != nil {
			t.Fatalf("ping: %v", err)
		}
		if closing {
			waitClosed(t, conn)
			if !errors.Is(conn.Err(), jsonrpc.ErrPeerClosed) {
				t.Errorf("after ping: %v, want the runtime to close", conn.Err())
			}
			continue
		}
		if _, err := rt.ResourcesList(ctx); err != nil {
			t.Errorf("resources/list after ping on the same connection: %v", err)
		}
	}
}

// waitClosed waits for conn to end, failing the test if it does not.
func waitClosed(t *testing.T, conn *jsonrpc.Conn) {
	t.Helper()
	select {
	case <-conn.Done():
	case <-time.After(wait):
		t.Fatal("the connection is still open")
	}
}
