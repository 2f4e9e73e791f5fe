package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The wrapper is what a jsonrpc.Conn looks for.
var _ jsonrpc.MessageReader = (*messageConn)(nil)

func TestWithMessageTimeoutWithoutBudget(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if c := WithMessageTimeout(a, 0, 0); c != a {
		t.Fatal("WithMessageTimeout with no timeouts wrapped the connection")
	}
	if _, ok := WithMessageTimeout(a, time.Second, 0).(*idleConn); !ok {
		t.Fatal("WithMessageTimeout with only an idle timeout is not WithIdleTimeout")
	}
}

// pipeWrite writes b to w in the background (a pipe write blocks until
// it is read).
func pipeWrite(w net.Conn, b string) {
	go func() { _, _ = io.WriteString(w, b) }()
}

// readOnce reads into buf from c, failing the test if the Read has not
// returned after 10 s (a bug, not a timing).
func readOnce(t *testing.T, c net.Conn, buf []byte) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(buf)
		errc <- err
	}()
	return within(t, errc, 10*time.Second, "Read returning")
}

func TestMessageReadResetsBudget(t *testing.T) {
	const budget = 50 * time.Millisecond
	for _, mark := range []bool{true, false} {
		t.Run(fmt.Sprintf("MessageRead=%v", mark), func(t *testing.T) {
			a, b := net.Pipe()
			defer b.Close()
			c := WithMessageTimeout(a, 0, budget)
			defer c.Close()
			buf := make([]byte, 1)
			pipeWrite(b, "x")
			if err := readOnce(t, c, buf); err != nil {
				t.Fatalf("first Read: %v", err)
			}
			// The first message's budget has certainly run out.
			time.Sleep(2 * budget)
			if mark {
				c.(jsonrpc.MessageReader).MessageRead()
			}
			pipeWrite(b, "y")
			err := readOnce(t, c, buf)
			if !mark {
				if !errors.Is(err, ErrMessageTimeout) {
					t.Fatalf("Read past the budget without MessageRead = %v, want ErrMessageTimeout", err)
				}
				if msg := err.Error(); !strings.Contains(msg, budget.String()) || !strings.Contains(msg, "pipe") {
					t.Errorf("error %q names neither the budget nor the peer", msg)
				}
				// The connection was closed: the peer sees EOF.
				if err := readOnce(t, b, buf); err != io.EOF {
					t.Fatalf("peer Read after the budget ran out = %v, want io.EOF", err)
				}
				return
			}
			// Between messages no idle timeout applies (idle is 0), and
			// the new message's budget started with this Read.
			if err != nil || buf[0] != 'y' {
				t.Fatalf("Read after MessageRead = %q, %v", buf, err)
			}
			// The second message never completes: its own budget ends it.
			if err := readOnce(t, c, buf); !errors.Is(err, ErrMessageTimeout) {
				t.Fatalf("Read of an unfinished second message = %v, want ErrMessageTimeout", err)
			}
		})
	}
}

// rpcServer serves JSON-RPC ("sum" of an int list) on s and returns the
// address and a channel receiving each server-side connection's Err once
// it ends.
func rpcServer(t *testing.T, s *Server) (net.Addr, <-chan error) {
	t.Helper()
	ended := make(chan error, 16)
	handler := jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var xs []int
		if err := req.DecodeParams(&xs); err != nil {
			return nil, err
		}
		total := 0
		for _, x := range xs {
			total += x
		}
		return total, nil
	})
	s.Handler = func(ctx context.Context, nc net.Conn) {
		c := jsonrpc.NewConn(nc, jsonrpc.Options{Handler: handler})
		select {
		case <-ctx.Done():
		case <-c.Done():
		}
		c.Close()
		ended <- c.Err()
	}
	return serveOn(t, s, listen(t)), ended
}

func TestServerMessageTimeoutClosesTrickler(t *testing.T) {
	const budget = 500 * time.Millisecond
	addr, ended := rpcServer(t, &Server{IdleTimeout: 10 * time.Second, MessageTimeout: budget})

	// A trickler sends a byte every 20 ms and never ends its message:
	// it is never idle, but its message is late.
	trickler := dial(t, addr)
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		msg := `{"jsonrpc":"2.0","id":1,"method":"sum","params":[` + strings.Repeat("1,", 1000)
		for i := 0; i < len(msg); i++ {
			if _, err := trickler.Write([]byte{msg[i]}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	tricklerRead := readErr(trickler)

	// Meanwhile a slow peer sends whole messages, each in three pieces
	// 30 ms apart: each is well within the budget, all of them together
	// take longer than it.
	slow := dial(t, addr)
	answers := bufio.NewReader(slow)
	const calls = 12
	for i := range calls {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sum","params":[%d,1]}`+"\n", i, i)
		third := len(msg) / 3
		for _, piece := range []string{msg[:third], msg[third : 2*third], msg[2*third:]} {
			if _, err := io.WriteString(slow, piece); err != nil {
				t.Fatalf("slow peer, message %d: %v", i, err)
			}
			time.Sleep(30 * time.Millisecond)
		}
		line, err := answers.ReadBytes('\n')
		if err != nil {
			t.Fatalf("slow peer, answer %d: %v", i, err)
		}
		var resp struct {
			ID     int `json:"id"`
			Result int `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.ID != i || resp.Result != i+1 {
			t.Fatalf("slow peer, answer %d = %s (%v)", i, line, err)
		}
	}

	within(t, tricklerRead, 10*time.Second, "the trickler's connection closing")
	if err := within(t, ended, 10*time.Second, "the trickler's server-side connection ending"); !errors.Is(err, ErrMessageTimeout) {
		t.Errorf("trickler's server-side Err() = %v, want ErrMessageTimeout", err)
	}
	within(t, trickled, 10*time.Second, "the trickler's writes failing")
	// The slow peer's connection is still served.
	if err := sumCall(slow, answers, calls); err != nil {
		t.Errorf("slow peer after the trickler was closed: %v", err)
	}
	select {
	case err := <-ended:
		t.Errorf("a second connection ended (the slow peer's?): %v", err)
	default:
	}
}

// sumCall sends one whole "sum" request with id on c and checks the
// answer read from r.
func sumCall(c net.Conn, r *bufio.Reader, id int) error {
	if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%d,"method":"sum","params":[%d,2]}`+"\n", id, id); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%d}`, id, id+2)
	if strings.TrimSpace(string(line)) != want {
		return fmt.Errorf("answer %s, want %s", line, want)
	}
	return nil
}

func TestServerMessageTimeoutIdleBetweenMessages(t *testing.T) {
	const budget, idle = 100 * time.Millisecond, 2 * time.Second
	addr, ended := rpcServer(t, &Server{IdleTimeout: idle, MessageTimeout: budget})
	c := dial(t, addr)
	r := bufio.NewReader(c)
	for i := range 3 {
		if err := sumCall(c, r, i); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		// Silent between messages for several message budgets, well
		// under the idle timeout.
		time.Sleep(5 * budget)
	}
	// Silent for good: the idle timeout, not the budget, closes it.
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("read a byte the server never sent")
	}
	if err := within(t, ended, 10*time.Second, "the server-side connection ending"); !errors.Is(err, ErrIdle) {
		t.Errorf("server-side Err() = %v, want ErrIdle", err)
	}
}
