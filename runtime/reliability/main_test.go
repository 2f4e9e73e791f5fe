package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
	"go.uber.org/goleak"
)

// childEnv selects what the test binary does when started as a child.
const childEnv = "RPCGEN_RELIABILITY_CHILD"

// waitLimit bounds every wait so that a bug fails a test instead of
// hanging it; it is never a pass criterion.
const waitLimit = 10 * time.Second

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// handler is a jsonrpc.Handler built from one function per method.
type handler map[string]func(ctx context.Context, req *jsonrpc.Request) (any, error)

func (h handler) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if f, ok := h[req.Method]; ok {
		return f(ctx, req)
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// echo answers with its params.
func echo(_ context.Context, req *jsonrpc.Request) (any, error) {
	if req.Params == nil {
		return nil, nil
	}
	return req.Params, nil
}

// hang is the child's "hang" handler: it tells the parent it runs (the
// notification "hanging"), then never answers until the connection ends.
func hang(ctx context.Context, _ *jsonrpc.Request) (any, error) {
	_ = jsonrpc.ConnFromContext(ctx).Notify(ctx, "hanging", nil)
	<-ctx.Done()
	return nil, ctx.Err()
}

// hangingOptions returns options whose handler delivers on the returned
// channel each "hanging" notification from a child: one per "hang" call
// the child runs.
func hangingOptions() (jsonrpc.Options, <-chan struct{}) {
	hanging := make(chan struct{}, 256)
	return jsonrpc.Options{Handler: handler{
		"hanging": func(context.Context, *jsonrpc.Request) (any, error) {
			hanging <- struct{}{}
			return nil, nil
		},
	}}, hanging
}

// runChild runs one child behaviour and returns its exit status.
func runChild(mode string) int {
	switch mode {
	case "serve":
		// Serve "echo" and "hang" (notifies "hanging", then never
		// answers until the connection ends) over stdio until stdin
		// closes or we are killed.
		c := jsonrpc.NewConn(transport.Stdio(), jsonrpc.Options{
			Framing: framing.ContentLength,
			Handler: handler{
				"echo": echo,
				"hang": hang,
			},
		})
		c.Wait()
		return 0
	case "halfclose":
		// Send one request, close stdout while staying alive, and exit 0
		// once the parent's answer to it has arrived on stdin and stdin
		// has ended; exit 3 if the answer never came.
		writeFrame(os.Stdout, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		os.Stdout.Close()
		in := bufio.NewReader(os.Stdin)
		answered := false
		for {
			body, err := readFrame(in)
			if err != nil {
				break
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result string          `json:"result"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method == "" && string(m.ID) == "1" && m.Result == "pong" {
				answered = true
			}
		}
		if !answered {
			fmt.Fprintln(os.Stderr, "the answer to ping never arrived")
			return 3
		}
		return 0
	case "noread":
		// Read the parent's first request, then never read stdin again:
		// flood the parent with requests whose answers are large, send a
		// notification, answer the first request, and wait to be killed.
		in := bufio.NewReader(os.Stdin)
		body, err := readFrame(in)
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			return 1
		}
		var first struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &first)
		for i := 1; i <= noReadRequests; i++ {
			writeFrame(os.Stdout, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"big"}`, i))
		}
		writeFrame(os.Stdout, `{"jsonrpc":"2.0","method":"flooded"}`)
		writeFrame(os.Stdout, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"started"}`, first.ID))
		time.Sleep(time.Minute)
		return 0
	case "exit":
		// Serve "hang" (notifies "hanging", then never answers) and
		// "exit" (exits with status 7 without answering).
		c := jsonrpc.NewConn(transport.Stdio(), jsonrpc.Options{
			Framing: framing.ContentLength,
			Handler: handler{
				"echo": echo,
				"hang": hang,
				"exit": func(context.Context, *jsonrpc.Request) (any, error) {
					os.Exit(7)
					return nil, nil
				},
			},
		})
		c.Wait()
		return 0
	case "slow":
		// Serve "echo", writing every byte of output separately with a
		// pause after each.
		c := jsonrpc.NewConn(slowStream{transport.Stdio()}, jsonrpc.Options{
			Framing: framing.ContentLength,
			Handler: handler{"echo": echo},
		})
		c.Wait()
		return 0
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode", mode)
		return 2
	}
}

// noReadRequests is how many requests the "noread" child sends; each is
// answered with bigResult bytes the child never reads.
const (
	noReadRequests = 50
	bigResult      = 64 << 10
)

// slowStream writes one byte at a time, pausing after each.
type slowStream struct{ io.ReadWriteCloser }

func (s slowStream) Write(b []byte) (int, error) {
	for i := range b {
		if _, err := s.ReadWriteCloser.Write(b[i : i+1]); err != nil {
			return i, err
		}
		time.Sleep(slowByte)
	}
	return len(b), nil
}

// slowByte is the pause after each byte the "slow" child writes.
const slowByte = 500 * time.Microsecond

// writeFrame writes body with a Content-Length header.
func writeFrame(w io.Writer, body string) {
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// readFrame reads one Content-Length framed message.
func readFrame(r *bufio.Reader) ([]byte, error) {
	tp := textproto.NewReader(r)
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil {
		return nil, err
	}
	body := make([]byte, n)
	_, err = io.ReadFull(r, body)
	return body, err
}

// spawn starts this test binary as a child in mode and connects to it.
func spawn(t testing.TB, mode string, opts jsonrpc.Options) (*jsonrpc.Conn, *transport.Process) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Under -race a child exiting with status 0 sleeps for a second
	// before exiting unless told otherwise.
	cmd.Env = append(os.Environ(), childEnv+"="+mode,
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	p, err := transport.Spawn(cmd, transport.SpawnOptions{Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	opts.Framing = framing.ContentLength
	c := jsonrpc.NewConn(p, opts)
	t.Cleanup(func() {
		c.Close()
		p.Kill()
	})
	return c, p
}

// ctxLimit returns a context ending after waitLimit or with the test.
func ctxLimit(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// stallContext returns a context cancelled once progress has not moved
// for waitLimit, and a function that ends the watch: a test doing a
// great deal of work bounds it by a stall, however long the whole takes
// on a loaded machine.
func stallContext(progress *atomic.Int64) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(waitLimit)
		defer tick.Stop()
		last := progress.Load()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				n := progress.Load()
				if n == last {
					cancel()
					return
				}
				last = n
			}
		}
	}()
	return ctx, func() {
		cancel()
		<-done
	}
}

// within waits for ch to deliver or be closed, failing after waitLimit.
func within[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("%s did not happen within %v", what, waitLimit)
		panic("unreachable")
	}
}

// server is a JSON-RPC server on 127.0.0.1 serving h with opts.
type server struct {
	srv  *transport.Server
	addr string
	// conns receives each server-side connection once it has ended.
	ended chan *jsonrpc.Conn
}

// serveTCP starts a server on addr ("127.0.0.1:0" for any port), shut
// down at the end of the test.
func serveTCP(t *testing.T, addr string, srv *transport.Server, opts jsonrpc.Options) *server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{srv: srv, addr: ln.Addr().String(), ended: make(chan *jsonrpc.Conn, 4096)}
	srv.Handler = func(ctx context.Context, nc net.Conn) {
		c := jsonrpc.NewConn(nc, opts)
		select {
		case <-ctx.Done():
		case <-c.Done():
		}
		c.Close()
		select {
		case s.ended <- c:
		default:
		}
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}
